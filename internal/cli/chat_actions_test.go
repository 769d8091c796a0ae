package cli

import (
	"github.com/strata-mem/strata/usage"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/permission"
)

func TestMentions(t *testing.T) {
	got := Mentions("see @a.go and @docs/设计.md, also me@example.com and @a.go again; @dir\\ name/x.txt @")
	want := []string{"a.go", "docs/设计.md", "dir name/x.txt"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCompletePaths(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"src/main.go", "src/맵.go", "sample.txt", "设计/说明.md", ".git/config", ".env", "build/out.bin", "node_modules/x/y.js"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o700)
		os.WriteFile(filepath.Join(root, p), []byte("x"), 0o600)
	}
	ignored := func(abs string, isDir bool) bool {
		rel, _ := filepath.Rel(root, abs)
		return isDir && (rel == "build" || rel == "node_modules")
	}
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"", []string{"sample.txt", "src/", "设计/"}},
		{"s", []string{"sample.txt", "src/"}},
		{"src/", []string{"src/main.go", "src/맵.go"}},
		{"src/맵", []string{"src/맵.go"}},
		{"设", []string{"设计/"}},
		{"设计/", []string{"设计/说明.md"}},
		{".", []string{".env"}},
		{"b", nil},
		{"../", nil},
	} {
		if diff := cmp.Diff(c.want, CompletePaths(root, c.prefix, ignored, 0)); diff != "" {
			t.Errorf("CompletePaths(%q) (-want +got):\n%s", c.prefix, diff)
		}
	}
	if got := CompletePaths(root, "", ignored, 2); len(got) != 2 {
		t.Errorf("max 2: %q", got)
	}
}

func TestMemoryName(t *testing.T) {
	for in, want := range map[string]string{
		"we deploy on Tuesdays, never Fridays\nbecause": "we deploy on Tuesdays, never Fridays",
		"数据库迁移放在 db/migrations 目录":                      "数据库迁移放在 db migrations 目录",
		"../../etc/passwd": "etc passwd",
		"...":              "note",
		"one two three four five six seven eight": "one two three four five six",
	} {
		if got := memoryName(in); got != want {
			t.Errorf("memoryName(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := ParseMemoryType("F"); !ok {
		t.Error("F is not feedback")
	}
	if typ, ok := ParseMemoryType("reference"); !ok || typ != "reference" {
		t.Error("reference not read")
	}
	if _, ok := ParseMemoryType("x"); ok {
		t.Error("x read as a type")
	}
}

func TestParsePermissionAnswer(t *testing.T) {
	withRule := permission.Request{Always: "Bash(echo:*)", AlwaysSaved: true}
	for _, c := range []struct {
		r    permission.Request
		in   string
		want permission.Answer
		ok   bool
	}{
		{withRule, "y\n", permission.Answer{Allow: true}, true},
		{withRule, "YES", permission.Answer{Allow: true}, true},
		{withRule, "n", permission.Answer{}, true},
		{withRule, "n use rg instead ", permission.Answer{Feedback: "use rg instead"}, true},
		{withRule, "a", permission.Answer{Allow: true, Always: true}, true},
		{permission.Request{}, "a", permission.Answer{}, false},
		{withRule, "maybe", permission.Answer{}, false},
	} {
		got, ok := ParsePermissionAnswer(c.r, c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParsePermissionAnswer(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	if s := PermissionChoices(withRule); !strings.Contains(s, "don't ask again for Bash(echo:*) in this project") {
		t.Errorf("choices %q do not show the rule", s)
	}
	if s := PermissionChoices(permission.Request{Always: "Edit"}); !strings.Contains(s, "allow all edits for the rest of this session") {
		t.Errorf("edit choices %q", s)
	}
}

func TestInitPromptAndEditor(t *testing.T) {
	root := t.TempDir()
	p, exists := InitPrompt(root)
	if exists || !strings.Contains(p, filepath.Join(root, "CLAUDE.md")) || strings.Contains(p, "exists already") {
		t.Errorf("fresh project: exists=%v, prompt %q", exists, p)
	}
	os.WriteFile(filepath.Join(root, "CLAUDE.md"), []byte("x"), 0o600)
	if p, exists := InitPrompt(root); !exists || !strings.Contains(p, "exists already") {
		t.Errorf("existing CLAUDE.md: exists=%v", exists)
	}
	env := func(vars map[string]string) config.Env {
		return config.Env{Getenv: func(k string) string { return vars[k] }}
	}
	for _, c := range []struct {
		vars map[string]string
		want []string
	}{
		{map[string]string{"VISUAL": "code -w", "EDITOR": "nano"}, []string{"code", "-w", "/f"}},
		{map[string]string{"EDITOR": "nano"}, []string{"nano", "/f"}},
		{nil, []string{"vi", "/f"}},
	} {
		if got := EditorCommand(env(c.vars), "/f").Args; !cmp.Equal(got, c.want) {
			t.Errorf("EditorCommand(%v) = %q, want %q", c.vars, got, c.want)
		}
	}
}

func TestCostLines(t *testing.T) {
	r := usage.Report{
		Lines: []usage.Line{
			{Kind: usage.Main, Calls: 2, Priced: true, Cost: 0.0123},
			{Kind: usage.Extraction, Calls: 1, Priced: false},
		},
		Total: usage.Line{Kind: "total", Calls: 3, Priced: false, Cost: 0.0123},
	}
	lines := CostLines(r)
	if len(lines) != 4 || !strings.Contains(lines[1], "main") || !strings.Contains(lines[1], "$0.0123") ||
		!strings.Contains(lines[2], "extraction") || !strings.Contains(lines[2], "cost unknown") ||
		!strings.Contains(lines[3], "total") || !strings.Contains(lines[3], "$0.0123 + unpriced calls") {
		t.Errorf("CostLines:\n%s", strings.Join(lines, "\n"))
	}
	if got := CostLines(usage.Report{}); len(got) != 2 || !strings.Contains(got[1], "no model call yet") {
		t.Errorf("empty report: %q", got)
	}
}
