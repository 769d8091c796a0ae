package mcpserver

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInstructionsTool(t *testing.T) {
	f := newFixture(t)
	f.write(t, "managed/CLAUDE.md", "Managed policy text.\n")
	f.write(t, "home/.strata/CLAUDE.md", "User: answer briefly.\n")
	f.write(t, "proj/CLAUDE.md", "项目说明：所有提交信息用中文。\n<!-- a note for humans -->\n")
	f.write(t, "proj/.claude/rules/go.md", "---\npaths: \"**/*.go\"\n---\nGo rule: run gofmt.\n")
	f.write(t, "proj/sub/CLAUDE.md", "Sub directory notes.\n")
	f.write(t, "proj/sub/main.go", "package main\n")
	cs := connect(t, f.server(t, nil), nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "tabs", Type: "feedback", Description: "tabs in Go", Body: "tabs\n"}, nil)

	paths := func(srcs []InstructionSource) []string {
		var out []string
		for _, s := range srcs {
			rel, err := filepath.Rel(f.dir, s.Path)
			if err != nil {
				rel = s.Path
			}
			out = append(out, filepath.ToSlash(rel)+":"+s.Layer)
		}
		return out
	}

	var dir InstructionsOutput
	mustCall(t, cs, "instructions", InstructionsInput{}, &dir)
	got := paths(dir.Sources)
	for _, want := range []string{"home/.strata/CLAUDE.md:user", "proj/CLAUDE.md:project"} {
		if !slices.Contains(got, want) {
			t.Errorf("instructions for the project dir: sources %v lack %s", got, want)
		}
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "go.md") || strings.Contains(s, "sub/") }) {
		t.Errorf("instructions for the project dir include conditional or nested files: %v", got)
	}
	if w := paths(dir.Withheld); !slices.Contains(w, "managed/CLAUDE.md:managed") {
		t.Errorf("withheld = %v, want the managed file (outside the project and STRATA_HOME)", w)
	}
	if strings.Contains(dir.Text, "Managed policy") {
		t.Errorf("text shows a file outside the server's scope")
	}
	if !strings.Contains(dir.Text, "所有提交信息用中文") || strings.Contains(dir.Text, "note for humans") || !strings.Contains(dir.Text, "[tabs](tabs.md)") {
		t.Errorf("text = %q: want the project file without comments, and the memory index", dir.Text)
	}
	if dir.Tokens <= 0 {
		t.Errorf("tokens = %d", dir.Tokens)
	}

	var file InstructionsOutput
	mustCall(t, cs, "instructions", InstructionsInput{Path: "sub/main.go"}, &file)
	got = paths(file.Sources)
	for _, want := range []string{"proj/.claude/rules/go.md:rule", "proj/sub/CLAUDE.md:nested"} {
		if !slices.Contains(got, want) {
			t.Errorf("instructions for sub/main.go: sources %v lack %s", got, want)
		}
	}
	if !strings.Contains(file.Text, "Go rule: run gofmt.") {
		t.Errorf("text for sub/main.go lacks the Go rule: %q", file.Text)
	}

	// An absolute path inside the project works like a relative one.
	var abs InstructionsOutput
	mustCall(t, cs, "instructions", InstructionsInput{Path: filepath.Join(f.project, "sub", "main.go")}, &abs)
	if diff := slices.Compare(paths(abs.Sources), got); diff != 0 {
		t.Errorf("absolute path gives %v, relative %v", paths(abs.Sources), got)
	}
}

func FuzzResolvePath(f *testing.F) {
	for _, s := range []string{"", "sub", "sub/main.go", "../x", "/etc", "escape/x", "a\x00b", "./sub/../sub", "部署/文件.md"} {
		f.Add(s)
	}
	fx := newFixture(f)
	fx.write(f, "proj/sub/main.go", "package main\n")
	if err := os.Symlink(fx.home, filepath.Join(fx.project, "escape")); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		p := &project{root: fx.project, dir: fx.project, base: fx.project}
		abs, _, err := p.resolvePath(arg)
		if err != nil {
			return
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			t.Fatalf("resolvePath(%q) = %q, which does not resolve: %v", arg, abs, err)
		}
		if !within(real, fx.project) {
			t.Fatalf("resolvePath(%q) = %q (really %q): outside the project", arg, abs, real)
		}
	})
}
