package compact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/tokens"
)

func TestNotesPath(t *testing.T) {
	got := NotesPath(filepath.Join("p", "proj", "0b9e.jsonl"))
	want := filepath.Join("p", "proj", "0b9e", "session-memory", "summary.md")
	if got != want {
		t.Errorf("NotesPath = %q, want %q", got, want)
	}
}

func TestNotesTracker(t *testing.T) {
	// step is one turn end: the context size, that turn's tool calls, what Due must say, and
	// whether the update is then started.
	type step struct {
		ctx, calls int
		due        bool
		start      bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"below 10K never", []step{{1_000, 0, false, false}, {5_000, 9, false, false}, {9_999, 0, false, false}}},
		{"first at 10K", []step{{9_999, 1, false, false}, {10_000, 1, true, false}, {30_000, 0, true, false}}},
		{"first does not need tool calls", []step{{12_000, 0, true, true}}},
		{"then +5K and 3 tool calls", []step{
			{10_000, 0, true, true},
			{14_999, 5, false, false}, // enough calls, not enough growth
			{15_000, 0, true, false},  // growth reached, a turn without tool calls
		}},
		{"growth without enough calls waits", []step{
			{10_000, 0, true, true},
			{16_000, 1, false, false},
			{17_000, 1, false, false}, // 2 calls so far
			{18_000, 1, true, true},   // the third call
		}},
		{"calls accumulate across turns before growth", []step{
			{10_000, 0, true, true},
			{11_000, 2, false, false},
			{12_000, 1, false, false},
			{15_000, 0, true, false},
			{15_001, 1, true, false}, // 4 calls accumulated, growth enough
		}},
		{"turn without tool calls triggers after +5K", []step{
			{20_000, 4, true, true},
			{25_000, 0, true, false},
		}},
		{"started resets calls and base", []step{
			{10_000, 7, true, true},
			{15_000, 1, false, false}, // growth, but the 7 calls were reset
			{15_000, 2, true, true},   // now 3
			{19_999, 3, false, false}, // base is 15K now
			{20_000, 0, true, true},
		}},
		{"shrunk context measures growth from the smaller size", []step{
			{50_000, 0, true, true},
			{12_000, 3, false, false}, // compacted
			{16_999, 0, false, false},
			{17_000, 0, true, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr NotesTracker
			for i, s := range tt.steps {
				if got := tr.Due(s.ctx, s.calls); got != s.due {
					t.Fatalf("step %d: Due(%d, %d) = %v, want %v", i, s.ctx, s.calls, got, s.due)
				}
				if s.start {
					tr.Started(s.ctx)
				}
			}
		})
	}
}

func TestNotesTemplate(t *testing.T) {
	if len(notesSections) != 8 {
		t.Fatalf("template has %d sections, want 8", len(notesSections))
	}
	for _, s := range notesSections {
		if !strings.HasPrefix(s.desc, "_") || !strings.HasSuffix(s.desc, "_") {
			t.Errorf("%s: description %q is not one italic line", s.heading, s.desc)
		}
	}
	if p := CheckNotes(NotesTemplate); len(p) != 0 {
		t.Errorf("the template fails its own check: %v", p)
	}
	if HasNotes(NotesTemplate) {
		t.Error("the bare template counts as notes")
	}
}

// fill puts body under the description of the section with heading h.
func fill(text, h, body string) string {
	for _, s := range notesSections {
		if s.heading == h {
			return strings.Replace(text, s.heading+"\n"+s.desc+"\n", s.heading+"\n"+s.desc+"\n"+body+"\n", 1)
		}
	}
	panic("no section " + h)
}

