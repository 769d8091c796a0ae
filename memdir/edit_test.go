package memdir

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEdit(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t, Options{})
	res, err := s.Add(ctx, Input{Name: "tabs", Description: "tabs not spaces", Type: TypeFeedback, Body: "Use tabs."})
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(res.Path)
	if err != nil {
		t.Fatal(err)
	}
	base := ContentHash(old)
	good := bytes.Replace(old, []byte("tabs not spaces"), []byte("indent with tabs"), 1)
	good = bytes.Replace(good, []byte("Use tabs."), []byte("Use tabs, width 4."), 1)

	// Only a memory: not the index, a log, the archive, the inbox or a team store's .git.
	for _, f := range []string{"MEMORY.md", ".archive/JOURNAL", ".git/config", ".inbox/tabs.md", "logs/2026/01/01.md"} {
		p := filepath.Join(s.Dir(), f)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if _, err := os.Stat(p); err != nil {
			os.WriteFile(p, []byte("x\n"), 0o600)
		}
		before, _ := os.ReadFile(p)
		if _, err := s.Edit(ctx, f, good, ContentHash(before)); err == nil || !strings.Contains(err.Error(), "not a memory") {
			t.Errorf("Edit %s: %v", f, err)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
			t.Errorf("Edit %s wrote it", f)
		}
	}

	for _, tc := range []struct {
		name string
		data []byte
		base string
		want string
	}{
		{"lost description", bytes.Replace(old, []byte("description: tabs not spaces\n"), nil, 1), base, "lost its description"},
		{"broken frontmatter", []byte("---\nname: [\n---\nbody\n"), base, "frontmatter"},
		{"secret", append(bytes.Clone(old), []byte("key AKIAIOSFODNN7EXAMPLE\n")...), base, "secret"},
		{"stale base", good, ContentHash([]byte("other")), ErrChanged.Error()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Edit(ctx, res.File, tc.data, tc.base)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Edit: err = %v, want one saying %q", err, tc.want)
			}
			if now, _ := os.ReadFile(res.Path); !bytes.Equal(now, old) {
				t.Fatalf("a refused edit changed the file:\n%s", now)
			}
		})
	}
	var ee *EditError
	if _, err := s.Edit(ctx, res.File, []byte("---\nname: [\n---\n"), base); !errors.As(err, &ee) {
		t.Fatalf("a bad header: err = %v, want *EditError", err)
	}

	changed, err := s.Edit(ctx, res.File, good, base)
	if err != nil || !changed {
		t.Fatalf("Edit = %v, %v; want the index line changed", changed, err)
	}
	if now, _ := os.ReadFile(res.Path); !bytes.Equal(now, good) {
		t.Fatalf("file = %q, want the edit byte for byte", now)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if !strings.Contains(string(idx), "indent with tabs") {
		t.Fatalf("index not brought in step:\n%s", idx)
	}
}
