package memdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
