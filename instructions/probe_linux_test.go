//go:build linux

package instructions

import (
	"bytes"
	"strings"
	"testing"
)

// TestSpell: paths near the open working directory are spelled relative to it, others whole.
func TestSpell(t *testing.T) {
	const fd = 7
	tests := []struct {
		base    base
		dir     string
		name    string
		wantFD  int
		want    string
		wantBad bool
	}{
		{base{fd, "/a/b/c/d"}, "/a/b/c/d", "CLAUDE.md", fd, "CLAUDE.md", false},
		{base{fd, "/a/b/c/d"}, "/a/b/c/d/e/f", ".claude/CLAUDE.md", fd, "e/f/.claude/CLAUDE.md", false},
		{base{fd, "/a/b/c/d"}, "/a/b/c", "AGENTS.md", fd, "../AGENTS.md", false},
		{base{fd, "/a/b/c/d/e"}, "/a/b/c", ".git", fd, "../../.git", false},
		{base{fd, "/a/b/c/d"}, "/a/b", ".git", atFDCWD, "/a/b/.git", false}, // as many elements either way
		{base{fd, "/a/b/c/d"}, "/a", "CLAUDE.md", atFDCWD, "/a/CLAUDE.md", false},
		{base{fd, "/a/b/c/d"}, "/", "CLAUDE.md", atFDCWD, "/CLAUDE.md", false},
		{base{fd, "/a/b/c/d"}, "/a/bc", "x.md", atFDCWD, "/a/bc/x.md", false},
		{base{fd, "/a/b/c/d"}, "/a/b/c/dd", "x.md", atFDCWD, "/a/b/c/dd/x.md", false},
		{base{-1, "/a/b/c/d"}, "/a/b/c/d", "CLAUDE.md", atFDCWD, "/a/b/c/d/CLAUDE.md", false},
		{base{fd, "/"}, "/", "CLAUDE.md", fd, "CLAUDE.md", false},
		{base{fd, "/"}, "/q", "CLAUDE.md", fd, "q/CLAUDE.md", false},
		{base{fd, "/a"}, "/x", "CLAUDE.md", atFDCWD, "/x/CLAUDE.md", false},
		{base{fd, "/a"}, "/x/" + strings.Repeat("y", 600), "CLAUDE.md", 0, "", true},
		{base{fd, "/a"}, "/a", "bad\x00name", 0, "", true},
	}
	for _, tt := range tests {
		var p pathBuf
		gotFD, ok := tt.base.spell(&p, tt.dir, tt.name)
		if !ok != tt.wantBad {
			t.Errorf("spell(%v, %q, %q) ok = %v", tt.base, tt.dir, tt.name, ok)
			continue
		}
		if !ok {
			continue
		}
		got := string(p[:bytes.IndexByte(p[:], 0)])
		if gotFD != tt.wantFD || got != tt.want {
			t.Errorf("spell(%v, %q, %q) = %d %q, want %d %q", tt.base, tt.dir, tt.name, gotFD, got, tt.wantFD, tt.want)
		}
	}
}
