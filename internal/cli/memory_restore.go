package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

type restoreOptions struct {
	mem       memoryFlags
	lastDream bool
	asJSON    bool
}

func newMemoryRestoreCmd(app *App) *cobra.Command {
	var o restoreOptions
	c := &cobra.Command{
		Use:   "restore [NAME…]",
		Short: "Put archived memories back (undo a dream, a forget or a replacement logged in the archive)",
		Long: `Put archived memories back where they were, with their MEMORY.md index lines, as recorded
in .archive/ARCHIVE.log. NAME is the memory's name (as forget takes it), the file as the log
names it ("tabs-old.md", or without ".md"), or its archived path; the newest archiving of it is
undone. --last-dream undoes every
step of the newest dream (the index lines it removed as dangling included), newest first, so
that MEMORY.md and every file come back byte for byte when nothing changed them since. A file
is never put back over an existing one, except that restoring a version an accepted inbox
proposal replaced (action replace) moves the file in its place to the archive first, so
restoring again swaps back. Each restore is logged too.`,
		Args: func(c *cobra.Command, args []string) error {
			if o.lastDream == (len(args) > 0) {
				return usagef("give NAME… or --last-dream (one of them)")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error { return memoryRestore(c, app, o, args) },
	}
	o.mem.register(c)
	c.Flags().BoolVar(&o.lastDream, "last-dream", false, "undo the newest dream")
	c.Flags().BoolVar(&o.asJSON, "json", false, "print what was restored as JSON")
	return c
}

func memoryRestore(c *cobra.Command, app *App, o restoreOptions, names []string) error {
	s, err := openWritableStore(app, o.mem)
	if err != nil {
		return err
	}
	var done []memdir.ArchiveRecord
	var failed error
	nothing := false
	if o.lastDream {
		done, failed = extract.UndoLastDream(c.Context(), s, app.Now())
		nothing = len(done) == 0 && failed == nil
	} else {
		recs, err := memdir.ReadArchiveLog(s.Dir())
		if err != nil {
			return err
		}
		open := memdir.Restorable(recs)
		var todo []memdir.ArchiveRecord
		for _, n := range names {
			r, ok := newestArchived(s.Dir(), open, n)
			if !ok {
				return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%q is not in the archive of %s (see .archive/ARCHIVE.log)", n, s.Dir())}
			}
			todo = append(todo, r)
		}
		for _, r := range todo {
			if failed = s.Restore(c.Context(), r, app.Now()); failed != nil {
				break
			}
			done = append(done, r)
		}
	}
	if o.asJSON {
		out := struct {
			Dir      string                 `json:"dir"`
			Restored []memdir.ArchiveRecord `json:"restored"`
			Error    string                 `json:"error,omitempty"`
		}{s.Dir(), append([]memdir.ArchiveRecord{}, done...), ""}
		if failed != nil {
			out.Error = failed.Error()
		}
		if err := writeJSON(app.Out, out); err != nil {
			return err
		}
	} else {
		if nothing {
			fmt.Fprintln(app.Out, "nothing to restore: no dream left anything in the archive")
		}
		for _, r := range done {
			if r.ArchivedTo != "" {
				fmt.Fprintf(app.Out, "restored %s from %s (%s)\n", r.File, r.ArchivedTo, r.Action)
			} else {
				fmt.Fprintf(app.Out, "restored the index line of %s (%s)\n", r.File, r.Action)
			}
		}
	}
	if failed != nil {
		if errors.Is(failed, memdir.ErrExists) {
			return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%w; move it away or rename it first", failed)}
		}
		return failed
	}
	return nil
}

// newestArchived is the newest restorable record naming n as forget takes it: its file (with
// or without ".md"), its archived path, or the memory's name (case, width and Unicode form
// aside), as the file name derives from it or the archived file's frontmatter says.
func newestArchived(dir string, open []memdir.ArchiveRecord, n string) (memdir.ArchiveRecord, bool) {
	key := memdir.NameKey(n)
	byName := func(r memdir.ArchiveRecord) bool {
		if r.File == memdir.FileName(n) || r.File == memdir.FileNameAlt(n) {
			return true
		}
		if r.ArchivedTo == "" {
			return false
		}
		data, err := fsutil.ReadFileIn(dir, filepath.FromSlash(r.ArchivedTo), memdir.MaxFileBytes)
		if err != nil {
			return false
		}
		m, _ := memdir.ParseFile("", r.File, data)
		return memdir.NameKey(m.Name) == key
	}
	for _, match := range []func(memdir.ArchiveRecord) bool{
		func(r memdir.ArchiveRecord) bool {
			return r.File == n || strings.TrimSuffix(r.File, ".md") == n || r.ArchivedTo != "" && r.ArchivedTo == n
		},
		byName,
	} {
		for i := len(open) - 1; i >= 0; i-- {
			if match(open[i]) {
				return open[i], true
			}
		}
	}
	return memdir.ArchiveRecord{}, false
}
