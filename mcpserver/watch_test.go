package mcpserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/recall"
)

// An MCP session that recalls from the store counts once as a watched session (the forgetting
// evidence a dream needs), as chat and run sessions do: every memory then in the store gets an
// idle session, a recalled one is set back to 0. A session that only lists or saves is not counted.
func TestMCPSessionsCountAsWatchedSessions(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	writer := connect(t, s, nil)
	for _, in := range []SaveInput{
		{Name: "tabs", Type: "feedback", Description: "indentation", Body: "The user indents Go code with tabs."},
		{Name: "部署", Type: "project", Description: "部署流程", Body: "发布通过 CI 流水线完成。"},
		{Name: "coffee", Type: "user", Description: "coffee", Body: "The team drinks its coffee black."},
	} {
		mustCall(t, writer, "memory_save", in, nil)
	}
	mustCall(t, writer, "memory_list", struct{}{}, nil)
	dir := s.MemoryDir()
	s.waitRecorded()
	if _, ok, err := memdir.ReadWatch(dir); ok || err != nil {
		t.Fatalf("saving and listing counted as a watched session (ok %v, err %v)", ok, err)
	}

	state := func() (int, map[string]recall.StatEntry) {
		t.Helper()
		s.waitRecorded() // a call does not wait for its recording
		w, ok, err := memdir.ReadWatch(dir)
		if !ok || err != nil {
			t.Fatalf("ReadWatch: ok %v, err %v", ok, err)
		}
		st, err := recall.NewStats(dir).Load(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return w.Sessions, st
	}
	idle := func(st map[string]recall.StatEntry) map[string]int {
		out := map[string]int{}
		for f, e := range st {
			out[f] = e.IdleSessions
		}
		return out
	}

	// One session, two searches and a get: counted once.
	a := connect(t, s, nil)
	var out SearchOutput
	mustCall(t, a, "memory_search", SearchInput{Query: "tabs indentation"}, &out)
	if len(out.Results) == 0 || out.Results[0].Memory.File != "tabs.md" {
		t.Fatalf("search: %+v", out)
	}
	mustCall(t, a, "memory_search", SearchInput{Query: "tabs"}, nil)
	mustCall(t, a, "memory_get", GetInput{Name: "部署"}, nil)
	n, st := state()
	if n != 1 {
		t.Errorf("sessions = %d after one MCP session, want 1", n)
	}
	if diff := cmp.Diff(map[string]int{"tabs.md": 0, "部署.md": 0, "coffee.md": 1}, idle(st)); diff != "" {
		t.Errorf("idle sessions (-want +got):\n%s", diff)
	}
	if st["tabs.md"].Recalled != 1 || st["部署.md"].Recalled != 1 { // once a session
		t.Errorf("recalled: %+v", st)
	}

	// A second session counts again.
	b := connect(t, s, nil)
	mustCall(t, b, "memory_search", SearchInput{Query: "部署流程"}, nil)
	n, st = state()
	if n != 2 {
		t.Errorf("sessions = %d after two MCP sessions, want 2", n)
	}
	if got := st["coffee.md"].IdleSessions; got != 2 {
		t.Errorf("coffee.md idle sessions = %d, want 2", got)
	}
}

// memory_forget with archive logs the move, so that `strata memory restore` can undo it.
func TestMCPForgetArchiveIsLogged(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "tabs", Type: "feedback", Description: "indentation", Body: "tabs"}, nil)
	var out ForgetOutput
	mustCall(t, cs, "memory_forget", ForgetInput{Name: "tabs", Archive: true}, &out)
	recs, err := memdir.ReadArchiveLog(s.MemoryDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Action != memdir.ActionArchive || recs[0].File != "tabs.md" || recs[0].ArchivedTo != out.ArchivedTo || len(recs[0].IndexLines) != 1 {
		t.Fatalf("archive log: %+v", recs)
	}
	if open := memdir.Restorable(recs); len(open) != 1 {
		t.Errorf("restorable: %+v", open)
	}
}

// A search's recording is written after its reply, in the order the calls came; Close waits
// for what is queued, and a call after Close records before it returns.
func TestMCPRecallRecordingQueued(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	for _, in := range []SaveInput{
		{Name: "tabs", Type: "feedback", Description: "indentation", Body: "The user indents Go code with tabs."},
		{Name: "부산", Type: "project", Description: "배포 지역", Body: "서비스는 부산 리전에 배포한다."},
	} {
		mustCall(t, cs, "memory_save", in, nil)
	}
	dir := s.MemoryDir()
	// Held, the statistics lock keeps the recorder from writing: the calls still answer.
	s.countMu.Lock()
	mustCall(t, cs, "memory_search", SearchInput{Query: "tabs indentation"}, nil)
	mustCall(t, cs, "memory_get", GetInput{Name: "부산"}, nil)
	if _, ok, _ := memdir.ReadWatch(dir); ok {
		t.Fatal("the session was recorded while the recorder was held")
	}
	s.countMu.Unlock()
	s.Close() // waits for the queue
	w, ok, err := memdir.ReadWatch(dir)
	if !ok || err != nil || w.Sessions != 1 {
		t.Fatalf("after Close: watch %+v, ok %v, err %v", w, ok, err)
	}
	st, err := recall.NewStats(dir).Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st["tabs.md"].Recalled != 1 || st["부산.md"].Recalled != 1 {
		t.Fatalf("recalled after Close: %+v", st)
	}
	// After Close the call records before it returns.
	other := connect(t, s, nil)
	mustCall(t, other, "memory_get", GetInput{Name: "tabs"}, nil)
	if w, _, _ := memdir.ReadWatch(dir); w.Sessions != 2 {
		t.Fatalf("a call after Close: %d sessions recorded, want 2", w.Sessions)
	}
}
