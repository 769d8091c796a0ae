//go:build unix

package instructions

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIdentity: a file read without fstat is still recognised when another name reaches it (a
// hard link or a symlink), and two files that merely hold the same text both load.
func TestIdentity(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string // hard links: new name -> existing file
		want  []string
		diags []string
	}{
		{
			name:  "hard link",
			files: map[string]string{"repo/CLAUDE.md": "shared text\n"},
			links: map[string]string{"repo/AGENTS.md": "repo/CLAUDE.md"},
			want:  []string{"project:session_start:repo/CLAUDE.md"},
			diags: []string{"info repo/AGENTS.md:0 same file as repo/CLAUDE.md, already loaded; not repeated"},
		},
		{
			name:  "symlink",
			files: map[string]string{"repo/CLAUDE.md": "shared text\n", "repo/AGENTS.md": "->CLAUDE.md"},
			want:  []string{"project:session_start:repo/CLAUDE.md"},
			diags: []string{"info repo/AGENTS.md:0 same file as repo/CLAUDE.md, already loaded; not repeated"},
		},
		{
			name:  "copies",
			files: map[string]string{"repo/CLAUDE.md": "shared text\n", "repo/AGENTS.md": "shared text\n"},
			want:  []string{"project:session_start:repo/CLAUDE.md", "project:session_start:repo/AGENTS.md"},
		},
		{
			name:  "hard link closes an import cycle",
			files: map[string]string{"repo/CLAUDE.md": "top @b.md\n", "repo/b.md": "b @a.md\n"},
			links: map[string]string{"repo/a.md": "repo/CLAUDE.md"},
			want:  []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/b.md"},
			diags: []string{"error repo/b.md:1 @a.md: import cycle: repo/CLAUDE.md → repo/b.md → repo/a.md; not loaded again"},
		},
		{
			name:  "imported, then found by name",
			files: map[string]string{"repo/CLAUDE.md": "@AGENTS.md\n", "repo/AGENTS.md": "agents\n"},
			want:  []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/AGENTS.md"},
			diags: []string{"info repo/AGENTS.md:0 already loaded through an @import; not repeated"},
		},
		{
			name:  "copies imported",
			files: map[string]string{"repo/CLAUDE.md": "@x/frag.md @y/frag.md\n", "repo/x/frag.md": "same\n", "repo/y/frag.md": "same\n"},
			want:  []string{"project:session_start:repo/CLAUDE.md", "import:include:repo/x/frag.md", "import:include:repo/y/frag.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, tt.files)
			for name, target := range tt.links {
				if err := os.Link(filepath.Join(f.dir, target), filepath.Join(f.dir, name)); err != nil {
					t.Skip("no hard links here:", err)
				}
			}
			f.opts.FileNames = []string{"CLAUDE.md", "AGENTS.md"} // both read: AGENTS.md is no fallback here
			s := f.load("repo")
			if diff := cmp.Diff(tt.want, f.rel(s.Sources())); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.diags, f.diags(s.Diagnostics())); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadSizes: files around the read buffer's size and the size cap are read whole or cut
// exactly where the cap says, whichever way they were read.
func TestReadSizes(t *testing.T) {
	line := strings.Repeat("x", 63) + "\n" // 64 bytes
	tests := []struct {
		name      string
		size      int
		max       int64
		truncated bool
		bytes     int // of the loaded text
	}{
		{name: "empty", size: 0, bytes: 0},
		{name: "one line", size: 64, bytes: 64},
		{name: "buffer minus a line", size: readBufSize - 64, bytes: readBufSize - 64},
		{name: "buffer", size: readBufSize, bytes: readBufSize},
		{name: "buffer plus a line", size: readBufSize + 64, bytes: readBufSize + 64},
		{name: "twice the buffer", size: 2 * readBufSize, bytes: 2 * readBufSize},
		{name: "at the cap", size: 640, max: 640, bytes: 640},
		{name: "a line over the cap", size: 704, max: 640, truncated: true, bytes: 640},
		{name: "over a cap above the buffer", size: readBufSize + 640, max: readBufSize + 64, truncated: true, bytes: readBufSize + 64},
		{name: "largest cap", size: 640, max: math.MaxInt64, bytes: 640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"repo/CLAUDE.md": strings.Repeat(line, tt.size/64)})
			f.opts.MaxFileBytes = tt.max
			s := f.load("repo")
			srcs := s.Sources()
			if tt.size == 0 {
				if len(srcs) != 0 {
					t.Fatalf("an empty file is no piece (Claude Code lists none): %v", f.rel(srcs))
				}
				return
			}
			if len(srcs) != 1 {
				t.Fatalf("got %d pieces, want 1: %v", len(srcs), f.rel(srcs))
			}
			got := srcs[0]
			if got.Truncated != tt.truncated || got.Bytes != tt.bytes || got.Text != strings.Repeat(line, tt.bytes/64) {
				t.Errorf("truncated %v, %d bytes; want %v, %d", got.Truncated, got.Bytes, tt.truncated, tt.bytes)
			}
			wantWarn := tt.truncated
			if gotWarn := hasDiag(s.Diagnostics(), SeverityWarning, "repo/CLAUDE.md", "size cap"); gotWarn != wantWarn {
				t.Errorf("size cap warning: %v, want %v", gotWarn, wantWarn)
			}
		})
	}
}
