package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/bench/synth"
	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/prompt"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

// installSession writes data as the transcript of session id in the fixture's project.
func (f *fixture) installSession(id string, data []byte) string {
	f.t.Helper()
	p := transcript.SessionPath(f.env, f.dir, id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

// callIDs returns the tool_use ids of msgs.
func callIDs(msgs []conversation.Message) []string {
	var out []string
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == conversation.ToolUse {
				out = append(out, b.ID)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// requestCallIDs returns the tool call ids of a recorded request in either wire format.
func requestCallIDs(req llmtest.Request) []string {
	var out []string
	msgs, _ := req.At("messages").([]any)
	for _, m := range msgs {
		content, _ := llmtest.At(m, "content").([]any)
		for _, b := range content {
			if llmtest.At(b, "type") == "tool_use" {
				out = append(out, llmtest.At(b, "id").(string))
			}
		}
		calls, _ := llmtest.At(m, "tool_calls").([]any)
		for _, c := range calls {
			out = append(out, llmtest.At(c, "id").(string))
		}
	}
	slices.Sort(out)
	return out
}

func chainIDs(s *transcript.Session) []string {
	var out []string
	for _, e := range s.Chain {
		out = append(out, e.UUID)
	}
	return out
}

// resumeOnce resumes session id, runs one turn against the refusing fake and closes the agent;
// it fails the test when the request was refused or lost a tool call of the live chain.
func resumeOnce(t *testing.T, f *fixture, id string, before *transcript.Session) {
	t.Helper()
	f.srv.Script(llmtest.Text("resumed; 继续。"))
	a := f.agent(Options{Resume: id})
	if _, err := a.Run(context.Background(), "continue where we left off", nil); err != nil {
		t.Fatalf("resumed turn: %v (refused: %v)", err, f.srv.Refused())
	}
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := f.srv.Refused(); len(r) > 0 {
		t.Fatalf("the API would refuse the resumed request: %v", r)
	}
	reqs := f.srv.Requests()
	live, _ := transcript.Messages(before.Live())
	if got, want := requestCallIDs(reqs[len(reqs)-1]), callIDs(live); !slices.Equal(got, want) {
		t.Errorf("request carries %d tool calls, the live chain %d", len(got), len(want))
	}
}

// TestResumeCorpusSessions: every session of the shared corpus resumes (a file with no
// conversation is refused, as Claude Code refuses it), on both wire
// formats, with a request the refusing fake accepts that keeps every call of the live chain;
// afterwards the old chain is intact under the new turn, which is the leaf.
func TestResumeCorpusSessions(t *testing.T) {
	dir := sharedtest.Dir(t, "corpus", "transcripts")
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in %s: %v", dir, err)
	}
	for _, path := range files {
		name := filepath.Base(path)
		if strings.Contains(name, "agent-") {
			continue // a subagent's transcript, not a session one resumes
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
			t.Run(string(format)+"/"+name, func(t *testing.T) {
				f := newFixture(t, format)
				id := "0199c0de-0000-7000-8000-" + strings.Repeat("0", 12)
				p := f.installSession(id, data)
				before, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(before.Chain, func(e *transcript.Entry) bool {
					return e.Type == transcript.TypeUser || e.Type == transcript.TypeAssistant
				}) {
					// No conversation: refused, as Claude Code refuses it.
					_, err := New(t.Context(), Options{Provider: f.prov, Resume: id, Open: workspace.Options{Cwd: f.dir, Env: f.env}})
					if !errors.Is(err, ErrResumeNotFound) {
						t.Errorf("resuming a file without a conversation: err = %v", err)
					}
					return
				}
				resumeOnce(t, f, id, before)
				after, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				old, now := chainIDs(before), chainIDs(after)
				if len(old) > 0 && (len(now) < len(old) || !slices.Equal(old, now[:len(old)])) {
					t.Errorf("the old chain (%d entries) is not the start of the new one (%d)", len(old), len(now))
				}
				if leaf := after.Leaf(); leaf == nil || leaf.Type != transcript.TypeAssistant || !strings.Contains(string(leaf.Message), "resumed") {
					t.Errorf("leaf after the turn = %+v, want the new reply", leaf)
				}
			})
		}
	}
}

// TestParallelSessionRoundTrip: a Claude Code 2.1 session with 3- and 5-way parallel calls,
// progress lines and a compact boundary in the middle is loaded, resumed and appended to; the
// file keeps every byte it had, the chain Claude Code rebuilds is the old one plus the new
// turn, the new reply is the leaf, and the title is unchanged.
func TestParallelSessionRoundTrip(t *testing.T) {
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			ps := synth.Parallel(synth.ParallelOptions{SessionID: "5e551010-0000-4000-8000-000000000021", CWD: f.dir,
				Calls: []int{3, 5, 5, 3}, Streamed: []bool{false, false, true}, BoundaryAfter: 2, Title: "并行 round trip"})
			id := "5e551010-0000-4000-8000-000000000021"
			p := f.installSession(id, ps.Data)
			before, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if before.Leaf().UUID != ps.Leaf || len(before.Problems) != 0 {
				t.Fatalf("loaded leaf %s (want %s), problems %v", before.Leaf().UUID, ps.Leaf, before.Problems)
			}
			resumeOnce(t, f, id, before)
			reqs := f.srv.Requests()
			// The compact summary and the first live prompt merge; then per live turn a prompt,
			// the merged reply, its results and the final reply; then the new prompt.
			if n := len(reqs[0].At("messages").([]any)); format == llmtest.Anthropic && n != 4*ps.LiveTurns+1 {
				t.Errorf("request has %d messages, want %d", n, 4*ps.LiveTurns+1)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, ps.Data) {
				t.Fatal("the resumed turn changed the file's existing lines")
			}
			after, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			old, now := chainIDs(before), chainIDs(after)
			if len(now) != len(old)+2 || !slices.Equal(old, now[:len(old)]) {
				t.Fatalf("chain after the turn: %d entries, want the %d before plus the prompt and the reply", len(now), len(old))
			}
			added, err := transcript.Read(t.Context(), bytes.NewReader(data[len(ps.Data):]), "tail")
			if err != nil {
				t.Fatal(err)
			}
			var newMsgs []string
			for _, e := range added.Entries {
				if e.Type == transcript.TypeUser || e.Type == transcript.TypeAssistant {
					newMsgs = append(newMsgs, e.UUID)
				}
			}
			if !slices.Equal(newMsgs, now[len(old):]) {
				t.Errorf("new entries %v, chain tail %v", newMsgs, now[len(old):])
			}
			if leaf := after.Leaf(); leaf.UUID != newMsgs[len(newMsgs)-1] {
				t.Errorf("leaf %s, want the new reply %s", leaf.UUID, newMsgs[len(newMsgs)-1])
			}
			if after.Meta.Title() != before.Meta.Title() || after.Meta.Title() != "并行 round trip" {
				t.Errorf("title %q, was %q", after.Meta.Title(), before.Meta.Title())
			}
		})
	}
}

