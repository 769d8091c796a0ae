package cli

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/shell"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/workspace"
)

// memoryFlags are the flags every `strata memory` subcommand shares (search included: call
// register on its command and openMemoryStore in its RunE).
type memoryFlags struct {
	dir   string // --memory-dir
	cwd   string // --cwd
	store string // --store
}

func (f *memoryFlags) register(c *cobra.Command) {
	c.Flags().StringVar(&f.dir, "memory-dir", "", "use this memory directory (default: STRATA_MEMORY_DIR, the autoMemoryDirectory setting, else $STRATA_HOME/projects/<project>/memory)")
	c.Flags().StringVar(&f.cwd, "cwd", "", "act as if run in this directory (selects the project)")
	c.Flags().StringVar(&f.store, "store", "", "use the memory store of this name (\"project\", or one mounted by memoryStores or STRATA_MEMORY_STORES; default: the project's)")
}

// openMemoryStore opens the workspace of the flags and the store they name (--store; the
// project's by default) for reading. Settings files that do not parse are reported on stderr as
// warnings and skipped.
func openMemoryStore(app *App, f memoryFlags) (*memdir.Store, error) {
	ws, err := openMemoryWorkspace(app, f)
	if err != nil {
		return nil, err
	}
	return storeOf(ws, f, false)
}

// openWritableStore is openMemoryStore for a command that writes: a store mounted read-only (or
// whose directory does not exist) is refused with an error naming it.
func openWritableStore(app *App, f memoryFlags) (*memdir.Store, error) {
	ws, err := openMemoryWorkspace(app, f)
	if err != nil {
		return nil, err
	}
	return storeOf(ws, f, true)
}

// openMemoryWorkspace opens the workspace of the flags and warns about its settings.
func openMemoryWorkspace(app *App, f memoryFlags) (*workspace.Workspace, error) {
	if f.store != "" && f.dir != "" {
		return nil, usagef("--store and --memory-dir both name a memory directory; give one")
	}
	ws, err := openWorkspace(context.Background(), app, f.cwd, f.dir)
	if err != nil {
		return nil, err
	}
	warnSettings(app, ws)
	return ws, nil
}

// storeOf returns the store the flags name in ws (--store, else the project's); write asks for
// one that takes writes (workspace.WritableStore).
func storeOf(ws *workspace.Workspace, f memoryFlags, write bool) (*memdir.Store, error) {
	var ns workspace.NamedStore
	var err error
	if write {
		ns, err = ws.WritableStore(f.store)
	} else {
		ns, err = ws.NamedStore(f.store)
	}
	if err != nil {
		return nil, err
	}
	return ns.Store, nil
}

// readStores returns the stores a read over every store covers: the one --store or
// --memory-dir names, else the project's and every mounted one whose directory exists.
func readStores(app *App, f memoryFlags) ([]workspace.NamedStore, error) {
	ws, err := openMemoryWorkspace(app, f)
	if err != nil {
		return nil, err
	}
	if f.store != "" || f.dir != "" {
		ns, err := ws.NamedStore(f.store)
		if err != nil {
			return nil, err
		}
		return []workspace.NamedStore{ns}, nil
	}
	all, err := ws.Stores()
	if err != nil {
		return nil, err
	}
	out := all[:0:0]
	for _, s := range all {
		if !s.Missing {
			out = append(out, s)
		}
	}
	return out, nil
}

func printDiagnostics(w io.Writer, diags []memdir.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(w, "strata: %s\n", d)
	}
}

// memoryJSON is one memory in --json output.
type memoryJSON struct {
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	Description string    `json:"description"`
	File        string    `json:"file"`
	Path        string    `json:"path"`
	Modified    time.Time `json:"modified"`
	Size        int64     `json:"size"`
	Body        *string   `json:"body,omitempty"`
	// Store names the mounted store the memory is in; absent for the project's own.
	Store string `json:"store,omitempty"`
	// Author is who wrote the memory last, when its frontmatter says (the team server records it).
	Author string `json:"author,omitempty"`
}

func toMemoryJSON(m memdir.Memory) memoryJSON {
	return memoryJSON{Name: m.Name, Type: string(m.Type), Description: m.Description, File: m.File,
		Path: m.Path, Modified: m.ModTime.UTC().Truncate(time.Second), Size: m.Size, Author: m.Author}
}

