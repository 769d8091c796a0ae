package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadSkipsBadLinesWithTheirNumbers(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}`,
		`not json at all`,
		``,
		`"a string"`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":12,"message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}`,
		`{"type":"brand-new-type","whatever":[1,2]}`,
		`{"type":"user","uuid":"u2","parentUuid":"a1","mess`,
	}, "\n")
	f, err := Read(t.Context(), strings.NewReader(in), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type prob struct {
		Line    int
		Skipped bool
		Reason  string
	}
	var got []prob
	for _, p := range f.Problems {
		got = append(got, prob{p.Line, p.Skipped, p.Reason})
	}
	want := []prob{
		{2, true, "not valid JSON"},
		{3, true, "empty line"},
		{4, true, "not a JSON object"},
		{5, false, "transcript: field timestamp: json: cannot unmarshal number into Go struct field wireEntry.timestamp of type string"},
		{7, true, "torn last line (no newline): not valid JSON"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
	if f.Lines != 7 || len(f.Entries) != 3 {
		t.Fatalf("lines %d entries %d, want 7 and 3", f.Lines, len(f.Entries))
	}
	if f.Entries[2].Type != "brand-new-type" {
		t.Fatalf("unknown type lost: %+v", f.Entries[2])
	}
}

// line builds a conversation entry's JSON.
func line(typ, uuid, parent string, extra ...string) string {
	p := "null"
	if parent != "" {
		p = fmt.Sprintf("%q", parent)
	}
	s := fmt.Sprintf(`{"type":%q,"uuid":%q,"parentUuid":%s`, typ, uuid, p)
	for _, e := range extra {
		s += "," + e
	}
	if typ == TypeUser || typ == TypeAssistant {
		role := typ
		s += fmt.Sprintf(`,"message":{"role":%q,"content":[{"type":"text","text":"%s text"}]}`, role, uuid)
	}
	return s + "}"
}

func chainUUIDs(s *Session) []string {
	var out []string
	for _, e := range s.Chain {
		out = append(out, e.UUID)
	}
	return out
}

func TestBuildChain(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		want      []string
		boundary  int
		wantProbs int
	}{
		{"linear", []string{line("user", "u1", ""), line("assistant", "a1", "u1"), line("user", "u2", "a1")}, []string{"u1", "a1", "u2"}, -1, 0},
		{"branch: newest leaf wins", []string{line("user", "u1", ""), line("assistant", "a1", "u1"), line("assistant", "a2", "u1")}, []string{"u1", "a2"}, -1, 0},
		{"two roots", []string{line("user", "u1", ""), line("assistant", "a1", "u1"), line("user", "r2", ""), line("assistant", "b1", "r2")}, []string{"r2", "b1"}, -1, 0},
		{"dangling parent", []string{line("user", "u1", "gone"), line("assistant", "a1", "u1")}, []string{"u1", "a1"}, -1, 1},
		{"cycle", []string{line("user", "u1", "a1"), line("assistant", "a1", "u1")}, []string{"u1", "a1"}, -1, 1},
		{"self cycle", []string{line("user", "u1", "u1")}, []string{"u1"}, -1, 1},
		{"inline sidechain skipped as leaf", []string{line("user", "u1", ""), line("assistant", "a1", "u1"), line("user", "s1", "", `"isSidechain":true`), line("assistant", "s2", "s1", `"isSidechain":true`)}, []string{"u1", "a1"}, -1, 0},
		{"subagent file: all sidechain", []string{line("user", "s1", "", `"isSidechain":true`), line("assistant", "s2", "s1", `"isSidechain":true`)}, []string{"s1", "s2"}, -1, 0},
		{"compact boundary followed", []string{
			line("user", "u1", ""), line("assistant", "a1", "u1"),
			line("system", "cb", "", `"subtype":"compact_boundary","logicalParentUuid":"a1"`),
			line("user", "sum", "cb", `"isCompactSummary":true`), line("assistant", "a2", "sum"),
		}, []string{"u1", "a1", "cb", "sum", "a2"}, 2, 0},
		{"through progress entries", []string{line("user", "u1", ""), line("progress", "p1", "u1"), line("assistant", "a1", "p1"), line("progress", "p2", "a1")}, []string{"u1", "a1"}, -1, 0},
		{"metadata and snapshots ignored", []string{line("user", "u1", ""), `{"type":"summary","summary":"s","leafUuid":"u1"}`, `{"type":"file-history-snapshot","messageId":"u1","snapshot":{}}`}, []string{"u1"}, -1, 0},
		{"empty", nil, nil, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Read(t.Context(), strings.NewReader(strings.Join(tt.lines, "\n")), "x.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			s := FromFile(f)
			if diff := cmp.Diff(tt.want, chainUUIDs(s)); diff != "" {
				t.Errorf("chain (-want +got):\n%s", diff)
			}
			if s.Boundary != tt.boundary {
				t.Errorf("boundary = %d, want %d", s.Boundary, tt.boundary)
			}
			if len(s.Problems) != tt.wantProbs {
				t.Errorf("problems = %v, want %d", s.Problems, tt.wantProbs)
			}
		})
	}
}

// writeLarge writes a transcript with a compact boundary after about pre bytes and post bytes
// of conversation after it, and returns the path.
func writeLarge(t testing.TB, dir string, pre, post int) string {
	t.Helper()
	var b bytes.Buffer
	parent := ""
	n := 0
	add := func(typ string, extra ...string) {
		n++
		id := fmt.Sprintf("%s%d", typ[:1], n)
		b.WriteString(line(typ, id, parent, extra...))
		b.WriteByte('\n')
		parent = id
	}
	b.WriteString(`{"type":"custom-title","customTitle":"old title"}` + "\n")
	pad := `"pad":"` + strings.Repeat("x", 2000) + `"`
	for b.Len() < pre {
		add(TypeUser, pad)
		add(TypeAssistant, pad)
	}
	b.WriteString(`{"type":"ai-title","aiTitle":"the title"}` + "\n")
	last := parent
	parent = ""
	add(TypeSystem, `"subtype":"compact_boundary","logicalParentUuid":"`+last+`"`)
	add(TypeUser, `"isCompactSummary":true`)
	mark := b.Len()
	for b.Len() < mark+post {
		add(TypeAssistant, pad)
		add(TypeUser, pad)
	}
	p := filepath.Join(dir, "big.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLargeFileStartsAtLastBoundary(t *testing.T) {
	path := writeLarge(t, t.TempDir(), 200_000, 20_000)
	full, err := Load(t.Context(), path, ReadOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	part, err := Load(t.Context(), path, ReadOptions{LargeFile: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if part.File.Start == 0 || part.File.Start >= part.File.Size {
		t.Fatalf("Start = %d of %d; want the boundary", part.File.Start, part.File.Size)
	}
	first := part.File.Entries[0]
	if !first.IsCompactBoundary() {
		t.Fatalf("first entry loaded = %s", first.Raw)
	}
	// Line numbers stay those of the whole file.
	var fullLine int
	for _, e := range full.File.Entries {
		if e.IsCompactBoundary() {
			fullLine = e.Line
		}
	}
	if first.Line != fullLine || part.File.StartLine != fullLine {
		t.Fatalf("boundary line = %d (start line %d), want %d", first.Line, part.File.StartLine, fullLine)
	}
	if diff := cmp.Diff(chainUUIDs(full)[full.Boundary:], chainUUIDs(part)); diff != "" {
		t.Fatalf("partial chain differs from the live part of the full one (-full +part):\n%s", diff)
	}
	if part.Boundary != 0 || full.Boundary <= 0 {
		t.Fatalf("boundary index: part %d, full %d", part.Boundary, full.Boundary)
	}
	if part.Meta.Title() != "the title" {
		t.Fatalf("title from before the boundary = %q", part.Meta.Title())
	}
	// Below the threshold the whole file is read.
	small, err := Load(t.Context(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if small.File.Start != 0 || len(small.Chain) != len(full.Chain) {
		t.Fatalf("file under LargeFile not read whole: start %d", small.File.Start)
	}
}

func TestBoundaryMarkInsideMessageIsNotABoundary(t *testing.T) {
	var b strings.Builder
	b.WriteString(line("user", "u1", "") + "\n")
	b.WriteString(`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"X","input":{"subtype":"compact_boundary"}}]}}` + "\n")
	b.WriteString(strings.Repeat(line("user", "u9", "a1", `"pad":"`+strings.Repeat("y", 500)+`"`)+"\n", 20))
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(b.String()), 0o600)
	f, err := ReadFile(t.Context(), p, ReadOptions{LargeFile: 100})
	if err != nil {
		t.Fatal(err)
	}
	if f.Start != 0 {
		t.Fatalf("Start = %d, want 0 (no real boundary)", f.Start)
	}
}

func TestEntryRoundTrip(t *testing.T) {
	lines := []string{
		`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.9","gitBranch":"main","type":"user","message":{"role":"user","content":"你好 <b>&"},"uuid":"u1","timestamp":"2026-01-05T03:45:58.436Z","futureField":{"a":[1,2,3]}}`,
		`{"type":"queue-operation","operation":"enqueue","timestamp":"2026-01-05T03:45:58.436Z","sessionId":"s","content":"do it"}`,
		`{"type":"something-new","payload":{"deep":{"x":null}},"n":1.5e3}`,
		`{"type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":"a","compactMetadata":{"trigger":"auto","preTokens":167094},"uuid":"cb"}`,
	}
	for _, l := range lines {
		e, err := ParseEntry([]byte(l))
		if err != nil {
			t.Fatalf("ParseEntry(%s): %v", l, err)
		}
		out, err := encodeLine(e)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		json.Unmarshal([]byte(l), &want)
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("re-encoded line is not JSON: %v\n%s", err, out)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		if !bytes.Equal(bytes.TrimSuffix(out, []byte{'\n'}), []byte(l)) {
			t.Errorf("key order or bytes changed:\nin  %s\nout %s", l, out)
		}
	}
	// A typed field set on a read entry overrides the raw value, unknown keys stay.
	e, _ := ParseEntry([]byte(lines[0]))
	e.GitBranch = "feature"
	out, _ := encodeLine(e)
	if !bytes.Contains(out, []byte(`"gitBranch":"feature"`)) || !bytes.Contains(out, []byte(`"futureField"`)) {
		t.Fatalf("override lost: %s", out)
	}
}

func TestJournalCopiesAFileExactly(t *testing.T) {
	dir := corpusDirOrEmpty(t)
	if dir == "" {
		return
	}
	src := filepath.Join(dir, "marot__spotter__258c7280.jsonl")
	f, err := ReadFile(t.Context(), src, ReadOptions{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "copy.jsonl")
	j, err := Open(t.Context(), dst, Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Entries {
		if err := j.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(src)
	got, _ := os.ReadFile(dst)
	if !bytes.Equal(want, got) {
		t.Fatalf("copy differs from the original (%d vs %d bytes)", len(got), len(want))
	}
}

func corpusDirOrEmpty(t *testing.T) string {
	var d string
	t.Run("corpus", func(t *testing.T) { d = corpusDir(t) })
	return d
}

func FuzzParseEntry(f *testing.F) {
	f.Add([]byte(`{"type":"user","uuid":"u","parentUuid":null,"message":{"role":"user","content":"x"}}`))
	f.Add([]byte(`{"type":"x","a":{"b":[1,"2",null]},"type":"y"}`))
	f.Add([]byte(`{"timestamp":"bad","uuid":7}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"message":"\u00e9\ud800"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseEntry(bytes.Clone(data))
		if e == nil {
			return
		}
		_ = err
		out, err := encodeLine(e)
		if err != nil {
			t.Fatalf("encode of a parsed entry failed: %v", err)
		}
		if bytes.Count(out, []byte{'\n'}) != 1 {
			t.Fatalf("record is not one line: %q", out)
		}
		e2, err2 := ParseEntry(bytes.TrimSuffix(out, []byte{'\n'}))
		if e2 == nil {
			t.Fatalf("re-parse failed: %v\n%s", err2, out)
		}
		if e.Type != e2.Type || e.UUID != e2.UUID || e.ParentUUID != e2.ParentUUID || !bytes.Equal(compact(e.Message), compact(e2.Message)) {
			t.Fatalf("typed view changed:\n%s\n%s", data, out)
		}
	})
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(line("user", "u1", "") + "\n" + line("assistant", "a1", "u1") + "\n"))
	f.Add([]byte("{\n}\n\n{\"type\":\"user\",\"uuid\":\"x\",\"parentUuid\":\"x\"}"))
	f.Add([]byte(line("system", "cb", "", `"subtype":"compact_boundary","logicalParentUuid":"cb"`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(t.Context(), bytes.NewReader(data), "fuzz.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if len(file.Entries)+file.Skipped() != file.Lines {
			t.Fatalf("%d entries + %d skipped != %d lines", len(file.Entries), file.Skipped(), file.Lines)
		}
		s := FromFile(file)
		seen := map[*Entry]bool{}
		for _, e := range s.Chain {
			if seen[e] {
				t.Fatal("entry twice in the chain")
			}
			seen[e] = true
		}
		Messages(s.Chain)
		s.LastTodos()
		s.ToolUses()
	})
}

func TestProblemLines(t *testing.T) {
	var ps []Problem
	for i := 1; i <= 12; i++ {
		ps = append(ps, Problem{Line: i, Reason: "not valid JSON", Skipped: true})
	}
	got := ProblemLines(ps, 10)
	if len(got) != 11 || got[0] != "line 1 skipped: not valid JSON" || got[9] != "line 10 skipped: not valid JSON" ||
		got[10] != "and 2 more problems (strata sessions show --json lists them all)" {
		t.Fatalf("ProblemLines(12 problems, 10) = %q", got)
	}
	if got := ProblemLines(ps[:10], 10); len(got) != 10 || got[9] != "line 10 skipped: not valid JSON" {
		t.Fatalf("ProblemLines(10 problems, 10) = %q", got)
	}
	if got := ProblemLines(nil, 10); len(got) != 0 {
		t.Fatalf("ProblemLines(nil) = %q", got)
	}
}

// A transcript saved by an editor that adds a byte order mark keeps its first line, in loading
// and in search (listing reads it already).
func TestByteOrderMark(t *testing.T) {
	in := "\ufeff" + `{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"登录 bug"}}` + "\r\n" +
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","message":{"role":"assistant","content":[{"type":"text","text":"yo"}]}}` + "\n"
	f, err := Read(t.Context(), strings.NewReader(in), "t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Problems) != 0 || len(f.Entries) != 2 {
		t.Fatalf("Read: %d entries, problems %v; want 2 entries, none", len(f.Entries), f.Problems)
	}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	hits, err := Search(t.Context(), []string{path}, "登录", SearchOptions{})
	if err != nil || len(hits) != 1 || hits[0].Line != 1 {
		t.Fatalf("Search = %+v, %v; want one hit on line 1", hits, err)
	}
}
