package instructions

import (
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/internal/fastio"
)

// TestSpell: paths near the open working directory are spelled relative to it, others whole.
func TestSpell(t *testing.T) {
	open := new(fastio.Dir) // stands for the open working directory; spell only compares it
	tests := []struct {
		base   base
		dir    string
		name   string
		wantAt *fastio.Dir
		want   string
	}{
		{base{open, "/a/b/c/d"}, "/a/b/c/d", "CLAUDE.md", open, "CLAUDE.md"},
		{base{open, "/a/b/c/d"}, "/a/b/c/d/e/f", ".claude/CLAUDE.md", open, "e/f/.claude/CLAUDE.md"},
		{base{open, "/a/b/c/d"}, "/a/b/c", "AGENTS.md", open, "../AGENTS.md"},
		{base{open, "/a/b/c/d/e"}, "/a/b/c", ".git", open, "../../.git"},
		{base{open, "/a/b/c/d"}, "/a/b", ".git", nil, "/a/b/.git"}, // as many elements either way
		{base{open, "/a/b/c/d"}, "/a", "CLAUDE.md", nil, "/a/CLAUDE.md"},
		{base{open, "/a/b/c/d"}, "/", "CLAUDE.md", nil, "/CLAUDE.md"},
		{base{open, "/a/b/c/d"}, "/a/bc", "x.md", nil, "/a/bc/x.md"},
		{base{open, "/a/b/c/d"}, "/a/b/c/dd", "x.md", nil, "/a/b/c/dd/x.md"},
		{base{nil, "/a/b/c/d"}, "/a/b/c/d", "CLAUDE.md", nil, "/a/b/c/d/CLAUDE.md"},
		{base{open, "/"}, "/", "CLAUDE.md", open, "CLAUDE.md"},
		{base{open, "/"}, "/q", "CLAUDE.md", open, "q/CLAUDE.md"},
		{base{open, "/a"}, "/x", "CLAUDE.md", nil, "/x/CLAUDE.md"},
	}
	for _, tt := range tests {
		if filepath.Separator != '/' && tt.wantAt == nil {
			continue // spelled whole with the platform's separator
		}
		var p fastio.PathBuf
		at := tt.base.spell(&p, tt.dir, tt.name)
		got := p.String()
		if at != tt.wantAt || got != tt.want {
			t.Errorf("spell(%q, %q) from %q = %v %q, want %v %q", tt.dir, tt.name, tt.base.dir, at != nil, got, tt.wantAt != nil, tt.want)
		}
	}
}
