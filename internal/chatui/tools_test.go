package chatui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestToolLine(t *testing.T) {
	for _, tt := range []struct{ name, input, want string }{
		{"Read", `{"file_path":"/src/acme/handler.go"}`, "Read handler.go"},
		{"Read", `{"file_path":"/etc/hosts"}`, "Read /etc/hosts"},
		{"Bash", `{"command":"go test ./..."}`, "Bash go test ./..."},
		{"Bash", `{"command":"echo a\n  echo b"}`, "Bash echo a … (+1 line)"},
		{"Grep", `{"pattern":"TODO","path":"/src/acme/internal"}`, "Grep TODO in internal"},
		{"Glob", `{"pattern":"**/*.go"}`, "Glob **/*.go"},
		{"TodoWrite", `{"todos":[{},{}]}`, "TodoWrite 2 items"},
		{"Bash", `{"command":"printf '\u001b]0;x\u0007'"}`, `Bash printf ''`}, // the title escape removed,
		{"Odd", `not json`, "Odd"},
	} {
		if got := plain(ToolLine(tt.name, []byte(tt.input), "/src/acme", 80)); got != tt.want {
			t.Errorf("ToolLine(%s, %s) = %q, want %q", tt.name, tt.input, got, tt.want)
		}
	}
	if got := plain(ToolLine("Bash", []byte(`{"command":"`+strings.Repeat("x", 100)+`"}`), "", 20)); got != "Bash xxxxxxxxxxxxxx…" {
		t.Errorf("long line cut to %q", got)
	}
}

func TestPreview(t *testing.T) {
	if got := plain(Preview("", false, 80)); got != "  ⎿  (no output)" {
		t.Errorf("empty = %q", got)
	}
	var b strings.Builder
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	want := "  ⎿  line 1\n     line 2\n     line 3\n     line 4\n     … +6 lines (ctrl+o to expand)"
	if got := plain(Preview(b.String(), false, 80)); got != want {
		t.Errorf("Preview = %q, want %q", got, want)
	}
	if got := Preview("boom", true, 80); !strings.Contains(got, "\x1b[31mboom") {
		t.Errorf("an error is not red: %q", got)
	}
}

func TestDiff(t *testing.T) {
	old := "a\nb\nc\nd\ne\nf\ng\nh\n"
	new := "a\nb\nc\nD\ne\nf\ng\nh\ni\n"
	want := []string{
		"@@ -2,7 +2,8 @@",
		" b", " c", "-d", "+D", " e", " f", " g", " h", "+i",
	}
	if d := cmp.Diff(want, Diff(old, new)); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
	// Far-apart changes make two hunks.
	old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	new = "one\n2\n3\n4\n5\n6\n7\n8\n9\nten\n"
	want = []string{"@@ -1,3 +1,3 @@", "-1", "+one", " 2", " 3", "@@ -8,3 +8,3 @@", " 8", " 9", "-10", "+ten"}
	if d := cmp.Diff(want, Diff(old, new)); d != "" {
		t.Errorf("Diff (-want +got):\n%s", d)
	}
	if got := Diff("same\n", "same\n"); len(got) != 0 {
		t.Errorf("no change gave %q", got)
	}
	want = []string{"@@ -0,0 +1,2 @@", "+new", "+file"}
	if d := cmp.Diff(want, Diff("", "new\nfile\n")); d != "" {
		t.Errorf("new file (-want +got):\n%s", d)
	}
}

func TestEditDiffColours(t *testing.T) {
	got := EditDiff("Write", []byte(`{"file_path":"x","content":"a\nB\n"}`), "a\nb\n", 0, 80)
	if !strings.Contains(got, "\x1b[31m-b") || !strings.Contains(got, "\x1b[32m+B") {
		t.Errorf("Write diff: %q", got)
	}
	if EditDiff("Bash", []byte(`{"command":"x"}`), "", 0, 80) != "" {
		t.Error("a Bash call got a diff")
	}
}

func TestEditDiffCountsFileLines(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "c.go"), []byte("package c\n\nconst A = 1\nconst Port = 9090\n"), 0o600)
	in := []byte(`{"file_path":"c.go","old_string":"const Port = 8080","new_string":"const Port = 9090"}`)
	line := editLine(dir, in)
	if line != 4 {
		t.Fatalf("editLine = %d, want 4", line)
	}
	if got := plain(EditDiff("Edit", in, "", line, 80)); !strings.Contains(got, "@@ -4,1 +4,1 @@") {
		t.Errorf("Edit diff:\n%s", got)
	}
	if editLine(dir, []byte(`{"file_path":"c.go","new_string":"const"}`)) != 0 {
		t.Error("a text found twice got a line")
	}
}

func TestReadBeforeOfWrite(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("old\n"), 0o600)
	if got := readBefore(dir, []byte(`{"file_path":"f.txt","content":"new"}`)); got != "old\n" {
		t.Errorf("readBefore = %q", got)
	}
	if got := readBefore(dir, []byte(`{"file_path":"missing.txt"}`)); got != "" {
		t.Errorf("readBefore of a new file = %q", got)
	}
}

func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history.jsonl")
	h := History{Path: path, Project: "/p"}
	now := time.UnixMilli(1700000000000)
	for _, p := range []string{"one", "two", "two", "多行\n输入"} {
		if err := h.Add(Prompt{Text: p}, now); err != nil {
			t.Fatal(err)
		}
	}
	History{Path: path, Project: "/q"}.Add(Prompt{Text: "other project"}, now)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("{not json\n{\"display\":\"torn")
	f.Close()
	got, err := h.Load()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Prompt{{Text: "one"}, {Text: "two"}, {Text: "多行\n输入"}}, got); d != "" {
		t.Errorf("Load (-want +got):\n%s", d)
	}
	b, _ := os.ReadFile(path)
	if first, _, _ := strings.Cut(string(b), "\n"); first != `{"display":"one","timestamp":1700000000000,"project":"/p"}` {
		t.Errorf("line format: %s", first)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestHistoryReadsOnlyTheTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	h := History{Path: path, Project: "/p"}
	var b strings.Builder
	for i := range 20000 { // about 1.2 MB
		fmt.Fprintf(&b, "{\"display\":\"prompt %05d\",\"timestamp\":1,\"project\":\"/p\"}\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	got, err := h.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != historyMax || got[len(got)-1].Text != "prompt 19999" || got[0].Text != fmt.Sprintf("prompt %05d", 20000-historyMax) {
		t.Errorf("Load gave %d prompts, %q … %q", len(got), got[0], got[len(got)-1])
	}
}

func TestHistoryNotRegular(t *testing.T) {
	dir := t.TempDir()
	if _, err := (History{Path: dir, Project: "/p"}).Load(); err == nil {
		t.Error("a directory as history file gave no error")
	}
}
