package transcript

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/fsutil"
)

func TestJournalCreatesFileAtFirstRealEntry(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "proj", "s1.jsonl")
	j, err := Open(t.Context(), path, Options{SessionID: "s1", CWD: "/w", FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&Entry{Type: TypeCustomTitle, CustomTitle: "标题", SessionID: "s1"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&Entry{Type: TypeFileHistorySnapshot, MessageID: "m1"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("file exists before the first user entry (err %v)", err)
	}
	if j.Created() {
		t.Fatal("Created() before the first user entry")
	}
	u := textEntry(t, TypeUser, "", "你好")
	if err := j.Append(u); err != nil {
		t.Fatal(err)
	}
	a := textEntry(t, TypeAssistant, u.UUID, "hi")
	if err := j.Append(a); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	f := checkFile(t, path)
	if diff := cmp.Diff([]string{TypeCustomTitle, TypeFileHistorySnapshot, TypeUser, TypeAssistant}, lineTypes(f)); diff != "" {
		t.Fatalf("entries (-want +got):\n%s", diff)
	}
	got := f.Entries[2]
	if got.SessionID != "s1" || got.CWD != "/w" || got.UUID == "" || got.Timestamp.IsZero() {
		t.Fatalf("user entry not filled: %+v", got)
	}
	if !bytes.Contains(got.Raw, []byte(`"parentUuid":null`)) {
		t.Fatalf("root entry lacks parentUuid:null: %s", got.Raw)
	}
	if f.Entries[3].ParentUUID != u.UUID {
		t.Fatalf("assistant parent = %q, want %q", f.Entries[3].ParentUUID, u.UUID)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, want 0600", fi.Mode().Perm())
	}
	di, _ := os.Stat(filepath.Dir(path))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", di.Mode().Perm())
	}
	if err := j.Append(u); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestJournalWithoutConversationWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", "s.jsonl")
	j, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append(&Entry{Type: TypeSystem, Content: []byte(`"hello"`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("directory created without a conversation (err %v)", err)
	}
}

func TestJournalSecondWriterGetsErrLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	j1, err := Open(t.Context(), path, Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer j1.Close(t.Context())
	// Both journals start before the file exists; the second to create it loses.
	j2, err := Open(t.Context(), path, Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close(t.Context())
	if err := j1.Append(textEntry(t, TypeUser, "", "one")); err != nil {
		t.Fatal(err)
	}
	if err := j2.Append(textEntry(t, TypeUser, "", "two")); !errors.Is(err, ErrLocked) {
		t.Fatalf("second writer Append = %v, want ErrLocked", err)
	}
	// Opening an existing file that is being written fails at once.
	if _, err := Open(t.Context(), path, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("Open of a locked file = %v, want ErrLocked", err)
	}
	if err := j1.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	j3, err := Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatalf("Open after the first writer closed: %v", err)
	}
	j3.Close(t.Context())
}

func TestJournalBackgroundFlush(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		j, err := Open(t.Context(), path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := j.Append(textEntry(t, TypeUser, "", "x")); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(path); len(data) != 0 {
			t.Fatalf("written before the flush interval: %q", data)
		}
		synctest.Wait()
		// One flush interval later the entry is in the file without Flush or Sync.
		for range 2 {
			time_Sleep(FlushInterval)
			synctest.Wait()
		}
		if written, _ := j.Counts(); written != 1 {
			t.Fatalf("written = %d after the flush interval, want 1", written)
		}
		if err := j.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		checkFile(t, path)
	})
}

func TestJournalConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	j, err := Open(t.Context(), path, Options{FlushInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 200 {
				if err := j.Append(textEntry(t, TypeUser, "", strings.Repeat("ab", w+i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	f := checkFile(t, path)
	if len(f.Entries) != 800 || f.Skipped() != 0 {
		t.Fatalf("%d entries, %d skipped; want 800, 0", len(f.Entries), f.Skipped())
	}
}

func TestJournalRepairsTornTail(t *testing.T) {
	tests := []struct {
		name, tail string
		wantCut    bool
		wantLines  int
	}{
		{"fragment", `{"type":"user","uu`, true, 1},
		{"complete object without newline", `{"type":"summary","summary":"s"}`, false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			good := `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}` + "\n"
			if err := os.WriteFile(path, []byte(good+tt.tail), 0o600); err != nil {
				t.Fatal(err)
			}
			j, err := Open(t.Context(), path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := j.Repaired() > 0; got != tt.wantCut {
				t.Errorf("Repaired() = %d, want cut %v", j.Repaired(), tt.wantCut)
			}
			if err := j.Append(textEntry(t, TypeAssistant, "u1", "after")); err != nil {
				t.Fatal(err)
			}
			if err := j.Close(t.Context()); err != nil {
				t.Fatal(err)
			}
			f := checkFile(t, path)
			if len(f.Entries) != tt.wantLines+1 || f.Skipped() != 0 {
				t.Fatalf("entries %v, skipped %d", lineTypes(f), f.Skipped())
			}
		})
	}
}

func TestJournalMetadataStaysInTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", "s.jsonl")
	j, err := Open(t.Context(), path, Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	j.Append(textEntry(t, TypeUser, "", "first prompt"))
	j.Append(&Entry{Type: TypeCustomTitle, CustomTitle: "我的会话"})
	j.Append(&Entry{Type: TypeTag, Tag: "release"})
	for range 200 {
		j.AppendMessage(textEntry(t, TypeAssistant, "", "").decodeOrFail(t, strings.Repeat("long reply ", 60)), false)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	info, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Title != "我的会话" || info.Tag != "release" || info.FirstPrompt != "first prompt" {
		t.Fatalf("Stat = title %q tag %q first %q", info.Title, info.Tag, info.FirstPrompt)
	}
	// Reopening and closing right away does not append the metadata again.
	before, _ := os.ReadFile(path)
	j, err = Open(t.Context(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatalf("close without new entries changed the file (%d → %d bytes)", len(before), len(after))
	}
}

// decodeOrFail turns a text entry back into a message with the given text (test helper).
func (e *Entry) decodeOrFail(t testing.TB, text string) conversationMessage {
	t.Helper()
	m, ok, err := e.DecodeMessage()
	if err != nil || !ok {
		t.Fatal(err)
	}
	m.Content[0].Text = text
	return m
}

// faultyAppendFS fails chosen operations of the append path, counting from 1.
type faultyAppendFS struct {
	FS
	mu                                sync.Mutex
	failWrite, failSync, failTruncate int
	failRename                        int
	writes, syncs, truncates, renames int
}

func (f *faultyAppendFS) hit(n *int, at int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	*n++
	return at > 0 && *n == at
}

func (f *faultyAppendFS) OpenAppend(name string, perm os.FileMode) (AppendFile, error) {
	af, err := OS.OpenAppend(name, perm)
	if err != nil {
		return nil, err
	}
	return &faultyAppendFile{AppendFile: af, fs: f}, nil
}

func (f *faultyAppendFS) MkdirAll(p string, perm os.FileMode) error { return OS.MkdirAll(p, perm) }
func (f *faultyAppendFS) SyncDir(d string) error                    { return OS.SyncDir(d) }
func (f *faultyAppendFS) Rename(o, n string) error {
	if f.hit(&f.renames, f.failRename) {
		return fsutil.ErrInjected
	}
	return OS.Rename(o, n)
}

type faultyAppendFile struct {
	AppendFile
	fs *faultyAppendFS
}

func (ff *faultyAppendFile) Write(p []byte) (int, error) {
	if ff.fs.hit(&ff.fs.writes, ff.fs.failWrite) {
		n, _ := ff.AppendFile.Write(p[:len(p)/2]) // a torn write
		return n, fsutil.ErrInjected
	}
	return ff.AppendFile.Write(p)
}

func (ff *faultyAppendFile) Sync() error {
	if ff.fs.hit(&ff.fs.syncs, ff.fs.failSync) {
		return fsutil.ErrInjected
	}
	return ff.AppendFile.Sync()
}

func (ff *faultyAppendFile) Truncate(n int64) error {
	if ff.fs.hit(&ff.fs.truncates, ff.fs.failTruncate) {
		return fsutil.ErrInjected
	}
	return ff.AppendFile.Truncate(n)
}

func TestJournalInjectedFailuresKeepEarlierContent(t *testing.T) {
	tests := []struct {
		name string
		fs   *faultyAppendFS
		// the failing call: after one synced turn, a second turn's Sync fails
		wantErr bool
	}{
		{"write", &faultyAppendFS{failWrite: 2}, true},
		{"sync", &faultyAppendFS{failSync: 2}, true},
		{"write and truncate", &faultyAppendFS{failWrite: 2, failTruncate: 1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			j, err := Open(t.Context(), path, Options{FS: tt.fs, FlushInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			u := textEntry(t, TypeUser, "", "turn one")
			j.Append(u)
			if err := j.Sync(t.Context()); err != nil {
				t.Fatal(err)
			}
			earlier, _ := os.ReadFile(path)
			j.Append(textEntry(t, TypeAssistant, u.UUID, strings.Repeat("turn two ", 50)))
			err = j.Sync(t.Context())
			if !errors.Is(err, fsutil.ErrInjected) {
				t.Fatalf("Sync = %v, want the injected failure", err)
			}
			now, _ := os.ReadFile(path)
			if !bytes.HasPrefix(now, earlier) {
				t.Fatalf("earlier content changed:\nbefore %q\nafter  %q", earlier, now)
			}
			// The failure has passed: the retry writes the entry, and the file reads clean
			// except, when the partial write could not be cut, for that one fragment.
			if err := j.Close(t.Context()); err != nil {
				t.Fatalf("Close after the failure: %v", err)
			}
			var f *File
			if tt.fs.failTruncate > 0 {
				// The fragment could not be cut: it stays as one unreadable line.
				if f, err = ReadFile(t.Context(), path, ReadOptions{}); err != nil {
					t.Fatal(err)
				}
			} else {
				f = checkFile(t, path)
			}
			if diff := cmp.Diff([]string{TypeUser, TypeAssistant}, lineTypes(f)); diff != "" {
				t.Fatalf("entries (-want +got):\n%s\nproblems %v", diff, f.Problems)
			}
			wantSkipped := 0
			if tt.fs.failTruncate > 0 {
				wantSkipped = 1
			}
			if f.Skipped() != wantSkipped {
				t.Fatalf("skipped %d lines, want %d: %v", f.Skipped(), wantSkipped, f.Problems)
			}
		})
	}
}

// writeSubagent writes a subagent transcript of the session at sessionPath as Claude Code
// does: one sidechain line, and meta as its .meta.json ("" for none).
func writeSubagent(t *testing.T, sessionPath, id, meta string) string {
	t.Helper()
	p := SubagentPath(sessionPath, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	line := `{"parentUuid":null,"isSidechain":true,"agentId":"` + id + `","sessionId":"s","type":"user","message":{"role":"user","content":"task"},"uuid":"u-` + id + `","timestamp":"2026-06-01T00:00:00.000Z"}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	if meta != "" {
		if err := os.WriteFile(SubagentMetaPath(p), []byte(meta), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestSubagents(t *testing.T) {
	session := filepath.Join(t.TempDir(), "p", "s.jsonl")
	if subs, err := Subagents(session); err != nil || subs != nil {
		t.Fatalf("no subagents dir: %v, %v", subs, err)
	}
	writeSubagent(t, session, "b2", `{"agentId":"b2",`)
	writeSubagent(t, session, "a1", `{"agentId":"a1","agentType":"explore","parentSessionId":"s"}`)
	writeSubagent(t, session, "c3", "")
	subs, err := Subagents(session)
	if err != nil || len(subs) != 3 {
		t.Fatalf("Subagents = %v, %v", subs, err)
	}
	if s := subs[0]; s.AgentID != "a1" || s.Meta.AgentType != "explore" || s.Meta.ParentSessionID != "s" || s.MetaErr != nil {
		t.Errorf("a1 = %+v", s)
	}
	if s := subs[1]; s.AgentID != "b2" || s.MetaErr == nil {
		t.Errorf("b2 with a broken .meta.json = %+v", s)
	}
	if s := subs[2]; s.AgentID != "c3" || s.MetaErr != nil || s.Meta.AgentID != "" {
		t.Errorf("c3 without .meta.json = %+v", s)
	}
	f := checkFile(t, subs[0].Path)
	if e := f.Entries[0]; !e.IsSidechain || e.AgentID != "a1" || e.SessionID != "s" {
		t.Fatalf("subagent entry = %s", e.Raw)
	}
}
