package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A memory dir swapped for a symlink while a store is open is refused, reads and writes alike,
// with an error that says so; the other store is not touched. A store opened through a symlink
// keeps working while the link leads where it did.
func TestSwappedDirIsRefused(t *testing.T) {
	base := t.TempDir()
	s := newTestStore(t, Options{})
	mustAdd(t, s, "mine", "in my store")
	other := filepath.Join(base, "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, other)
	moved := s.Dir() + ".moved"
	if err := os.Rename(s.Dir(), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, s.Dir()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(t.Context(), Input{Name: "x", Type: TypeProject}); !errors.Is(err, ErrSwapped) {
		t.Errorf("Add through a swapped dir: %v; want ErrSwapped", err)
	}
	if _, _, err := s.List(t.Context()); !errors.Is(err, ErrSwapped) {
		t.Errorf("List through a swapped dir: %v; want ErrSwapped", err)
	}
	if len(dirState(t, other)) != len(before) {
		t.Error("the other store was written")
	}
	// Put back, the store works again.
	os.Remove(s.Dir())
	if err := os.Rename(moved, s.Dir()); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, "again", "works")

	link := filepath.Join(base, "link")
	if err := os.Symlink(s.Dir(), link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := viaLink.List(t.Context()); err != nil {
		t.Errorf("a store opened through a symlink: %v", err)
	}
	os.Remove(link)
	os.Symlink(other, link)
	if _, _, err := viaLink.List(t.Context()); !errors.Is(err, ErrSwapped) {
		t.Errorf("a symlink pointed elsewhere: %v; want ErrSwapped", err)
	}
}
