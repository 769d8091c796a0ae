//go:build unix

package instructions

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBadInput: each bad file yields a clear diagnostic with its path (and line where there is
// one), and the good file after it still loads.
func TestBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		setup func(t *testing.T, f *fixture)
		sev   Severity
		path  string // suffix of the diagnostic's path
		line  int    // -1: any
		msg   string
	}{
		{name: "binary", files: map[string]string{"repo/CLAUDE.md": "text\n\x00\x01\x02"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 2, msg: "binary file"},
		{name: "invalid utf-8", files: map[string]string{"repo/CLAUDE.md": "ok\nbad \xff\xfe here\n"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 2, msg: "not valid UTF-8"},
		{name: "malformed yaml", files: map[string]string{"repo/.claude/rules/r.md": "---\npaths: [a\n  b: c\n---\nbody\n"}, sev: SeverityError, path: "rules/r.md", line: -1, msg: "malformed YAML"},
		{name: "unclosed frontmatter", files: map[string]string{"repo/CLAUDE.md": "---\ntitle: x\nbody\n"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "never closed"},
		{name: "import cycle", files: map[string]string{"repo/CLAUDE.md": "@CLAUDE.md\n"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "import cycle"},
		{name: "import directory", files: map[string]string{"repo/CLAUDE.md": "@./sub\n", "repo/sub/x": "x"}, sev: SeverityInfo, path: "repo/CLAUDE.md", line: 1, msg: "is a directory"},
		{name: "dev zero", files: map[string]string{"repo/CLAUDE.md": "@/dev/zero\n"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "character device"},
		{name: "dev zero as file", files: map[string]string{"repo/CLAUDE.md": "->/dev/zero"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 0, msg: "not a regular file (a character device)"},
		{name: "non-text", files: map[string]string{"repo/CLAUDE.md": "@logo.png\n", "repo/logo.png": "\x89PNG"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "not a text file"},
		{name: "non-text content", files: map[string]string{"repo/CLAUDE.md": "@data.md\n", "repo/data.md": "\x00\x00"}, sev: SeverityError, path: "repo/data.md", line: 1, msg: "binary file"},
		{name: "ssh key", files: map[string]string{"repo/CLAUDE.md": "Use @~/.ssh/id_rsa\n", "home/.ssh/id_rsa": "-----BEGIN KEY-----\n"}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "refused"},
		{name: "symlink loop under rules", files: map[string]string{"repo/.claude/rules/loop": "->.", "repo/.claude/rules/ok0.md": "ok\n"}, sev: SeverityWarning, path: "rules/loop", line: 0, msg: "symlink loop"},
		{name: "rules dir is a loop", files: map[string]string{"repo/.claude/rules": "->rules"}, sev: SeverityError, path: ".claude/rules", line: 0, msg: "symlink loop"},
		{name: "large file", setup: func(t *testing.T, f *fixture) {
			big := bytes.Repeat([]byte("0123456789 abcdefghij 0123456789 abcdefghij 0123456789 abcdefghij 0123456789 abcd\n"), 10<<20/80)
			f.write(map[string]string{"repo/CLAUDE.md": string(big)})
		}, sev: SeverityWarning, path: "repo/CLAUDE.md", line: 0, msg: "only the first"},
		{name: "fifo", setup: func(t *testing.T, f *fixture) {
			if err := syscall.Mkfifo(filepath.Join(f.repo, "CLAUDE.md"), 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, sev: SeverityError, path: "repo/CLAUDE.md", line: 0, msg: "a FIFO"},
		{name: "fifo import", setup: func(t *testing.T, f *fixture) {
			f.write(map[string]string{"repo/CLAUDE.md": "@pipe.md\n"})
			if err := syscall.Mkfifo(filepath.Join(f.repo, "pipe.md"), 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
		}, sev: SeverityError, path: "repo/CLAUDE.md", line: 1, msg: "a FIFO"},
		{name: "unreadable rules dir", setup: func(t *testing.T, f *fixture) {
			if os.Geteuid() == 0 {
				t.Skip("running as root: permissions do not apply (the symlink-loop case covers the same path)")
			}
			f.write(map[string]string{"repo/.claude/rules/a.md": "a\n"})
			d := filepath.Join(f.repo, ".claude", "rules")
			if err := os.Chmod(d, 0); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(d, 0o700) })
		}, sev: SeverityError, path: ".claude/rules", line: 0, msg: "permission denied"},
		{name: "unreadable file", setup: func(t *testing.T, f *fixture) {
			if os.Geteuid() == 0 {
				t.Skip("running as root: permissions do not apply")
			}
			f.write(map[string]string{"repo/CLAUDE.md": "a\n"})
			if err := os.Chmod(filepath.Join(f.repo, "CLAUDE.md"), 0); err != nil {
				t.Fatal(err)
			}
		}, sev: SeverityError, path: "repo/CLAUDE.md", line: 0, msg: "unreadable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.files)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			f.write(map[string]string{"repo/CLAUDE.local.md": "still loaded\n"})
			s := f.load("repo")
			found := false
			for _, d := range s.Diagnostics() {
				if d.Severity == tt.sev && strings.HasSuffix(d.Path, tt.path) && strings.Contains(d.Message, tt.msg) && (tt.line < 0 || d.Line == tt.line) {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s at %s:%d containing %q; got %q", tt.sev, tt.path, tt.line, tt.msg, f.diags(s.Diagnostics()))
			}
			got := f.rel(s.Sources())
			if len(got) == 0 || got[len(got)-1] != "local:session_start:repo/CLAUDE.local.md" {
				t.Errorf("loading did not go on: %v", got)
			}
		})
	}
}

func TestLargeFileIsCapped(t *testing.T) {
	f := newFixture(t, nil)
	f.write(map[string]string{"repo/CLAUDE.md": strings.Repeat("line of text\n", 4000)})
	f.opts.MaxFileBytes = 1000
	s := f.load("repo")
	src := s.Sources()[len(s.Sources())-1]
	if !src.Truncated || src.Bytes > 1000 || !strings.HasSuffix(src.Text, "\n") {
		t.Errorf("capped piece: truncated %v bytes %d", src.Truncated, src.Bytes)
	}
	if !hasDiag(s.Diagnostics(), SeverityWarning, "repo/CLAUDE.md", "only the first") {
		t.Errorf("no cap warning: %q", f.diags(s.Diagnostics()))
	}
	f.opts.MaxFileBytes = 0
	s = f.load("repo")
	if !hasDiag(s.Diagnostics(), SeverityWarning, "repo/CLAUDE.md", "over the recommended 40000") {
		t.Errorf("no size warning: %q", f.diags(s.Diagnostics()))
	}
}

func TestCRLFAndBOM(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md":          "\ufeff# Title\r\nline\r\n<!-- note -->\r\n@a.md\r\n",
		"repo/a.md":               "a\r\n",
		"repo/.claude/rules/r.md": "\ufeff---\r\npaths: \"*.go\"\r\n---\r\ngo rule\r\n",
	})
	s := f.load("repo")
	srcs := s.Sources()
	var texts []string
	for _, src := range srcs {
		if strings.HasPrefix(src.Path, f.dir) {
			texts = append(texts, src.Text)
		}
	}
	if diff := cmp.Diff([]string{"# Title\nline\n@a.md\n", "a\n"}, texts); diff != "" {
		t.Errorf("(-want +got):\n%s\n%q", diff, f.diags(s.Diagnostics()))
	}
	if got := f.rel(s.Touch(context.Background(), "main.go")); len(got) != 1 {
		t.Errorf("CRLF frontmatter rule: %v", got)
	}
}

// TestSizeWarningCountsAsClaudeCode: the 40,000-character warning counts UTF-16 code units, as
// Claude Code does: 30,000 Korean characters (90,000 bytes) pass, 20,001 emoji (40,002 units,
// 20,001 runes) do not.
func TestSizeWarningCountsAsClaudeCode(t *testing.T) {
	for _, tt := range []struct {
		text string
		warn bool
	}{
		{strings.Repeat("한", 30000), false},
		{strings.Repeat("😀", 20001), true},
		{strings.Repeat("😀", 20000), false},
	} {
		f := newFixture(t, map[string]string{"repo/CLAUDE.md": tt.text})
		s := f.load("repo")
		if got := hasDiag(s.Diagnostics(), SeverityWarning, "repo/CLAUDE.md", "over the recommended 40000"); got != tt.warn {
			t.Errorf("%d bytes: warning %v, want %v: %q", len(tt.text), got, tt.warn, f.diags(s.Diagnostics()))
		}
	}
}
