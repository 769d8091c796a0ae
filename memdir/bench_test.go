package memdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/sharedtest"
)

// benchStore fills a store with n memories of about 1 KB, English and Chinese.
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "memory"), Options{MaxIndexLines: n + 10, MaxIndexBytes: n * 200})
	if err != nil {
		b.Fatal(err)
	}
	s.opts.FS = noSyncFS{s.opts.FS} // the benchmark measures the store, not the disk's fsync
	body := strings.Repeat("Deploys go through the staging cluster first. 部署先经过预发布集群。\n", 14)
	for i := range n {
		if _, err := s.Add(context.Background(), Input{Name: fmt.Sprintf("memory %d", i), Type: TypeProject, Description: fmt.Sprintf("fact number %d", i), Body: body}); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkList reads and parses every file of a 1,000-memory store.
func BenchmarkList(b *testing.B) {
	s := benchStore(b, 1000)
	for b.Loop() {
		if _, _, err := s.List(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChangesNone is the warm-index refresh of recall when nothing changed.
func BenchmarkChangesNone(b *testing.B) {
	s := benchStore(b, 1000)
	_, _, snap, _ := s.Changes(context.Background(), Snapshot{})
	for b.Loop() {
		changed, _, _, err := s.Changes(context.Background(), snap)
		if err != nil || len(changed) != 0 {
			b.Fatal(err, len(changed))
		}
	}
}

// BenchmarkAdd adds to a 1,000-memory store (fsync disabled: it measures the store's work).
func BenchmarkAdd(b *testing.B) {
	s := benchStore(b, 1000)
	s.opts.MaxIndexLines = 1 << 30
	s.opts.MaxIndexBytes = 1 << 30
	i := 0
	for b.Loop() {
		i++
		if _, err := s.Add(context.Background(), Input{Name: fmt.Sprintf("extra %d", i), Type: TypeUser, Description: "d", Body: "b"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseIndex parses a real Claude Code MEMORY.md (the shared corpus), and an index of
// 10,000 lines that opens a comment and a fence on every other line without closing them (the
// worst case for the look-ahead that decides whether a block is closed).
func BenchmarkParseIndex(b *testing.B) {
	real, err := os.ReadFile(filepath.Join(sharedtest.Dir(b, "corpus", "memory", "4444J99__portfolio", ".claude", "memory"), IndexFile))
	if err != nil {
		b.Fatal(err)
	}
	var worst strings.Builder
	for i := range 2500 {
		fmt.Fprintf(&worst, "<!-- open %d\n- [m%d](m%d.md) — hook\n```go\n- [n%d](n%d.md)\n", i, i, i, i, i)
	}
	for _, bc := range []struct {
		name string
		data []byte
		want int
	}{{"corpus", real, 150}, {"unclosed-10k", []byte(worst.String()), 5000}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				if n := len(ParseIndex(bc.data)); n < bc.want {
					b.Fatalf("%d entries, want at least %d", n, bc.want)
				}
			}
		})
	}
}

// BenchmarkAddScale is one add of a new name to stores of 1,000 and 10,000 memories
// (STRATA_BENCH_LARGE=1 adds 100,000), written by hand so that the index lists only the
// first 150, beside the yardstick of one atomic file write of the same size:
// go test ./memdir -run '^$' -bench AddScale. fsync is disabled for both.
func BenchmarkAddScale(b *testing.B) {
	sizes := []int{1000, 10000}
	if os.Getenv("STRATA_BENCH_LARGE") != "" {
		sizes = append(sizes, 100000)
	}
	for _, n := range sizes {
		s, err := Open(filepath.Join(b.TempDir(), "memory"), Options{FS: noSyncFS{fsutil.OS}})
		if err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
			b.Fatal(err)
		}
		var index strings.Builder
		for i := range n {
			text := fmt.Sprintf("---\nname: memory %d\ndescription: fact number %d\ntype: project\n---\nDeploys go through the staging cluster first, step %d.\n", i, i, i)
			if err := os.WriteFile(filepath.Join(s.Dir(), fmt.Sprintf("memory-%d.md", i)), []byte(text), 0o600); err != nil {
				b.Fatal(err)
			}
			if i < 150 {
				index.WriteString(FormatIndexLine(fmt.Sprintf("memory %d", i), fmt.Sprintf("memory-%d.md", i), "fact") + "\n")
			}
		}
		if err := os.WriteFile(s.IndexPath(), []byte(index.String()), 0o600); err != nil {
			b.Fatal(err)
		}
		s.opts.MaxIndexLines, s.opts.MaxIndexBytes = 1<<30, 1<<30
		if _, err := s.Add(context.Background(), Input{Name: "warm", Type: TypeUser, Description: "d", Body: "b"}); err != nil {
			b.Fatal(err) // builds the name map
		}
		b.Run(fmt.Sprintf("write/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if err := fsutil.WriteFileFS(s.opts.FS, filepath.Join(s.Dir(), ".yardstick.md"), []byte("---\nname: x\n---\nb\n"), 0o600); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("add/n=%d", n), func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if _, err := s.Add(context.Background(), Input{Name: fmt.Sprintf("extra %d", i), Type: TypeUser, Description: "d", Body: "b"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