// TestCrashAtEveryByte cuts a 2.1 session with parallel calls at every byte, as a crash
// would leave it, and resumes it. At every cut the request built from the resumed history
// passes the check and carries every call of the cut file's live chain. At every line end
// (with and without its newline, and mid-line for some) a real resume runs against the
// refusing fake and the chain of the cut file survives in the file that follows.
func TestCrashAtEveryByte(t *testing.T) {
	const id = "c0ffee00-0000-4000-8000-000000000001"
	ps := synth.Parallel(synth.ParallelOptions{SessionID: id, CWD: "/w", Calls: []int{3, 2}, Streamed: []bool{false, true}})
	data := ps.Data
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	// A cut inside a line leaves the file of the complete lines before it plus a fragment the
	// reader either skips (torn) or reads (a whole object without its newline). Cuts that
	// leave the same lines and the same fragment outcome load the same session, so the
	// request is built once per outcome; the reader itself decides each fragment.
	type state struct {
		lines int  // offset after the last complete line
		frag  bool // the fragment after it was read as an entry
	}
	seen := map[state]bool{}
	lineStart := 0
	for n := 0; n <= len(data); n++ {
		if n > 0 && data[n-1] == '\n' {
			lineStart = n
		}
		frag, err := transcript.Read(t.Context(), bytes.NewReader(data[lineStart:n]), "fragment")
		if err != nil {
			t.Fatal(err)
		}
		key := state{lineStart, len(frag.Entries) > 0}
		if seen[key] {
			continue
		}
		seen[key] = true
		f, err := transcript.Read(t.Context(), bytes.NewReader(data[:n]), "cut.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		sess := transcript.FromFile(f)
		chain, _, err := sess.History(now)
		if err != nil {
			t.Fatalf("cut at %d: %v", n, err)
		}
		chain = append(chain, conversation.Entry{UUID: "next", Message: conversation.NewText(conversation.User, "go on")})
		msgs := prompt.Messages(chain)
		if p := conversation.Check(msgs); len(p) != 0 {
			t.Fatalf("cut at %d: request breaks %v", n, p)
		}
		live, _ := transcript.Messages(sess.Live())
		want := callIDs(live)
		if got := callIDs(msgs); !slices.Equal(got, want) {
			t.Fatalf("cut at %d: request calls %v, live chain %v", n, got, want)
		}
	}
	if len(seen) < 2*bytes.Count(data, []byte{'\n'}) {
		t.Fatalf("only %d distinct cuts for %d lines", len(seen), bytes.Count(data, []byte{'\n'}))
	}
	var cuts []int
	for i, c := range data {
		if c == '\n' {
			cuts = append(cuts, i+1, i) // after the newline, before it
			if len(cuts)%10 == 0 {
				cuts = append(cuts, i-40) // inside the line
			}
		}
	}
	for _, n := range cuts {
		f := newFixture(t, llmtest.Anthropic)
		p := f.installSession(id, data[:n])
		before, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(before.Chain) == 0 {
			continue // nothing was synced yet
		}
		resumeOnce(t, f, id, before)
		after, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kept := map[string]bool{}
		for _, e := range after.Chain {
			kept[e.UUID] = true
		}
		for _, e := range before.Chain {
			if !kept[e.UUID] {
				t.Fatalf("cut at %d: line %d (%s) of the chain is lost after the resume", n, e.Line, e.Type)
			}
		}
		if len(after.Problems) != 0 {
			t.Fatalf("cut at %d: problems after the resume: %v", n, after.Problems)
		}
	}
}

// TestDamagedSessionRepairedOnce: a transcript damaged in the middle (a call whose result
// line was lost, a result for a call that is not there) resumes; every request is repaired
// the same way, so the prefix stays stable, and the repair is reported once.
func TestDamagedSessionRepairedOnce(t *testing.T) {
	const id = "0199da3a-0000-7000-8000-000000000001"
	lines := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"检查"},"uuid":"u1","timestamp":"2026-02-11T20:00:01.000Z"}`,
		`{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]},"uuid":"a1","timestamp":"2026-02-11T20:00:02.000Z"}`,
		`{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t0","content":"stale"},{"type":"text","text":"what happened?"}]},"uuid":"u2","timestamp":"2026-02-11T20:00:03.000Z"}`,
		`{"parentUuid":"u2","isSidechain":false,"type":"assistant","message":{"id":"m2","role":"assistant","content":[{"type":"text","text":"The build was interrupted."}]},"uuid":"a2","timestamp":"2026-02-11T20:00:04.000Z"}`,
	}
	f := newFixture(t, llmtest.Anthropic)
	f.installSession(id, []byte(strings.Join(lines, "\n")+"\n"))
	f.srv.Script(llmtest.Text("one"), llmtest.Text("two"))
	a := f.agent(Options{Resume: id})
	for _, prompt := range []string{"go on", "again"} {
		if _, err := a.Run(context.Background(), prompt, nil); err != nil {
			t.Fatalf("%s: %v (refused %v)", prompt, err, f.srv.Refused())
		}
	}
	var repairs []string
	for _, w := range a.Warnings() {
		if strings.Contains(w, "request repaired before sending") {
			repairs = append(repairs, w)
		}
	}
	if len(repairs) != 2 || !strings.Contains(strings.Join(repairs, "\n"), "t1 (Bash) has no tool_result") || !strings.Contains(strings.Join(repairs, "\n"), "tool_result for t0") {
		t.Errorf("repair warnings = %q, want the missing result of t1 and the stray t0, once each", repairs)
	}
	reqs := f.srv.Requests()
	if n := commonPrefix(canonical(reqs[0]), canonical(reqs[1])); n < len(canonical(reqs[0]))*9/10 {
		t.Errorf("the second request shares only %d of %d bytes with the first", n, len(canonical(reqs[0])))
	}
	if got := toolResults(llmtest.Request{JSON: map[string]any{"messages": reqs[0].At("messages").([]any)[:3]}}); len(got) != 1 || !strings.Contains(got[0], "interrupted") {
		t.Errorf("results sent for t1: %q", got)
	}
}
