package memdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/fsutil"
)

// readOnlyFS fails every file creation like a read-only mount does.
type readOnlyFS struct{ fsutil.FS }

func (r readOnlyFS) CreateTemp(dir, pattern string) (fsutil.File, error) {
	return nil, &fs.PathError{Op: "open", Path: dir, Err: syscall.EROFS}
}

func (r readOnlyFS) Rename(o, n string) error {
	return &os.LinkError{Op: "rename", Old: o, New: n, Err: syscall.EROFS}
}

// TestWriteFailuresLeaveOldStateIntact injects a failure into every step of every write a
// change makes (the topic file is the first write, the index the second) and checks that the
// memory dir is byte for byte as before, with no temp file left behind.
func TestWriteFailuresLeaveOldStateIntact(t *testing.T) {
	faults := map[string]func(n int) *fsutil.Faulty{
		"create":  func(n int) *fsutil.Faulty { return &fsutil.Faulty{FailCreate: n} },
		"write":   func(n int) *fsutil.Faulty { return &fsutil.Faulty{FailWrite: n} },
		"sync":    func(n int) *fsutil.Faulty { return &fsutil.Faulty{FailSync: n} },
		"rename":  func(n int) *fsutil.Faulty { return &fsutil.Faulty{FailRename: n} },
		"syncdir": func(n int) *fsutil.Faulty { return &fsutil.Faulty{FailSyncDir: n} },
	}
	ops := map[string]func(t *testing.T, s *Store) error{
		"add new": func(t *testing.T, s *Store) error {
			_, err := s.Add(t.Context(), Input{Name: "新的 memory", Type: TypeUser, Description: "new", Body: "fresh"})
			return err
		},
		"update": func(t *testing.T, s *Store) error {
			_, err := s.Add(t.Context(), Input{Name: "old", Type: TypeFeedback, Description: "changed", Body: "changed body"})
			return err
		},
		"forget": func(t *testing.T, s *Store) error {
			_, err := s.Forget(t.Context(), "old", false)
			return err
		},
		"forget archive": func(t *testing.T, s *Store) error {
			_, err := s.Forget(t.Context(), "old", true)
			return err
		},
		"reindex": func(t *testing.T, s *Store) error {
			writeRaw(t, s.Dir(), "other.md", "---\nname: other\ndescription: edited by hand\ntype: user\n---\nx\n")
			_, err := s.Reindex(t.Context(), "other.md")
			return err
		},
	}
	for opName, op := range ops {
		for faultName, mk := range faults {
			for n := 1; n <= 3; n++ {
				t.Run(opName+"/"+faultName+"/"+string(rune('0'+n)), func(t *testing.T) {
					s := newTestStore(t, Options{})
					mustAdd(t, s, "old", "the old one")
					mustAdd(t, s, "other", "another")
					if opName == "reindex" {
						writeRaw(t, s.Dir(), "other.md", "---\nname: other\ndescription: edited by hand\ntype: user\n---\nx\n")
					}
					before := dirState(t, s.Dir())
					f := mk(n)
					s.opts.FS = f
					err := op(t, s)
					s.opts.FS = fsutil.OS
					if err == nil {
						// The op made fewer writes than n: nothing was injected.
						return
					}
					if !errors.Is(err, fsutil.ErrInjected) {
						t.Fatalf("err = %v, want the injected failure", err)
					}
					if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
						t.Errorf("state changed after a failed %s (-before +after):\n%s", opName, diff)
					}
					if opName == "reindex" {
						s.Reindex(t.Context(), "other.md") // let the consistency check see a clean index
					}
				})
			}
		}
	}
}

// noSyncFS skips fsync, for benchmarks that measure the store rather than the disk.
type noSyncFS struct{ fsutil.FS }

func (n noSyncFS) CreateTemp(dir, pattern string) (fsutil.File, error) {
	f, err := n.FS.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (noSyncFS) SyncDir(string) error { return nil }

type noSyncFile struct{ fsutil.File }

func (noSyncFile) Sync() error { return nil }
