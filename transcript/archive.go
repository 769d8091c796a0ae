package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
)

// ArchiveOptions control Archive.
type ArchiveOptions struct {
	// OlderThan selects transcripts not written to for this long; it must be positive.
	OlderThan time.Duration
	// To is the archive root; transcripts keep their project directory under it. Default:
	// DefaultArchiveDir of the projects directory.
	To string
	// Apply moves the files; without it Archive only reports what it would move.
	Apply bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// FS is where renames happen; nil means OS.
	FS FS
}

// Move is one transcript (with its session directory of subagents and notes, if any) that
// Archive moved or would move.
type Move struct {
	SessionID string    `json:"sessionId"`
	From      string    `json:"from"`
	To        string    `json:"to"`
	Size      int64     `json:"size"`
	Modified  time.Time `json:"modified"`
	// Moved is true once the files are at To; Err says why an eligible transcript stayed.
	Moved bool   `json:"moved"`
	Err   string `json:"error,omitempty"`
}

// DefaultArchiveDir is where archived transcripts go by default: <home>/archive/projects,
// next to (not inside) the projects directory so listing never sees them.
func DefaultArchiveDir(projectsDir string) string {
	return filepath.Join(filepath.Dir(projectsDir), "archive", "projects")
}

// Archive moves the transcripts under projectsDir whose files were last modified more than
// opts.OlderThan ago to opts.To, keeping each project's directory name; a session's directory
// (<id>/ with subagents) moves with it. Nothing is deleted: a destination that exists is left
// alone and reported, a transcript another process is writing (locked) is skipped and
// reported, and across file systems a move copies, fsyncs, then removes the source. Without
// opts.Apply nothing changes and the moves are only reported. The error is non-nil when some
// move failed; the returned list says which.
func Archive(ctx context.Context, projectsDir string, opts ArchiveOptions) ([]Move, error) {
	if opts.OlderThan <= 0 {
		return nil, fmt.Errorf("transcript: archive: the age must be positive")
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = OS
	}
	to := opts.To
	if to == "" {
		to = DefaultArchiveDir(projectsDir)
	}
	cutoff := now().Add(-opts.OlderThan)
	projects, err := os.ReadDir(projectsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: archive: %w", err)
	}
	var moves []Move
	var errs []error
	for _, p := range projects {
		if !p.IsDir() {
			continue
		}
		dir := filepath.Join(projectsDir, p.Name())
		ents, err := os.ReadDir(dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: archive: %w", err))
			continue
		}
		for _, d := range ents {
			if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".jsonl") {
				continue
			}
			fi, err := d.Info()
			if err != nil || !fi.ModTime().Before(cutoff) {
				continue
			}
			src := filepath.Join(dir, d.Name())
			m := Move{SessionID: SessionIDOf(src), From: src, To: filepath.Join(to, p.Name(), d.Name()),
				Size: fi.Size(), Modified: fi.ModTime()}
			sdir := strings.TrimSuffix(src, ".jsonl")
			if st, err := os.Stat(sdir); err == nil && st.IsDir() {
				m.Size += treeSize(sdir)
			}
			if opts.Apply {
				if err := ctx.Err(); err != nil {
					return moves, err
				}
				if err := moveSession(fsys, src, m.To); err != nil {
					m.Err = err.Error()
					errs = append(errs, err)
				} else {
					m.Moved = true
				}
			}
			moves = append(moves, m)
		}
	}
	sort.Slice(moves, func(a, b int) bool { return moves[a].From < moves[b].From })
	return moves, errors.Join(errs...)
}

// Retention applies the cleanupPeriodDays setting: when days is positive, transcripts older
// than that many days are archived (moved to DefaultArchiveDir) and the moves returned;
// otherwise nothing happens.
func Retention(ctx context.Context, env config.Env, days int, now time.Time) ([]Move, error) {
	if days <= 0 {
		return nil, nil
	}
	return Archive(ctx, env.ProjectsDir(), ArchiveOptions{
		OlderThan: time.Duration(days) * 24 * time.Hour,
		Apply:     true,
		Now:       func() time.Time { return now },
	})
}

// moveSession moves the transcript src to dst, and src's session directory beside it, while
// holding the transcript's lock so no writer starts in between.
func moveSession(fsys FS, src, dst string) error {
	lk := flock.New(src, flock.SetFlag(os.O_RDONLY))
	ok, err := lk.TryLock()
	if err != nil {
		return fmt.Errorf("transcript: archive %s: lock: %w", src, err)
	}
	if !ok {
		return fmt.Errorf("transcript: archive %s: %w", src, ErrLocked)
	}
	defer lk.Unlock()
	sdir := strings.TrimSuffix(src, ".jsonl")
	ddir := strings.TrimSuffix(dst, ".jsonl")
	hasDir := false
	if st, err := os.Stat(sdir); err == nil && st.IsDir() {
		hasDir = true
		if _, err := os.Lstat(ddir); err == nil {
			return fmt.Errorf("transcript: archive %s: %s already exists", sdir, ddir)
		}
	}
	if _, err := os.Lstat(dst); err == nil {
		return fmt.Errorf("transcript: archive %s: %s already exists", src, dst)
	}
	if err := fsys.MkdirAll(filepath.Dir(dst), fsutil.DirMode); err != nil {
		return fmt.Errorf("transcript: archive %s: %w", src, err)
	}
	if err := move(fsys, src, dst); err != nil {
		return err
	}
	if hasDir {
		if err := move(fsys, sdir, ddir); err != nil {
			return err
		}
	}
	if err := fsys.SyncDir(filepath.Dir(dst)); err != nil {
		return fmt.Errorf("transcript: archive: sync %s: %w", filepath.Dir(dst), err)
	}
	if err := fsys.SyncDir(filepath.Dir(src)); err != nil {
		return fmt.Errorf("transcript: archive: sync %s: %w", filepath.Dir(src), err)
	}
	return nil
}

// move renames src to dst, or copies and then removes src when they are on different file
// systems.
func move(fsys FS, src, dst string) error {
	err := fsys.Rename(src, dst)
	if err == nil {
		return nil
	}
	if !errors.Is(err, syscall.EXDEV) {
		return fmt.Errorf("transcript: archive %s: %w", src, err)
	}
	if err := copyTree(src, dst); err != nil {
		os.RemoveAll(dst) // only the partial copy; the source is untouched
		return fmt.Errorf("transcript: archive %s: copy: %w", src, err)
	}
	if err := os.RemoveAll(src); err != nil {
		return fmt.Errorf("transcript: archive %s: copied, but removing the original failed: %w", src, err)
	}
	return nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, fsutil.DirMode)
		case d.Type().IsRegular():
			return copyFile(p, target)
		}
		return nil // sockets, symlinks: not part of a transcript
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fsutil.FileMode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