func newMemoryListCmd(app *App) *cobra.Command {
	var f memoryFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "list",
		Short: "List the memories of this project",
		Long: `List every topic file in the memory directory: name, type, description, file, last
modification and size. Problems with a file (broken frontmatter, binary content) are reported
on stderr; the file is still listed when its body is usable. With memory stores mounted
(memoryStores, STRATA_MEMORY_STORES), every store is listed, with a STORE column; --store lists
one.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			stores, err := readStores(app, f)
			if err != nil {
				return err
			}
			return memoryList(c, app, stores, asJSON)
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// storeLabel is a store's name in listings: "" for the project's own (JSON leaves it out).
func storeLabel(s workspace.NamedStore) string {
	if s.Project() {
		return ""
	}
	return s.Name
}

// memoryList lists the memories of stores, the first store's first. With more than one store
// the table has a STORE column and each JSON memory of a mounted store its "store".
func memoryList(c *cobra.Command, app *App, stores []workspace.NamedStore, asJSON bool) error {
	type listed struct {
		memdir.Memory
		store string
	}
	var mems []listed
	var diags []memdir.Diagnostic
	var dirs []string
	for _, st := range stores {
		ms, ds, err := st.Store.List(c.Context())
		if err != nil {
			return err
		}
		for _, m := range ms {
			mems = append(mems, listed{m, storeLabel(st)})
		}
		diags = append(diags, ds...)
		dirs = append(dirs, st.Store.Dir())
	}
	if asJSON {
		out := struct {
			Dir         string              `json:"dir"`
			Memories    []memoryJSON        `json:"memories"`
			Diagnostics []memdir.Diagnostic `json:"diagnostics"`
		}{Dir: dirs[0], Memories: []memoryJSON{}, Diagnostics: diags}
		if out.Diagnostics == nil {
			out.Diagnostics = []memdir.Diagnostic{}
		}
		for _, m := range mems {
			j := toMemoryJSON(m.Memory)
			j.Store = m.store
			out.Memories = append(out.Memories, j)
		}
		return writeJSON(app.Out, out)
	}
	printDiagnostics(app.Err, diags)
	if len(mems) == 0 {
		fmt.Fprintf(app.Out, "no memories in %s\n", strings.Join(dirs, ", "))
		return nil
	}
	head := []string{"NAME", "TYPE", "MODIFIED", "SIZE", "FILE", "DESCRIPTION"}
	if len(stores) > 1 {
		head = append([]string{"STORE"}, head...)
	}
	rows := [][]string{head}
	for _, m := range mems {
		typ := string(m.Type)
		if typ == "" {
			typ = "-"
		}
		row := []string{m.Name, typ, m.ModTime.Local().Format("2006-01-02 15:04"), fmt.Sprint(m.Size), m.File, m.Description}
		if len(stores) > 1 {
			row = append([]string{cmp.Or(m.store, config.ProjectStore)}, row...)
		}
		rows = append(rows, row)
	}
	return writeMemoryTable(app.Out, rows)
}

// writeMemoryTable prints rows in columns two spaces apart, measuring text by its display width
// (Chinese and other wide characters take two columns), so that names in any script line up.
// Every cell goes through termtext.Line: names and descriptions come from files strata did not
// necessarily write, and an escape sequence or a newline in one must not reach the terminal.
func writeMemoryTable(w io.Writer, rows [][]string) error {
	var widths []int
	for _, r := range rows {
		for i, cell := range r {
			cell = termtext.Line(cell)
			r[i] = cell
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], termtext.Width(cell))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, cell := range r {
			b.WriteString(cell)
			if i < len(r)-1 {
				b.WriteString(termtext.Pad(cell, widths[i]+2)[len(cell):])
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func newMemoryShowCmd(app *App) *cobra.Command {
	var f memoryFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "show NAME",
		Short: "Print one memory",
		Long: `Print the topic file called NAME as it is on disk (frontmatter and body). NAME is the
memory's name, or its file name with or without .md. With memory stores mounted, the
project's store is looked in first, then each mounted one; --store looks in one.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			stores, err := readStores(app, f)
			if err != nil {
				return err
			}
			var m memdir.Memory
			var in workspace.NamedStore
			for _, st := range stores {
				if m, err = st.Store.Get(c.Context(), args[0]); !errors.Is(err, memdir.ErrNotFound) {
					in = st
					break
				}
			}
			if err != nil {
				return err
			}
			if asJSON {
				j := toMemoryJSON(m)
				j.Body = &m.Body
				j.Store = storeLabel(in)
				return writeJSON(app.Out, j)
			}
			data, err := fsutil.ReadRegular(m.Path, memdir.MaxWholeRead)
			if err != nil {
				return err
			}
			_, err = app.Out.Write(data)
			return err
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print the parsed memory as JSON")
	return c
}

