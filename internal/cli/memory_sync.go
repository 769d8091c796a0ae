package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/memsync"
	"github.com/strata-mem/strata/workspace"
)

// Exit codes of strata memory sync besides ExitOK, ExitFailure and ExitUsage.
const (
	// ExitSyncOffline: the upstream could not be reached (or refused the push); local changes
	// are committed and the next sync retries.
	ExitSyncOffline = 3
	// ExitSyncHeldBack: synced, but some changed files look like they hold a secret and were
	// not shared.
	ExitSyncHeldBack = 4
)

type memorySyncOptions struct {
	mem    memoryFlags
	asJSON bool
}

func newMemorySyncCmd(app *App) *cobra.Command {
	var o memorySyncOptions
	c := &cobra.Command{
		Use:   "sync",
		Short: "Share a memory store through git: commit, fetch, merge memory by memory, push",
		Long: `Sync a memory store (--store NAME, a mounted writable store; --memory-dir DIR; default the
project's) that is a git work tree with an upstream branch (a clone of a team's store
repository): commit the local changes (one commit per frontmatter author, the git
user for the rest), fetch, merge the upstream memory by memory, and push.

The merge is not textual. A memory only one side changed takes that side's version; when both
changed the same memory differently, yours stays and theirs is kept as a proposal in .inbox/,
named after who made it (see "strata memory inbox"); an edit against a forget keeps the edit;
an archive on one side is an archive on the other; MEMORY.md is rebuilt from the merged files.
No edit is lost. A changed file that looks like it holds a secret is never committed or pushed
(it is reported with its line). Git runs with hooks and configured programs off and never
prompts. Progress goes to stderr.

Exit status: 0 in sync; 1 an error (nothing pushed); 3 the upstream could not be reached —
local changes are committed, run the sync again later; 4 synced, but files holding what looks
like a secret were held back.`,
		Args: noArgs,
		RunE: func(c *cobra.Command, args []string) error { return memorySync(c.Context(), app, o) },
	}
	o.mem.register(c)
	c.Flags().BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	return c
}

func memorySync(ctx context.Context, app *App, o memorySyncOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ws, err := openMemoryWorkspace(app, o.mem)
	if err != nil {
		return err
	}
	store, err := storeOf(ws, o.mem, true) // a sync writes the upstream's changes into the store
	if err != nil {
		return err
	}
	dir := store.Dir()
	opts := memsync.Options{Store: ws.MemdirOptions(), Progress: func(line string) {
		fmt.Fprintf(app.Err, "strata: sync: %s\n", termtext.Line(line))
	}}
	rep, err := memsync.Sync(ctx, dir, opts)
	if o.asJSON {
		out := struct {
			memsync.Report
			Error string `json:"error,omitempty"`
		}{Report: rep}
		if err != nil {
			out.Error = err.Error()
		}
		if werr := writeJSON(app.Out, out); werr != nil {
			return werr
		}
		if err != nil {
			return &ExitError{Code: ExitFailure}
		}
	} else {
		printSyncReport(app, rep, err)
		if err != nil {
			if errors.Is(err, memsync.ErrNoGit) {
				return &ExitError{Code: ExitFailure, Err: err}
			}
			return &ExitError{Code: ExitFailure, Err: errors.New(termtext.Line(err.Error()))}
		}
	}
	switch {
	case rep.Offline:
		return &ExitError{Code: ExitSyncOffline}
	case len(rep.HeldBack) > 0:
		return &ExitError{Code: ExitSyncHeldBack}
	}
	return nil
}

// printSyncReport says what a sync did, one line a fact; names come from files and other
// people's commits, so every line goes through termtext.
func printSyncReport(app *App, rep memsync.Report, err error) {
	say := func(w interface{ Write([]byte) (int, error) }, format string, args ...any) {
		fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, args...)))
	}
	for _, c := range rep.Committed {
		who := "you"
		if c.Author != "" {
			who = c.Author
		}
		say(app.Out, "committed %d file(s) by %s (%s)", len(c.Files), who, short(c.ID))
	}
	switch {
	case rep.FastForward:
		say(app.Out, "updated from %s: %d file(s) changed", rep.Upstream, len(rep.Updated))
	case rep.Merge != "":
		say(app.Out, "merged %s (%s): %d file(s) changed", rep.Upstream, short(rep.Merge), len(rep.Updated))
	}
	for _, k := range rep.Conflicts {
		switch k.Kind {
		case memsync.KindBothEdited:
			say(app.Out, "conflict: %s was changed here and by %s; yours is kept, theirs is the proposal %s (strata memory inbox show %s)", k.File, k.Origin, k.Proposal, strings.TrimPrefix(k.Proposal, ".inbox/"))
		case memsync.KindEditOverForget:
			say(app.Out, "conflict: %s was forgotten on one side and edited on the other (by %s); the edit is kept", k.File, k.Origin)
		case memsync.KindHeldBack:
			say(app.Out, "conflict: %s has an unshared local change and was changed by %s; theirs is also kept as %s", k.File, k.Origin, k.Proposal)
		case memsync.KindIndexText:
			say(app.Out, "conflict: the hand-written lines of %s changed on both sides; yours are kept (theirs are in the merge's history)", k.File)
		}
	}
	for _, p := range rep.IndexProblems {
		say(app.Err, "strata: warning: MEMORY.md: %s", p)
	}
	for _, h := range rep.HeldBack {
		say(app.Err, "strata: not shared: %s (fix it and sync again)", h)
	}
	for _, s := range rep.Skipped {
		say(app.Err, "strata: not shared: %s: %s", s.File, s.Reason)
	}
	switch {
	case rep.Offline:
		say(app.Err, "strata: %s could not be reached: %s", rep.Upstream, rep.UpstreamError)
		switch {
		case err != nil:
			say(app.Out, "offline, and local changes are not committed (see the error)")
		case len(rep.Committed) > 0:
			say(app.Out, "offline: local changes are committed; they are pushed by the next sync")
		default:
			say(app.Out, "offline: no new local changes; commits not yet pushed go with the next sync")
		}
	case err != nil && rep.UpstreamError != "":
		say(app.Err, "strata: git said: %s", rep.UpstreamError)
	case rep.Pushed && len(rep.Committed) == 0 && rep.Merge == "" && !rep.FastForward:
		say(app.Out, "in sync with %s", rep.Upstream)
	case rep.Pushed:
		say(app.Out, "in sync with %s (%s)", rep.Upstream, short(rep.Head))
	}
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// storeSync returns the background sync of a session's mounted stores that are git clones
// (writable, existing, with .git at their top), or nil when there is none: the agent syncs them
// at session start and after it or the extractor writes to them.
func storeSync(ws *workspace.Workspace) agent.StoreSync {
	var dirs []string
	for _, ns := range ws.MountedStores() {
		if ns.Synced() {
			dirs = append(dirs, ns.Dir)
		}
	}
	if len(dirs) == 0 {
		return nil
	}
	return memsync.NewBackground(memsync.BackgroundOptions{Dirs: dirs, Options: memsync.Options{Store: ws.MemdirOptions()}})
}
