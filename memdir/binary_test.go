package memdir

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAddRefusesNUL: a text with a NUL byte, which the reader would take for binary and
// skip, is refused before anything is written, with the line it is on; the memory it would
// have replaced is kept.
func TestAddRefusesNUL(t *testing.T) {
	for _, body := range []string{"a\x00b", "line one\nline two\x00", strings.Repeat("x", 10000) + "\x00"} {
		s := newTestStore(t, Options{})
		mustAdd(t, s, "existing", "keep me")
		before := dirState(t, s.Dir())
		_, err := s.Add(t.Context(), Input{Name: "existing", Type: TypeUser, Body: body})
		if !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "line ") {
			t.Fatalf("err = %v, want ErrBinary with a line", err)
		}
		if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
			t.Errorf("the dir changed (-before +after):\n%s", diff)
		}
		if m, err := s.Get(t.Context(), "existing"); err != nil || !strings.Contains(m.Body, "body of existing") {
			t.Errorf("Get after the refused write = %q, %v", m.Body, err)
		}
	}
}
