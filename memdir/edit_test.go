package memdir

import (
	"bytes"
	"context"
	"errors"
	"os"
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
