//go:build unix

package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// A memory dir is written by other processes (and can sit in a cloned repository when a
// setting points there): a FIFO or a huge sparse file in place of MEMORY.md or the watch file
// is an error naming the file at once, never a hang or an exhausted memory.
func TestNonRegularFilesRefused(t *testing.T) {
	for _, kind := range []string{"fifo", "sparse"} {
		t.Run(kind, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{Now: func() time.Time { return testNow }})
			if err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, "first", "a memory before the index was replaced")
			for _, name := range []string{IndexFile, WatchFile} {
				p := filepath.Join(s.Dir(), name)
				os.Remove(p)
				if kind == "fifo" {
					if err := syscall.Mkfifo(p, 0o600); err != nil {
						t.Skip(err)
					}
				} else if err := os.WriteFile(p, nil, 0o600); err != nil || os.Truncate(p, 100<<30) != nil {
					t.Skip("no sparse file")
				}
			}
			want := map[string]error{"fifo": fsutil.ErrNotRegular, "sparse": fsutil.ErrTooLarge}[kind]
			index := filepath.Join(s.Dir(), IndexFile)
			ctx := t.Context()
			for name, call := range map[string]func() error{
				"LoadIndex": func() error { _, err := s.LoadIndex(ctx); return err },
				"Add": func() error {
					_, err := s.Add(ctx, Input{Name: "second", Description: "d", Type: TypeUser})
					return err
				},
				"ReadIndex": func() error { _, err := s.ReadIndex(ctx); return err },
			} {
				err := inTime(t, call)
				// Add checks the index's type before it reads it (ErrUnsafePath) — either refusal.
				if !(errors.Is(err, want) || name == "Add" && errors.Is(err, ErrUnsafePath)) || !strings.Contains(err.Error(), index) {
					t.Errorf("%s with MEMORY.md a %s = %v, want %v naming %s", name, kind, err, want, index)
				}
			}
			if _, _, err := inTime2(t, func() (Watch, bool, error) { return ReadWatch(s.Dir()) }); !errors.Is(err, want) {
				t.Errorf("ReadWatch with a %s = %v, want %v", kind, err, want)
			}
		})
	}
}

func inTime(t *testing.T, fn func() error) error {
	t.Helper()
	_, _, err := inTime2(t, func() (struct{}, bool, error) { return struct{}{}, false, fn() })
	return err
}

func inTime2[T any](t *testing.T, fn func() (T, bool, error)) (T, bool, error) {
	t.Helper()
	type res struct {
		v   T
		ok  bool
		err error
	}
	done := make(chan res, 1)
	go func() { v, ok, err := fn(); done <- res{v, ok, err} }()
	select {
	case r := <-done:
		return r.v, r.ok, r.err
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s")
		var zero T
		return zero, false, nil
	}
}

// The archive log is appended to and read only as a regular file inside the store: a FIFO
// there is an error at once (it held the store lock forever), a symlink out is neither
// written through nor read through.
func TestArchiveLogNotRegular(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, kind := range []string{"fifo", "link"} {
		t.Run(kind, func(t *testing.T) {
			s, err := Open(filepath.Join(t.TempDir(), "memory"), Options{Now: func() time.Time { return now }})
			if err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, "first", "a memory to forget")
			log := filepath.Join(s.Dir(), ArchiveLogFile)
			os.MkdirAll(filepath.Dir(log), 0o700)
			outside := filepath.Join(t.TempDir(), "outside.txt")
			os.WriteFile(outside, []byte("theirs\n"), 0o600)
			if kind == "fifo" {
				if err := syscall.Mkfifo(log, 0o600); err != nil {
					t.Skip(err)
				}
			} else if err := os.Symlink(outside, log); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := s.Archive(t.Context(), "first", ArchiveRecord{Time: now, Action: ActionArchive})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil {
					t.Errorf("Archive with the log a %s: no error", kind)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("Archive with the log a %s hangs", kind)
			}
			if b, _ := os.ReadFile(outside); string(b) != "theirs\n" {
				t.Errorf("the file outside was written: %q", b)
			}
			// Nothing is lost: the archive was undone, the memory is where it was.
			if _, err := os.Stat(filepath.Join(s.Dir(), "first.md")); err != nil {
				t.Errorf("the memory is gone after the refused archive: %v", err)
			}
			if idx, _ := os.ReadFile(filepath.Join(s.Dir(), IndexFile)); !strings.Contains(string(idx), "first.md") {
				t.Errorf("the index lost the memory:\n%s", idx)
			}
			if _, err := ReadArchiveLog(s.Dir()); err == nil || errors.Is(err, os.ErrNotExist) {
				t.Errorf("ReadArchiveLog with the log a %s: %v", kind, err)
			}
		})
	}
}
