package compact

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/work"
)

func TestSummarizeChunkedCoversEveryMessageOnce(t *testing.T) {
	tests := []struct {
		name       string
		turns      int
		summary    int // tokens of each fake summary
		wantLevels bool
	}{
		{"fits one call", 2, 50, false},
		{"one roll-up", 40, 50, false},
		{"several levels", 40, 1200, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, p := newServer(t)
			n := 0
			srv.Fallback = func(llmtest.Request) llmtest.Reply {
				n++
				return llmtest.Text(strings.Repeat("s", 4*tt.summary) + " " + string(rune('A'+n%26)))
			}
			entries := chat(tt.turns, 600)
			s, err := Summarize(t.Context(), p, entries, SummaryOptions{Window: 8000, MaxTokens: 2000})
			if err != nil {
				t.Fatal(err)
			}
			reqs := srv.Requests()
			if s.Calls != len(reqs) {
				t.Errorf("Calls = %d, server saw %d", s.Calls, len(reqs))
			}
			// Level-0 requests are those that carry messages (not summaries).
			count := map[string]int{}
			var leaf, rollup int
			for _, r := range reqs {
				text := promptOf(t, r)
				if strings.Contains(text, "<summary from=") {
					rollup++
					continue
				}
				leaf++
				for _, e := range entries {
					count[e.UUID] += strings.Count(text, "["+e.UUID+"]")
				}
			}
			for i, e := range entries {
				if count[e.UUID] != 1 {
					t.Errorf("entry %d (%s) sent %d times to the summariser, want 1", i, e.UUID, count[e.UUID])
				}
			}
			if tt.turns == 2 {
				if len(reqs) != 1 || s.Parts != nil {
					t.Fatalf("small history: %d calls, %d parts; want 1 call and no parts", len(reqs), len(s.Parts))
				}
				return
			}
			if rollup == 0 || leaf != len(s.Parts) {
				t.Fatalf("leaf calls %d, parts %d, roll-up calls %d", leaf, len(s.Parts), rollup)
			}
			// The parts cover the entries exactly once, in order.
			i, total := 0, 0
			for _, part := range s.Parts {
				if part.From != entries[i].UUID {
					t.Fatalf("part starts at %s, want %s (entry %d)", part.From, entries[i].UUID, i)
				}
				i += part.Count
				total += part.Count
				if part.To != entries[i-1].UUID {
					t.Fatalf("part ends at %s, want %s (entry %d)", part.To, entries[i-1].UUID, i-1)
				}
			}
			if total != len(entries) {
				t.Errorf("parts cover %d entries, want %d", total, len(entries))
			}
			if gotLevels := rollup > 1; gotLevels != tt.wantLevels {
				t.Errorf("%d roll-up calls; want several levels = %v", rollup, tt.wantLevels)
			}
			// The final call asks for every fixed section.
			last := promptOf(t, reqs[len(reqs)-1])
			for _, sec := range Sections {
				if !strings.Contains(last, sec) {
					t.Errorf("final prompt lacks section %q", sec)
				}
			}
		})
	}
}

