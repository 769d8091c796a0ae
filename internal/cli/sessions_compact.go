package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/compact"
	"github.com/strata-mem/strata/internal/termtext"
)

type sessionsCompactOptions struct {
	cwd, model string
	asJSON     bool
	latest     bool
}

func newSessionsCompactCmd(app *App) *cobra.Command {
	var o sessionsCompactOptions
	c := &cobra.Command{
		Use:   "compact (ID | --latest) [INSTRUCTIONS]",
		Short: "Compact a session offline, as /compact would",
		Long: `Compact a saved session without opening a chat: the conversation is summarised by the
configured model (or replaced by the session notes when they exist), the user's own messages
are kept verbatim, and a compact boundary and the summary are appended to the transcript, so
the next resume starts from the compacted context. The user's first request and standing
instructions ("from now on", "always", "never", "以后", "不要" …) are kept before the recent
messages. A session that compaction would not make smaller is left as it is and the report
says so (exit status 0; --json: "compacted": false). INSTRUCTIONS say what the summary should
focus on. --latest picks the most recent session of this directory instead of an ID.`,
		Args: rangeArgs(0, 2),
		RunE: func(c *cobra.Command, args []string) error {
			id := ""
			if !o.latest {
				if len(args) == 0 {
					return usagef("give a session ID or --latest")
				}
				id, args = args[0], args[1:]
			}
			if len(args) > 1 {
				return usagef("too many arguments: quote the instructions")
			}
			instr := ""
			if len(args) == 1 {
				instr = args[0]
			}
			return sessionsCompact(cmdCtx(c), app, o, id, instr)
		},
	}
	c.Flags().StringVar(&o.cwd, "cwd", "", "act as if run in this directory (selects the project)")
	c.Flags().StringVar(&o.model, "model", "", "model for the summary (default: the configured one)")
	c.Flags().BoolVar(&o.asJSON, "json", false, "print JSON")
	c.Flags().BoolVar(&o.latest, "latest", false, "compact the most recent session of this directory")
	return c
}

type compactPart struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

type compactReport struct {
	Session string `json:"session"`
	// Compacted is false when the compaction would not have made the context smaller and
	// nothing was written (Note says why).
	Compacted    bool          `json:"compacted"`
	Note         string        `json:"note,omitempty"`
	Method       string        `json:"method"`
	PreTokens    int           `json:"pre_tokens"`
	PostTokens   int           `json:"post_tokens"`
	Calls        int           `json:"calls"`
	UserMessages int           `json:"user_messages"`
	UserOmitted  int           `json:"user_omitted"`
	Files        []string      `json:"files"`
	Parts        []compactPart `json:"parts"`
}

func sessionsCompact(ctx context.Context, app *App, o sessionsCompactOptions, id, instr string) error {
	dir, err := app.workDir(o.cwd)
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	a, _, err := newAgent(ctx, app, dir, runOptions{resume: id, cont: o.latest, model: o.model, cwd: o.cwd}, nil)
	if err != nil {
		return err
	}
	r, cerr := a.Compact(ctx, instr)
	if err := a.Close(context.WithoutCancel(ctx)); err != nil && cerr == nil {
		cerr = err
	}
	var ns *compact.NotSmallerError
	if errors.As(cerr, &ns) {
		// Not a failure: the session is left as it is, and the report says why.
		rep := compactReport{Session: a.SessionID(), Note: ns.Error(), PreTokens: ns.Pre, PostTokens: ns.Post, Files: []string{}, Parts: []compactPart{}}
		if o.asJSON {
			return writeJSON(app.Out, rep)
		}
		fmt.Fprintf(app.Out, "Session %s not compacted: %s; nothing was written.\n", rep.Session, notCompacted(ns))
		return nil
	}
	if cerr != nil {
		fmt.Fprintf(app.Err, "strata: %s\n", termtext.Line(cerr.Error()))
		return &ExitError{Code: ExitFailure}
	}
	rep := compactReport{Session: a.SessionID(), Compacted: true, Note: r.Note, Method: string(r.Method), PreTokens: r.PreTokens, PostTokens: r.PostTokens,
		Calls: r.Calls, UserMessages: len(r.UserMessages), UserOmitted: r.UserOmitted, Files: r.Files, Parts: []compactPart{}}
	if rep.Files == nil {
		rep.Files = []string{}
	}
	for _, p := range r.Parts {
		rep.Parts = append(rep.Parts, compactPart{From: p.From, To: p.To, Count: p.Count})
	}
	if o.asJSON {
		return writeJSON(app.Out, rep)
	}
	fmt.Fprintf(app.Out, "Compacted session %s (%s): about %d tokens before, %d after; %s kept verbatim (%d left out), %s re-read, %s.\n",
		rep.Session, rep.Method, rep.PreTokens, rep.PostTokens, count(rep.UserMessages, "user message"), rep.UserOmitted, count(len(rep.Files), "file"), count(rep.Calls, "model call"))
	if rep.Note != "" {
		fmt.Fprintln(app.Out, termtext.Line(rep.Note))
	}
	return nil
}

// notCompacted says why a compaction was refused, for sessions compact and /compact.
func notCompacted(ns *compact.NotSmallerError) string {
	if ns.Post < ns.Pre {
		return fmt.Sprintf("the conversation is about %d tokens, and a compacted one would be about %d, less than %d%% smaller",
			ns.Pre, ns.Post, compact.MinGainPercent)
	}
	return fmt.Sprintf("the conversation is about %d tokens, and a compacted one would be at least %d", ns.Pre, ns.Post)
}
