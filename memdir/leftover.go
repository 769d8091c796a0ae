package memdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// StaleTempAge is how old a temp file of the atomic writer (fsutil.IsTempName) must be to count
// as the leftover of a write that was killed between its create and its rename: far longer
// than any write takes, so a write in progress in another process is never touched.
const StaleTempAge = 10 * time.Minute

// Leftover is a temp file a killed write left in the memory dir.
type Leftover struct {
	File    string // slash-separated, relative to the memory dir
	Size    int64
	ModTime time.Time
}

// staleTemps lists the leftover temp files under root, in every directory (symlinks are not
// followed), older than StaleTempAge.
func staleTemps(root *os.Root, now time.Time) ([]Leftover, error) {
	var out []Leftover
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable corner; the rest is still looked at
		}
		if d.IsDir() || !d.Type().IsRegular() || !fsutil.IsTempName(d.Name()) {
			return nil
		}
		fi, err := d.Info()
		if err != nil || now.Sub(fi.ModTime()) < StaleTempAge {
			return nil
		}
		out = append(out, Leftover{File: p, Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	return out, err
}

// removeStaleTemps removes the leftover temp files of killed writes. The writers call it under
// the directory's lock (see lock), so the next write after a crash cleans up; what it removes
// is logged, and a failure only logged: cleaning must never stop a write.
func (s *Store) removeStaleTemps() {
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return
	}
	defer root.Close()
	temps, err := staleTemps(root, time.Now())
	if err != nil {
		s.log.Warn("memdir: looking for leftover temp files", "dir", s.dir, "err", err)
	}
	for _, t := range temps {
		if err := root.Remove(filepath.FromSlash(t.File)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("memdir: removing a leftover temp file", "path", s.abs(t.File), "err", err)
			continue
		}
		s.log.Info("memdir: removed the temp file of an interrupted write", "path", s.abs(t.File), "bytes", t.Size, "modified", t.ModTime)
	}
}

// lintLeftovers reports what an interrupted write leaves behind: temp files older than
// StaleTempAge, and index lines written by strata whose description is not the file's (the
// file was replaced but the index not, or the file was edited by hand). Both are warnings;
// Repair fixes them.
func (s *Store) lintLeftovers(root *os.Root, mems []Memory, idx string) []Diagnostic {
	var diags []Diagnostic
	temps, _ := staleTemps(root, time.Now()) // an unreadable dir is reported by the rest of Lint
	for _, t := range temps {
		diags = append(diags, Diagnostic{Path: s.abs(t.File), Severity: SevWarning,
			Message: fmt.Sprintf("temp file of an interrupted write (%s, %s old); the next write removes it, or strata memory lint --fix", humanBytes(t.Size), time.Since(t.ModTime).Round(time.Minute))})
	}
	for _, d := range drifted(root, mems, idx) {
		diags = append(diags, Diagnostic{Path: s.IndexPath(), Line: d.link.Line, Severity: SevWarning,
			Message: fmt.Sprintf("the line's description %q is not the one in %s (%q); strata memory lint --fix re-indexes it", d.link.Hook, d.mem.File, d.want)})
	}
	return diags
}

type drift struct {
	link IndexLink
	mem  Memory
	want string // the hook the line should have
}

// drifted returns the index lines strata wrote — title = the memory's name, file named after
// it, the line exactly as FormatIndexLine writes it (a line a person wrote in another form is
// theirs to word) — whose hook is not what the file's description gives now.
func drifted(root *os.Root, mems []Memory, idx string) []drift {
	byFile := make(map[string]Memory, len(mems))
	for _, m := range mems {
		byFile[m.File] = m
	}
	lines := strings.Split(strings.ReplaceAll(strings.TrimPrefix(idx, "\ufeff"), "\r\n", "\n"), "\n")
	var out []drift
	for _, e := range indexLinks(root, idx) {
		m, ok := byFile[e.File]
		if !ok || e.State != LinkOK || e.Title != m.Name || !strataLine(e.IndexEntry) ||
			e.Line > len(lines) || lines[e.Line-1] != FormatIndexLine(e.Title, e.File, e.Hook) {
			continue
		}
		want, _ := ParseIndexLine(FormatIndexLine(m.Name, e.File, m.Description))
		if e.Hook != want.Hook {
			out = append(out, drift{e, m, want.Hook})
		}
	}
	return out
}

// RepairResult is what Repair did.
type RepairResult struct {
	Removed   []Leftover // temp files of interrupted writes, removed
	Reindexed []string   // topic files whose index line was added or rewritten
}

// Repair undoes what interrupted writes leave behind, under the directory's lock: it removes
// temp files older than StaleTempAge, and re-indexes from the files (as Reindex) every topic
// file that has no index line and every strata-written line whose description is not the
// file's. Topic files are never changed; a file that cannot be re-indexed (a secret in its
// description, the index limits) is left and its error returned with the others.
func (s *Store) Repair(ctx context.Context) (RepairResult, error) {
	var res RepairResult
	mems, _, err := s.List(ctx)
	if err != nil {
		return res, err
	}
	var temps []Leftover
	if root, ok, err := s.openRoot(); err == nil && ok {
		temps, _ = staleTemps(root, time.Now())
		root.Close()
	}
	err = s.Locked(ctx, func(tx *Tx) error {
		// Taking the lock removed the stale temp files (see lock): report those now gone.
		for _, t := range temps {
			if _, err := tx.Root().Lstat(filepath.FromSlash(t.File)); errors.Is(err, fs.ErrNotExist) {
				res.Removed = append(res.Removed, t)
			}
		}
		idx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		indexed := map[string]bool{}
		for _, e := range ParseIndex([]byte(idx)) {
			indexed[e.File] = true
		}
		var files []string
		for _, m := range mems {
			if !indexed[m.File] {
				files = append(files, m.File)
			}
		}
		for _, d := range drifted(tx.Root(), mems, idx) {
			files = append(files, d.mem.File)
		}
		var errs []error
		for _, f := range files {
			changed, err := tx.Reindex(ctx, f)
			if err != nil {
				errs = append(errs, fmt.Errorf("re-index %s: %w", f, err))
				continue
			}
			if changed {
				res.Reindexed = append(res.Reindexed, f)
			}
		}
		return errors.Join(errs...)
	})
	return res, err
}