func newMemoryPathCmd(app *App) *cobra.Command {
	var f memoryFlags
	var asJSON bool
	c := &cobra.Command{
		Use:   "path",
		Short: "Print the memory directory of this project",
		Long:  "Print the memory directory of this project (it need not exist yet).",
		Args:  noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			s, err := openMemoryStore(app, f)
			if err != nil {
				return err
			}
			if asJSON {
				_, statErr := os.Stat(s.Dir())
				return writeJSON(app.Out, map[string]any{"dir": s.Dir(), "index": s.IndexPath(), "exists": statErr == nil})
			}
			fmt.Fprintln(app.Out, s.Dir())
			return nil
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

func newMemoryAddCmd(app *App) *cobra.Command {
	var f memoryFlags
	var in memdir.Input
	var typ string
	var body string
	var asJSON bool
	c := &cobra.Command{
		Use:   "add --name NAME --type TYPE --description TEXT [--body TEXT]",
		Short: "Write a memory and its index line",
		Long: `Write a topic file and update its line in MEMORY.md, atomically and under the memory
directory's lock. A memory with the same name is replaced; so is a memory whose name differs
from NAME only in case, width or Unicode form ("DB PORT" updates "db port", which keeps its
name), and when several do, nothing is written. The body comes from --body, else
from stdin. TYPE is user, feedback, project or reference.

The write is refused (nothing is written) when the name has a path separator, ".." or a
control character, when the text looks like a secret, or when MEMORY.md would go over its
limits (200 lines, 25,000 characters). With the setting memoryMode "daily-log" the memory is
appended to today's log (logs/YYYY/MM/YYYY-MM-DD.md) instead. --store writes to a mounted
store instead of the project's; a store mounted read-only refuses the write.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			for _, req := range []struct{ name, val string }{{"name", in.Name}, {"type", typ}, {"description", in.Description}} {
				if !c.Flags().Changed(req.name) {
					return usagef("--%s is required\nRun '%s --help' for usage.", req.name, c.CommandPath())
				}
			}
			in.Type = memdir.Type(typ)
			// The store first: a store that refuses writes is said before a body is typed.
			s, err := openWritableStore(app, f)
			if err != nil {
				return err
			}
			if c.Flags().Changed("body") {
				in.Body = body
			} else {
				if file, ok := app.In.(*os.File); ok {
					if fi, err := file.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
						fmt.Fprintln(app.Err, "strata: reading the body from stdin (end with Ctrl-D)")
					}
				}
				data, err := io.ReadAll(app.In)
				if err != nil {
					return fmt.Errorf("read body from stdin: %w", err)
				}
				in.Body = string(data)
			}
			return memoryAdd(c, app, s, in, asJSON)
		},
	}
	f.register(c)
	c.Flags().StringVar(&in.Name, "name", "", "the memory's name (required)")
	c.Flags().StringVar(&typ, "type", "", "user, feedback, project or reference (required)")
	c.Flags().StringVar(&in.Description, "description", "", "one line: what it is and when it matters (required)")
	c.Flags().StringVar(&body, "body", "", "the memory's text (default: read stdin)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

func memoryAdd(c *cobra.Command, app *App, s *memdir.Store, in memdir.Input, asJSON bool) error {
	res, err := s.Add(c.Context(), in)
	if err != nil {
		return err
	}
	if asJSON {
		out := map[string]any{"file": res.File, "path": res.Path, "name": res.Name, "created": res.Created, "logged": res.Logged, "index_updated": res.Index}
		if res.Kept != "" {
			out["kept"] = res.Kept
		}
		return writeJSON(app.Out, out)
	}
	switch {
	case res.Logged:
		fmt.Fprintf(app.Out, "logged to %s\n", res.Path)
	case res.Created:
		fmt.Fprintf(app.Out, "added %s\n", res.File)
	case res.Name != strings.TrimSpace(in.Name):
		fmt.Fprintf(app.Out, "updated %s (the memory %q: %q differs from its name only in case, width or Unicode form)\n",
			res.File, res.Name, in.Name)
	default:
		fmt.Fprintf(app.Out, "updated %s\n", res.File)
	}
	if res.Kept != "" {
		fmt.Fprintf(app.Out, "its earlier text is kept in %s; `strata memory restore %s` puts it back\n", res.Kept, res.File)
	}
	return nil
}

func newMemoryForgetCmd(app *App) *cobra.Command {
	var f memoryFlags
	var purge, yes, asJSON bool
	c := &cobra.Command{
		Use:   "forget NAME",
		Short: "Move a memory to the archive (or, with --purge, delete it)",
		Long: `Move the topic file called NAME to .archive/ in the memory directory and remove its line in
MEMORY.md; the move is logged in .archive/ARCHIVE.log, so "strata memory restore NAME" puts it
back with its index line. With --purge the file is deleted for good instead, after you confirm
(or with --yes). NAME may also be the title or file of an index line whose file is gone: that
line is removed.`,
		Example: `  strata memory forget "old deploy notes"
  strata memory forget --purge --yes leaked-token`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := openWritableStore(app, f)
			if err != nil {
				return err
			}
			if purge && !yes {
				if !confirmed(app, fmt.Sprintf("delete the memory %q for good (it cannot be restored)? [y/N] ", args[0])) {
					return &ExitError{Code: ExitFailure, Err: errors.New("--purge not confirmed: nothing deleted (answer y, or give --yes)")}
				}
			}
			var res memdir.ForgetResult
			if purge {
				res, err = s.Forget(c.Context(), args[0], false)
			} else {
				res, err = s.Archive(c.Context(), args[0], memdir.ArchiveRecord{Time: app.Now(), Action: memdir.ActionArchive,
					Reason: "strata memory forget"})
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(app.Out, map[string]any{"file": res.File, "archived_to": res.ArchivedTo, "index_lines_removed": res.IndexLines})
			}
			switch {
			case res.File == "":
				fmt.Fprintf(app.Out, "removed %d index line(s) pointing nowhere\n", res.IndexLines)
			case res.ArchivedTo != "":
				fmt.Fprintf(app.Out, "archived %s to %s (%d index line(s) removed); strata memory restore %s puts it back\n", res.File, res.ArchivedTo, res.IndexLines, res.File)
			default:
				fmt.Fprintf(app.Out, "deleted %s for good (%d index line(s) removed)\n", res.File, res.IndexLines)
			}
			return nil
		},
	}
	f.register(c)
	c.Flags().BoolVar(&purge, "purge", false, "delete the file for good instead of archiving it (asks first)")
	c.Flags().BoolVarP(&yes, "yes", "y", false, "with --purge: do not ask")
	c.Flags().Bool("archive", true, "archive the file (the default; kept for scripts)")
	c.Flags().MarkHidden("archive")
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return c
}

// confirmed asks question on app.Err and reads one line from app.In: true for y or yes.
func confirmed(app *App, question string) bool {
	fmt.Fprint(app.Err, question)
	line, _ := bufio.NewReader(app.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

func newMemoryEditCmd(app *App) *cobra.Command {
	var f memoryFlags
	c := &cobra.Command{
		Use:   "edit NAME",
		Short: "Open a memory in $EDITOR, then re-check it and its index line",
		Long: `Open the topic file called NAME in $EDITOR (or $VISUAL). When the editor exits, the file
is checked again (frontmatter, secrets) and its line in MEMORY.md is updated if the name or
description changed. The file itself is never rewritten by strata.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := openWritableStore(app, f)
			if err != nil {
				return err
			}
			return memoryEdit(c, app, s, args[0])
		},
	}
	f.register(c)
	return c
}

func memoryEdit(c *cobra.Command, app *App, s *memdir.Store, name string) error {
	m, err := s.Get(c.Context(), name)
	if err != nil {
		return err
	}
	editor := strings.TrimSpace(app.Env.Var("EDITOR"))
	if editor == "" {
		editor = strings.TrimSpace(app.Env.Var("VISUAL"))
	}
	if editor == "" {
		return fmt.Errorf("$EDITOR is not set: set it (for example EDITOR=vi) or edit %s by hand", m.Path)
	}
	argv, err := shell.Fields(editor)
	if err != nil {
		return fmt.Errorf("$EDITOR %q: %v; quote it as for the shell, e.g. EDITOR=\"'/path with spaces/ed' -w\"", editor, strings.TrimPrefix(err.Error(), "shell: "))
	}
	before, err := fsutil.ReadRegular(m.Path, memdir.MaxWholeRead)
	if err != nil {
		return err
	}
	var data []byte
	for {
		cmd := exec.CommandContext(c.Context(), argv[0], append(argv[1:], m.Path)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = app.In, app.Out, app.Err
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("editor %q: %w", editor, err)
		}
		data, err = fsutil.ReadRegular(m.Path, memdir.MaxWholeRead)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(app.Err, "strata: %s was removed in the editor\n", m.File)
			break
		} else if err != nil {
			return err
		}
		broken := memdir.EditProblems(m, data)
		if len(broken) == 0 {
			break
		}
		printDiagnostics(app.Err, broken)
		if confirmed(app, "the header is broken; reopen the editor? [y/N] ") {
			continue
		}
		// Refused: the memory keeps its text, and the edit is kept beside the store.
		kept, kerr := keepEdit(m.File, data)
		if err := fsutil.WriteFile(m.Path, before, fsutil.FileMode); err != nil {
			return errors.Join(err, kerr)
		}
		if kerr != nil {
			return fmt.Errorf("%s is as it was; the broken edit could not be kept: %w", m.File, kerr)
		}
		return &ExitError{Code: ExitFailure, Err: fmt.Errorf("%s is as it was; your edit is kept in %s", m.File, kept)}
	}
	failed := false
	if data != nil {
		for _, sf := range memdir.ScanSecrets(string(bytes.ToValidUTF8(data, nil))) {
			fmt.Fprintf(app.Err, "strata: %s:%d: error: looks like a secret (%s); remove it\n", m.Path, sf.Line, sf.Kind)
			failed = true
		}
	}
	changed, err := s.Reindex(c.Context(), m.File)
	if err != nil {
		return err
	}
	if changed {
		fmt.Fprintf(app.Out, "updated the index line of %s\n", m.File)
	} else {
		fmt.Fprintf(app.Out, "%s: index unchanged\n", m.File)
	}
	if failed {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}

// keepEdit writes a refused edit of file to a new file in the temp dir and returns its path.
func keepEdit(file string, data []byte) (string, error) {
	f, err := os.CreateTemp("", "strata-edit-*-"+filepath.Base(file))
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	return f.Name(), errors.Join(werr, f.Close())
}

func newMemoryLintCmd(app *App) *cobra.Command {
	var f memoryFlags
	var asJSON, fix bool
	c := &cobra.Command{
		Use:   "lint",
		Short: "Check the memory directory; exit 1 on an error",
		Long: `Check the memory directory: broken frontmatter, index lines pointing nowhere, files missing
from the index, the index over the limits the loader cuts at (200 lines, then 25,000 characters), secrets, duplicate names,
temp files of interrupted writes, index lines whose description is not the file's.
Nothing is changed unless --fix is given: it removes the temp files of interrupted writes and
re-indexes from the files every memory missing from the index or with a stale description
(topic files are never changed), then checks again. Exit 1 when an error (not only warnings) is found.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error {
			open := openMemoryStore
			if fix {
				open = openWritableStore
			}
			s, err := open(app, f)
			if err != nil {
				return err
			}
			if fix {
				if err := memoryRepair(c, app, s); err != nil {
					return err
				}
			}
			return memoryLint(c, app, s, asJSON)
		},
	}
	f.register(c)
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	c.Flags().BoolVar(&fix, "fix", false, "remove temp files of interrupted writes, record unrecorded archive files and re-index stale or missing index lines from the files")
	return c
}

// memoryRepair runs memdir.Store.Repair and says on stderr what it did (stdout stays the lint
// report, JSON with --json).
func memoryRepair(c *cobra.Command, app *App, s *memdir.Store) error {
	res, err := s.Repair(c.Context())
	for _, t := range res.Removed {
		fmt.Fprintf(app.Err, "removed %q, the temp file of an interrupted write (%d bytes)\n", t.File, t.Size)
	}
	for _, f := range res.Adopted {
		fmt.Fprintf(app.Err, "recorded %q in the archive log (no record named it; strata memory restore can put it back now)\n", f)
	}
	for _, f := range res.Reindexed {
		fmt.Fprintf(app.Err, "re-indexed %q from the file\n", f)
	}
	if err != nil {
		fmt.Fprintf(app.Err, "strata: %v\n", err) // what could not be fixed; the lint below still runs
	}
	return nil
}

func memoryLint(c *cobra.Command, app *App, s *memdir.Store, asJSON bool) error {
	diags, err := s.Lint(c.Context())
	if err != nil {
		return err
	}
	errs := memdir.Errors(diags)
	if asJSON {
		if diags == nil {
			diags = []memdir.Diagnostic{}
		}
		if err := writeJSON(app.Out, map[string]any{"dir": s.Dir(), "diagnostics": diags, "errors": errs, "warnings": len(diags) - errs}); err != nil {
			return err
		}
	} else {
		for _, d := range diags {
			fmt.Fprintln(app.Out, d)
		}
		if len(diags) == 0 {
			fmt.Fprintf(app.Out, "%s: no problems\n", s.Dir())
		} else {
			fmt.Fprintf(app.Out, "%d error(s), %d warning(s)\n", errs, len(diags)-errs)
		}
	}
	if errs > 0 {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}
