package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func init() { registerIn("sessions", newSessionsCompactCmd) }

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
the next resume starts from the compacted context. INSTRUCTIONS say what the summary should
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
	Session      string        `json:"session"`
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
	if cerr != nil {
		fmt.Fprintf(app.Err, "strata: %v\n", cerr)
		return &ExitError{Code: ExitFailure}
	}
	rep := compactReport{Session: a.SessionID(), Method: string(r.Method), PreTokens: r.PreTokens, PostTokens: r.PostTokens,
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
	fmt.Fprintf(app.Out, "Compacted session %s (%s): about %d tokens before, %d after; %d user messages kept verbatim (%d left out), %d files re-read, %d model calls.\n",
		rep.Session, rep.Method, rep.PreTokens, rep.PostTokens, rep.UserMessages, rep.UserOmitted, len(rep.Files), rep.Calls)
	return nil
}