func TestRunKeepsUserMessagesVerbatim(t *testing.T) {
	srv, p := newServer(t)
	srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("1. Primary request: stuff") }
	entries := chat(6, 1500)
	in := Input{History: entries, Provider: p, Window: 30_000, MaxOutput: 4000, Trigger: Auto}
	r1, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	want := UserMessages(entries)
	if len(want) != 6 {
		t.Fatalf("UserMessages found %d, want 6: %q", len(want), want)
	}
	if diff := cmp.Diff(want, r1.UserMessages); diff != "" {
		t.Errorf("carried (-want +got):\n%s", diff)
	}
	summary := r1.Context[0].Message.TextOf()
	for _, u := range want {
		if !strings.Contains(summary, u) {
			t.Errorf("summary message lacks user message %q", u)
		}
	}
	// A second compaction of the compacted chain plus new turns still carries all of them,
	// including a message that looks like the markup.
	h, err := conversation.NewHistory(r1.Context)
	if err != nil {
		t.Fatal(err)
	}
	tricky := "please keep </user-message> and <user-message>\nas text"
	h.Append(conversation.NewText(conversation.User, tricky))
	h.Append(conversation.NewText(conversation.Assistant, strings.Repeat("a long answer. ", 2000)))
	r2, err := Run(t.Context(), Input{History: h.Entries(), Provider: p, Window: 30_000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(append(want, tricky), r2.UserMessages); diff != "" {
		t.Errorf("after second compaction (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(append(want, tricky), UserMessages(r2.Context)); diff != "" {
		t.Errorf("recovered from the new context (-want +got):\n%s", diff)
	}

	// A small budget keeps the most recent and says how many were left out.
	r3, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, UserBudget: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(r3.UserMessages) == 0 || r3.UserMessages[len(r3.UserMessages)-1] != want[len(want)-1] || r3.UserOmitted == 0 ||
		r3.UserOmitted+len(r3.UserMessages) != len(want) {
		t.Errorf("budget 40: kept %q, omitted %d", r3.UserMessages, r3.UserOmitted)
	}
}

func TestRunEntriesAndReinjection(t *testing.T) {
	srv, p := newServer(t)
	srv.Script(llmtest.Text("the summary"))
	dir := t.TempDir()
	cache := conversation.NewReadCache(conversation.ReadCacheOptions{Dir: dir})
	for i := range 7 {
		body := strings.Repeat("line of file content\n", 200*(i+1)) // up to ~7K tokens
		if err := cache.Record(conversation.FileState{Path: filepath.Join(dir, "f"+string(rune('a'+i))+".go"), Content: body}); err != nil {
			t.Fatal(err)
		}
	}
	// The most recent view is an injected instruction file: not re-injected as a file.
	claude := filepath.Join(dir, "CLAUDE.md")
	if err := cache.Record(conversation.FileState{Path: claude, Content: "old rules", Partial: true, Source: conversation.SourceInjected}); err != nil {
		t.Fatal(err)
	}
	cacheBefore := cache.Recent(100)
	todos := []work.Todo{{Content: "Run the tests", Status: work.TodoInProgress, ActiveForm: "Running the tests"}, {Content: "写文档", Status: work.TodoPending, ActiveForm: "正在写文档"}}
	tasks := []work.Task{{ID: "bx1", Kind: work.KindShell, Status: work.Killed, Description: "go test ./..."}}
	entries := chat(40, 1000)
	in := Input{History: entries, LeafUUID: "leaf-1", Provider: p, Window: 200_000,
		Reinject: Reinject{Files: cache.Recent(0), Todos: todos, Tasks: tasks}}
	r, err := Run(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	// Run touched nothing: the cache it took the views from is as it was.
	if diff := cmp.Diff(cacheBefore, cache.Recent(100)); diff != "" {
		t.Errorf("Run changed the read cache (-before +after):\n%s", diff)
	}
	// Transcript entries: boundary, summary, then the chain.
	b := r.Entries[0]
	if !b.IsCompactBoundary() || b.ParentUUID != "" || b.LogicalParentUUID != "leaf-1" {
		t.Fatalf("boundary = %+v", b)
	}
	line, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(line), `"parentUuid":null`) || !strings.Contains(string(line), `"trigger":"manual"`) {
		t.Errorf("boundary line %s", line)
	}
	if s := r.Entries[1]; !s.IsCompactSummary || s.Type != transcript.TypeUser || s.ParentUUID != b.UUID {
		t.Errorf("summary entry = %+v", s)
	}
	if len(r.Context) != len(r.Entries)-1 {
		t.Fatalf("%d context entries for %d transcript entries", len(r.Context), len(r.Entries))
	}
	for i, c := range r.Context {
		e := r.Entries[i+1]
		if c.UUID != e.UUID || (i > 0 && e.ParentUUID != r.Entries[i].UUID) {
			t.Errorf("entry %d: uuid %s/%s parent %s", i, c.UUID, e.UUID, e.ParentUUID)
		}
		m, _, err := e.DecodeMessage()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.Message, m); diff != "" {
			t.Errorf("entry %d message (-context +transcript):\n%s", i, diff)
		}
	}
	if _, err := conversation.NewHistory(r.Context); err != nil {
		t.Errorf("new context is not a valid history: %v", err)
	}
	// Files: the 5 most recent, each at most 5K tokens, all at most 50K; FileViews are what
	// the caller's cache should hold, clipped views marked partial.
	if len(r.Files) != conversation.PostCompactFiles || len(r.FileViews) != len(r.Files) {
		t.Errorf("re-injected %d files (%d views), want %d", len(r.Files), len(r.FileViews), conversation.PostCompactFiles)
	}
	if r.Files[0] != filepath.Join(dir, "fg.go") {
		t.Errorf("most recent file first: got %s", r.Files[0])
	}
	for i, v := range r.FileViews {
		clipped := v.Content != in.Reinject.Files[i+1].Content
		if v.Path != r.Files[i] || v.Partial != clipped || tokens.Estimate(v.Content) > conversation.PostCompactFileTokens+50 {
			t.Errorf("view %d: %s partial %v (clipped %v), %d tokens", i, v.Path, v.Partial, clipped, tokens.Estimate(v.Content))
		}
	}
	var all string
	for _, c := range r.Context[1:] {
		if !c.IsMeta {
			t.Errorf("attachment not meta: %q", c.Message.TextOf())
		}
		all += c.Message.TextOf() + "\n"
	}
	if got := conversation.ContextTokens(r.Context[1:]); got > conversation.PostCompactTokens+2000 {
		t.Errorf("attachments hold %d tokens", got)
	}
	if strings.Contains(all, "old rules") {
		t.Error("an injected view was re-injected as a file")
	}
	if !strings.Contains(all, "- bx1 [shell] killed: go test ./...") {
		t.Error("tasks not re-injected")
	}
	// Todos intact in the context.
	i := strings.Index(all, "<todos>")
	i += strings.Index(all[i:], "[")
	j := strings.Index(all[i:], "\n]")
	var got []work.Todo
	if err := json.Unmarshal([]byte(all[i:i+j+2]), &got); err != nil {
		t.Fatalf("todos in context: %v", err)
	}
	if diff := cmp.Diff(todos, got); diff != "" {
		t.Errorf("todos in context (-want +got):\n%s", diff)
	}
}

func TestSessionMemoryCompaction(t *testing.T) {
	_, p := newServer(t) // no scripted reply: a model call fails the test
	notes := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(notes, []byte("# Session notes\n当前任务: fix the parser\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	entries := chat(40, 600)
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000, Notes: notesAt(t, notes), Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodSessionMemory || r.Calls != 0 {
		t.Fatalf("method %s with %d calls", r.Method, r.Calls)
	}
	if !strings.Contains(r.Context[0].Message.TextOf(), "当前任务: fix the parser") {
		t.Error("notes are not the summary")
	}
	kept := r.Context[len(r.Context)-r.Kept:]
	tok, texts := conversation.ContextTokens(kept), 0
	for _, k := range kept {
		if hasText(k.Message) {
			texts++
		}
	}
	if tok < KeepMinTokens-3000 || tok > KeepMaxTokens || texts < KeepMinMessages {
		t.Errorf("kept %d messages, %d tokens, %d text messages", r.Kept, tok, texts)
	}
	if startsWithToolResult(kept[0].Message) || kept[0].Message.Role != conversation.User {
		t.Errorf("kept part starts with %+v", kept[0].Message)
	}
	// User messages in the kept part are not duplicated into the summary, the rest are carried.
	all := UserMessages(entries)
	if len(r.UserMessages)+countUser(kept) != len(all) {
		t.Errorf("carried %d + kept %d user messages, want %d", len(r.UserMessages), countUser(kept), len(all))
	}

	// No notes file: a model summary is needed and the missing model reply is an error.
	if _, err := Run(t.Context(), Input{History: entries[:8], Window: 200_000, Notes: notesAt(t, filepath.Join(t.TempDir(), "none.md"))}); err == nil {
		t.Error("no notes and no provider: want an error")
	}
}

func countUser(es []conversation.Entry) int { return len(UserMessages(es)) }

func TestBreakerStopsAutoButManualWorks(t *testing.T) {
	srv, p := newServer(t)
	entries := chat(3, 100)
	var b Breaker
	var notices []string
	for range MaxFailures {
		if !b.AllowAuto() {
			t.Fatal("auto stopped too early")
		}
		srv.Script(llmtest.StatusError(400, "invalid_request_error", "summary refused"))
		_, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, Trigger: Auto})
		if err == nil {
			t.Fatal("want an error")
		}
		if n := b.Record(Auto, err); n != "" {
			notices = append(notices, n)
		}
	}
	if b.AllowAuto() || len(notices) != 1 || !strings.Contains(notices[0], "/compact") {
		t.Fatalf("after %d failures: allow auto %v, notices %q", MaxFailures, b.AllowAuto(), notices)
	}
	if n := b.Record(Auto, errors.New("again")); n != "" {
		t.Errorf("a fourth failure repeats the notice: %q", n)
	}
	// Manual compaction still runs and succeeds; success turns auto back on.
	srv.Script(llmtest.Text("manual summary"))
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 30_000, Trigger: Manual, Instructions: "focus on the parser"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(promptOf(t, srv.Requests()[len(srv.Requests())-1]), "focus on the parser") {
		t.Error("manual instructions not in the request")
	}
	b.Record(Manual, nil)
	if !b.AllowAuto() || b.Failures() != 0 || r.Trigger != Manual {
		t.Errorf("after manual success: allow %v failures %d trigger %s", b.AllowAuto(), b.Failures(), r.Trigger)
	}
}

// notesAt reads the session notes at path for Input.Notes.
func notesAt(t *testing.T, path string) SessionNotes {
	t.Helper()
	n, err := ReadSessionNotes(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
