package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/memdir"
)

// inboxFlags are shared by the inbox subcommands.
type inboxFlags struct {
	mem    memoryFlags
	asJSON bool
	all    bool
}

func newMemoryInboxCmd(app *App) *cobra.Command {
	var f inboxFlags
	c := &cobra.Command{
		Use:   "inbox",
		Short: "Review the memories extraction proposed (confirm mode)",
		Long: `With the memoryExtraction setting at "confirm", background extraction does not write memories
directly: it stages each proposal in the memory directory's .inbox/. These commands list the
proposals, show one, accept them (the file becomes a live memory and MEMORY.md is updated; a
live file it replaces is kept in .archive/, and strata memory restore FILE puts it back) or
reject them (moved to .archive/inbox/ with a line in .archive/ARCHIVE.log; nothing is deleted).
Without a subcommand, inbox lists.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return inboxList(c, app, f) },
	}
	f.mem.register(c)
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the proposals as JSON")
	c.AddCommand(newInboxListCmd(app), newInboxShowCmd(app), newInboxDecideCmd(app, true), newInboxDecideCmd(app, false))
	return c
}

func newInboxListCmd(app *App) *cobra.Command {
	var f inboxFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List the proposals waiting for review",
		Args:  noArgs,
		RunE:  func(c *cobra.Command, args []string) error { return inboxList(c, app, f) },
	}
	f.mem.register(c)
	c.Flags().BoolVar(&f.asJSON, "json", false, "print the proposals as JSON")
	return c
}

func inboxList(c *cobra.Command, app *App, f inboxFlags) error {
	s, err := openMemoryStore(app, f.mem)
	if err != nil {
		return err
	}
	staged, err := extract.Inbox(c.Context(), s)
	if err != nil {
		return err
	}
	if f.asJSON {
		if staged == nil {
			staged = []extract.Staged{}
		}
		return writeJSON(app.Out, map[string]any{"dir": s.Dir(), "staged": staged})
	}
	if len(staged) == 0 {
		fmt.Fprintf(app.Out, "no proposals in %s\n", s.Dir()+string(os.PathSeparator)+memdir.InboxDir)
		return nil
	}
	rows := [][]string{{"FILE", "ACTION", "TYPE", "NAME", "DESCRIPTION"}}
	for _, st := range staged {
		action := "new"
		if st.Replaces {
			action = "replaces"
		}
		if st.Problem != "" {
			action = "refused"
		}
		typ := st.Type
		if typ == "" {
			typ = "-"
		}
		rows = append(rows, []string{st.File, action, typ, st.Name, st.Description})
	}
	if err := writeMemoryTable(app.Out, rows); err != nil {
		return err
	}
	for _, st := range staged {
		if st.Problem != "" {
			fmt.Fprintf(app.Err, "strata: %s cannot be accepted: %s\n", st.File, st.Problem)
		}
	}
	return nil
}

func newInboxShowCmd(app *App) *cobra.Command {
	var f inboxFlags
	c := &cobra.Command{
		Use:   "show FILE",
		Short: "Print one proposal as it would be written",
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := openMemoryStore(app, f.mem)
			if err != nil {
				return err
			}
			data, err := extract.ReadStaged(c.Context(), s, args[0])
			if err != nil {
				return err
			}
			name := strings.TrimSuffix(filepath.Base(filepath.ToSlash(args[0])), ".md") + ".md"
			if _, err := os.Lstat(filepath.Join(s.Dir(), name)); err == nil {
				fmt.Fprintf(app.Err, "strata: accepting replaces %s\n", name)
			}
			_, err = app.Out.Write(data)
			return err
		},
	}
	f.mem.register(c)
	return c
}

// inboxOutcome is one line of accept/reject --json.
type inboxOutcome struct {
	File    string `json:"file"`
	Done    bool   `json:"done"`
	Created bool   `json:"created,omitempty"`  // accept: a new memory
	Kept    string `json:"kept,omitempty"`     // accept: where the live file it replaced was kept
	MovedTo string `json:"moved_to,omitempty"` // reject: where the proposal went
	Error   string `json:"error,omitempty"`
}

func newInboxDecideCmd(app *App, accept bool) *cobra.Command {
	var f inboxFlags
	use, short := "accept FILE... | --all", "Make proposals live memories (MEMORY.md updated)"
	if !accept {
		use, short = "reject FILE... | --all", "Move proposals to .archive/inbox/ (logged; nothing deleted)"
	}
	c := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(c *cobra.Command, args []string) error {
			if f.all == (len(args) > 0) {
				return usagef("give the proposals to %s, or --all (not both)", c.Name())
			}
			s, err := openWritableStore(app, f.mem)
			if err != nil {
				return err
			}
			return inboxDecide(c, app, s, f, args, accept)
		},
	}
	f.mem.register(c)
	c.Flags().BoolVar(&f.all, "all", false, "every proposal in the inbox")
	c.Flags().BoolVar(&f.asJSON, "json", false, "print what was done as JSON")
	return c
}

func inboxDecide(c *cobra.Command, app *App, s *memdir.Store, f inboxFlags, files []string, accept bool) error {
	ctx := c.Context()
	if f.all {
		staged, err := extract.Inbox(ctx, s)
		if err != nil {
			return err
		}
		for _, st := range staged {
			files = append(files, st.File)
		}
	}
	out := []inboxOutcome{}
	failed := false
	for _, file := range files {
		o := inboxOutcome{File: file}
		if accept {
			res, err := extract.Accept(ctx, s, file)
			if err == nil {
				o.File, o.Done, o.Created, o.Kept = res.File, true, res.Created, res.Kept
			} else {
				o.Error = err.Error()
			}
		} else {
			to, err := extract.Reject(ctx, s, file)
			if err == nil {
				o.Done, o.MovedTo = true, to
			} else {
				o.Error = err.Error()
			}
		}
		out = append(out, o)
		if !o.Done {
			failed = true
			if !f.asJSON {
				fmt.Fprintf(app.Err, "strata: %s\n", o.Error)
			}
			continue
		}
		if f.asJSON {
			continue
		}
		switch {
		case !accept:
			fmt.Fprintf(app.Out, "rejected %s (moved to %s)\n", o.File, o.MovedTo)
		case o.Created:
			fmt.Fprintf(app.Out, "accepted %s (new memory)\n", o.File)
		case o.Kept != "":
			fmt.Fprintf(app.Out, "accepted %s (replaced the live file, which was kept in %s: strata memory restore %s puts it back)\n", o.File, o.Kept, o.File)
		default:
			fmt.Fprintf(app.Out, "accepted %s (replaced the live file)\n", o.File)
		}
	}
	if f.asJSON {
		if err := writeJSON(app.Out, out); err != nil {
			return err
		}
	} else if len(files) == 0 {
		fmt.Fprintln(app.Out, "no proposals in the inbox")
	}
	if failed {
		return &ExitError{Code: ExitFailure}
	}
	return nil
}