func TestCheckNotes(t *testing.T) {
	ok := fill(fill(NotesTemplate, "## Current state", "Fixing the parser; next: run go test ./parser."), "## Task", "用户要求：修复解析器，不要改动公共 API。")
	tests := []struct {
		name string
		text string
		want []string // substrings, one per expected problem, in order
	}{
		{"filled template", ok, nil},
		{"missing heading", strings.Replace(ok, "## Workflow\n", "", 1), []string{`heading "## Workflow" is missing`}},
		{"missing description", strings.Replace(ok, notesSections[4].desc, "_errors_", 1), []string{`section "## Errors and fixes" lost its description`}},
		{"missing title", strings.Replace(ok, "# Session notes\n", "", 1), []string{"title line"}},
		{"heading twice", ok + "\n## Task\nmore\n", []string{`heading "## Task" appears 2 times`}},
		{"unknown heading", ok + "\n## Random\nx\n", []string{`"## Random" is not a section`}},
		{"sub-heading fine", fill(ok, "## Learnings", "### Build\nuse make"), nil},
		{"heading inside a code fence is text", fill(ok, "## Workflow", "```\n## not a heading\n```"), nil},
		{"section over cap", fill(ok, "## Worklog", strings.Repeat("step done. ", 900)), []string{`section "## Worklog" is about`}},
		{"Chinese counted by tokens", fill(ok, "## Key results", strings.Repeat("结果很好", 550)), []string{`section "## Key results" is about 2200 tokens`}},
		{"Chinese under the cap", fill(ok, "## Key results", strings.Repeat("结果很好", 450)), nil},
		{"total over cap", func() string {
			s := ok
			for _, h := range []string{"## Files and functions", "## Workflow", "## Errors and fixes", "## Learnings", "## Key results", "## Worklog", "## Current state"} {
				s = fill(s, h, strings.Repeat("词", 1_900))
			}
			return s
		}(), []string{"over the total cap of 12000"}},
		{"invalid UTF-8", ok + "\xff", []string{"UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckNotes(tt.text)
			if len(got) != len(tt.want) {
				t.Fatalf("CheckNotes = %q, want %d problems like %q", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestCheckNotesSectionCapIsTokens(t *testing.T) {
	// 2,001 Chinese characters are 6,003 bytes but about 2,001 tokens: over the cap by one.
	body := strings.Repeat("中", NotesSectionTokens+1)
	if tokens.Estimate(body) != NotesSectionTokens+1 {
		t.Fatalf("estimate %d", tokens.Estimate(body))
	}
	if got := CheckNotes(fill(NotesTemplate, "## Task", body)); len(got) != 1 {
		t.Errorf("CheckNotes = %q, want one cap problem", got)
	}
	if got := CheckNotes(fill(NotesTemplate, "## Task", body[len("中"):])); len(got) != 0 {
		t.Errorf("at the cap: CheckNotes = %q, want none", got)
	}
}

func TestHasNotes(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"", false},
		{NotesTemplate, false},
		{"\n\n" + strings.ReplaceAll(NotesTemplate, "\n", "\n  \n") + "\n", false},
		{fill(NotesTemplate, "## Task", "修复解析器"), true},
		{"# Session notes\nfree text\n", true},
	}
	for i, tt := range tests {
		if got := HasNotes(tt.text); got != tt.want {
			t.Errorf("%d: HasNotes = %v, want %v", i, got, tt.want)
		}
	}
}

func TestNotesPrompt(t *testing.T) {
	path := filepath.Join("s", "session-memory", "summary.md")
	p := NotesPrompt(path, NotesTemplate)
	for _, want := range []string{path, "Edit", "## Current state", "2000", "12000", NotesTemplate[:40]} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "needs fixing") {
		t.Error("a clean template is reported as needing fixes")
	}
	long := fill(NotesTemplate, "## Worklog", strings.Repeat("步骤", 1_100))
	p = NotesPrompt(path, long)
	if !strings.Contains(p, "needs fixing") || !strings.Contains(p, `section "## Worklog" is about 2200 tokens`) {
		t.Errorf("over-cap section not named:\n%s", p)
	}
}

func TestSessionMemoryCompactionSkipsBareTemplate(t *testing.T) {
	srv, p := newServer(t)
	srv.Script(llmtest.Text("1. Primary request: model summary"))
	notes := filepath.Join(t.TempDir(), "summary.md")
	if err := os.WriteFile(notes, []byte(NotesTemplate), 0o600); err != nil {
		t.Fatal(err)
	}
	entries := chat(40, 600)
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000, Notes: notesAt(t, notes), Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodModel || r.Calls != 1 {
		t.Fatalf("bare template: method %s with %d calls, want a model summary", r.Method, r.Calls)
	}

	filled := fill(NotesTemplate, "## Current state", "正在修复解析器；下一步：运行测试。")
	if err := os.WriteFile(notes, []byte(filled), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err = Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000, Notes: notesAt(t, notes), Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodSessionMemory || r.Calls != 0 {
		t.Fatalf("filled notes: method %s with %d calls", r.Method, r.Calls)
	}
	if diff := cmp.Diff(strings.TrimSpace(filled), r.Summary); diff != "" {
		t.Errorf("summary is not the notes (-want +got):\n%s", diff)
	}
}

func FuzzCheckNotes(f *testing.F) {
	f.Add(NotesTemplate)
	f.Add(fill(NotesTemplate, "## Task", "修复\n```\n## x\n```"))
	f.Add("## Task\n~~~~\n## a\n~~~\n## b")
	f.Add("\xff# Session notes")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		probs := checkNotes(s)
		if len(probs) != len(CheckNotes(s)) {
			t.Fatal("CheckNotes and checkNotes disagree")
		}
		if len(worse(probs, probs)) != 0 {
			t.Fatal("a text is worse than itself")
		}
		_ = HasNotes(s)
		_ = NotesPrompt("summary.md", s)
	})
}

func TestKeepUncovered(t *testing.T) {
	h := chat(40, 600) // 4 entries a turn: user text, tool call, tool result, reply
	recent := keepRecent(h, defaultKeep)
	first := func(es []conversation.Entry) string { return es[0].UUID }
	tests := []struct {
		name      string
		covered   string
		wantFirst string // uuid the kept tail starts with; "" when not ok
	}{
		{"no mark", "", first(recent)},
		{"unknown mark", "not-in-history", first(recent)},
		{"mark inside the recent tail", h[len(h)-3].UUID, first(recent)},
		{"mark on the last message", h[len(h)-1].UUID, first(recent)},
		{"mark before the recent tail: extended", h[10*4+3].UUID, h[11*4].UUID},
		{"mark on a tool call: back to its user message", h[10*4+1].UUID, h[10*4].UUID},
		{"mark on a tool result: back to the turn's user message", h[10*4+2].UUID, h[10*4].UUID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := keepUncovered(h, recent, tt.covered, KeepMaxTokens)
			if !ok {
				t.Fatal("not ok")
			}
			if got[0].UUID != tt.wantFirst {
				t.Errorf("kept tail starts at %s, want %s", got[0].UUID, tt.wantFirst)
			}
			if got[len(got)-1].UUID != h[len(h)-1].UUID {
				t.Error("kept tail does not end with the last message")
			}
		})
	}
	long := chat(90, 600)
	if _, ok := keepUncovered(long, keepRecent(long, defaultKeep), long[3].UUID, KeepMaxTokens); ok {
		t.Errorf("%d uncovered tokens accepted (cap %d)", conversation.ContextTokens(long[4:]), KeepMaxTokens)
	}
}

func TestSessionMemoryCompactionKeepsUncovered(t *testing.T) {
	srv, p := newServer(t)
	n, path := openTestNotes(t)
	if _, err := n.Edit(notesSections[0].desc, notesSections[0].desc+"\n正在修复解析器", false); err != nil {
		t.Fatal(err)
	}
	entries := chat(40, 600)
	if err := n.MarkCovered(entries[5*4+3].UUID); err != nil {
		t.Fatal(err)
	}
	if got, err := NotesCovered(path); err != nil || got != entries[5*4+3].UUID {
		t.Fatalf("NotesCovered = %q, %v", got, err)
	}
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 200_000, Notes: notesAt(t, path), Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodSessionMemory {
		t.Fatalf("method %s", r.Method)
	}
	if want := len(entries) - 6*4; r.Kept != want {
		t.Errorf("kept %d messages, want every one after the mark: %d", r.Kept, want)
	}

	// Notes far behind: what they miss exceeds KeepMaxTokens, so the model summarises.
	long := chat(90, 600)
	if err := n.MarkCovered(long[3].UUID); err != nil {
		t.Fatal(err)
	}
	srv.Script(llmtest.Text("1. Primary request: model summary"))
	r, err = Run(t.Context(), Input{History: long, Provider: p, Window: 200_000, Notes: notesAt(t, path), Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if r.Method != MethodModel {
		t.Errorf("notes far behind: method %s, want a model summary", r.Method)
	}

	for _, bad := range []string{"", "a\nb", strings.Repeat("x", 201)} {
		if err := n.MarkCovered(bad); err == nil {
			t.Errorf("MarkCovered(%q) accepted", bad)
		}
	}
}

// defaultKeep are the keep bounds of a large window.
var defaultKeep = keepBounds{min: KeepMinTokens, max: KeepMaxTokens}
