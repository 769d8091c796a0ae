package memdir

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
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

// lockedTemp reports whether the temp file name is one a write under the store's lock makes (of
// a topic file, a proposal, MEMORY.md or the journal): a caller holding the lock knows such a
// write is over, whatever the file's age.
func lockedTemp(name string) bool {
	i := strings.LastIndex(name, ".tmp")
	if i < 2 {
		return false
	}
	base := name[1:i]
	return strings.HasSuffix(base, ".md") || base == path.Base(JournalFile) || base == path.Base(NamesFile)
}

// staleTemps lists the leftover temp files under root, in every directory (symlinks are not
// followed): those older than StaleTempAge, and with locked (the caller holds the store's lock,
// or only reports) those of writes made under the lock (lockedTemp) at any age.
func staleTemps(root *os.Root, now time.Time, locked bool) ([]Leftover, error) {
	var out []Leftover
	// By names, not fs.WalkDir: an entry is stat'ed only when it is a temp file or may be a
	// directory (not "*.md"), so a store of many memories costs one listing per directory.
	var walk func(dir string) error
	walk = func(dir string) error {
		f, err := root.Open(filepath.FromSlash(dir))
		if err != nil {
			return err
		}
		names, err := f.Readdirnames(-1)
		f.Close()
		if err != nil {
			return err
		}
		for _, n := range names {
			rel := path.Join(dir, n)
			if strings.HasSuffix(n, ".md") && !fsutil.IsTempName(n) {
				continue
			}
			fi, err := root.Lstat(filepath.FromSlash(rel))
			if err != nil {
				continue
			}
			switch {
			case fi.IsDir():
				_ = walk(rel) // an unreadable corner; the rest is still looked at
			case fi.Mode().IsRegular() && fsutil.IsTempName(n):
				if now.Sub(fi.ModTime()) >= StaleTempAge || locked && lockedTemp(n) {
					out = append(out, Leftover{File: rel, Size: fi.Size(), ModTime: fi.ModTime()})
				}
			}
		}
		return nil
	}
	err := walk(".")
	sort.Slice(out, func(i, j int) bool { return out[i].File < out[j].File })
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
	temps, err := staleTemps(root, time.Now(), true)
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

// lintLeftovers reports what an interrupted write leaves behind: temp files (those of writes
// under the lock at once, others once older than StaleTempAge), files in the archive that no
// record names, and index lines written by strata whose description is not the file's (the
// file was replaced but the index not, or the file was edited by hand). Both are warnings;
// Repair fixes them.
func (s *Store) lintLeftovers(root *os.Root, mems []Memory, idx string) []Diagnostic {
	var diags []Diagnostic
	temps, _ := staleTemps(root, time.Now(), true) // an unreadable dir is reported by the rest of Lint
	for _, t := range temps {
		diags = append(diags, Diagnostic{Path: s.abs(t.File), Severity: SevWarning,
			Message: fmt.Sprintf("temp file of an interrupted write (%s, %s old); the next write removes it, or strata memory lint --fix", humanBytes(t.Size), time.Since(t.ModTime).Round(time.Second))})
	}
	orphans, err := s.unrecorded(root)
	if err != nil {
		diags = append(diags, Diagnostic{Path: s.abs(ArchiveDir), Severity: SevWarning, Message: "cannot read: " + unwrapPath(err)})
	}
	for _, f := range orphans {
		diags = append(diags, Diagnostic{Path: s.abs(f), Severity: SevWarning,
			Message: "in the archive, but no record of " + ArchiveLogFile + " names it (an archiving killed before it logged?), so restore cannot find it; strata memory lint --fix records it"})
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
	Adopted   []string   // files in the archive that no record named, recorded (ActionAdopt)
	Reindexed []string   // topic files whose index line was added or rewritten
}

// Repair undoes what interrupted writes leave behind, under the directory's lock: it removes
// temp files older than StaleTempAge, and re-indexes from the files (as Reindex) every topic
// file that has no index line (but those a logged step took out of it: OutOfIndex) and every
// strata-written line whose description is not the file's. Topic files are never changed; a
// file that cannot be re-indexed (a secret in its description, the index limits) is left and
// its error returned with the others.
func (s *Store) Repair(ctx context.Context) (RepairResult, error) {
	var res RepairResult
	mems, _, err := s.List(ctx)
	if err != nil {
		return res, err
	}
	var temps []Leftover
	if root, ok, err := s.openRoot(); err == nil && ok {
		temps, _ = staleTemps(root, time.Now(), true)
		root.Close()
	}
	err = s.Locked(ctx, func(tx *Tx) error {
		// Taking the lock removed the stale temp files (see lock): report those now gone.
		for _, t := range temps {
			if _, err := tx.Root().Lstat(filepath.FromSlash(t.File)); errors.Is(err, fs.ErrNotExist) {
				res.Removed = append(res.Removed, t)
			}
		}
		adopted, err := s.adopt(tx.Root())
		res.Adopted = adopted
		if err != nil {
			return err
		}
		idx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		indexed := map[string]bool{}
		for _, e := range ParseIndex([]byte(idx)) {
			indexed[e.File] = true
		}
		recs, err := ReadArchiveLog(s.dir)
		if err != nil {
			return err
		}
		out := OutOfIndex(recs)
		var files []string
		for _, m := range mems {
			if !indexed[m.File] && !out[m.File] {
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

// ActionAdopt is the ArchiveRecord action of a file found in the archive with no record (an
// archiving killed before it logged, a file put there by hand), recorded by Repair so that
// Restore can put it back.
const ActionAdopt = "adopt"

// unrecorded lists the memory files (*.md, not temp files) under .archive/ that no record of the
// archive log names as where a file went.
func (s *Store) unrecorded(root *os.Root) ([]string, error) {
	if fi, err := root.Lstat(ArchiveDir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	recs, err := ReadArchiveLog(s.dir)
	if err != nil {
		return nil, err
	}
	named := map[string]bool{}
	for _, r := range recs {
		named[r.ArchivedTo] = true
	}
	var out []string
	err = fs.WalkDir(root.FS(), ArchiveDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable corner; the rest is still looked at
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".md") && !fsutil.IsTempName(d.Name()) && !named[p] {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// archivedStamp is the timestamp archiveDest puts before ".md" when a name is taken.
var archivedStamp = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\.\d{8}T\d{6}\.\d{9}Z(-\d+)?\.md$`)
})

// adopt records every unrecorded file of the archive (ActionAdopt, its file taken from its
// path there) and returns them; the caller holds the lock.
func (s *Store) adopt(root *os.Root) ([]string, error) {
	orphans, err := s.unrecorded(root)
	if err != nil {
		return nil, err
	}
	var done []string
	now := s.opts.Now()
	for _, p := range orphans {
		file := archivedStamp().ReplaceAllString(strings.TrimPrefix(p, ArchiveDir+"/"), ".md")
		if strings.HasPrefix(file, "inbox/") {
			file = InboxDir + strings.TrimPrefix(file, "inbox")
		}
		h, err := hashOf(root, p)
		if err != nil {
			return done, err
		}
		rec := ArchiveRecord{Time: now, Run: RunID(now), Action: ActionAdopt, File: file, ArchivedTo: p, SHA256: h,
			Reason: "found in the archive with no record; recorded by strata memory lint --fix"}
		if err := s.appendRecord(rec); err != nil {
			return done, err
		}
		done = append(done, p)
	}
	return done, nil
}
