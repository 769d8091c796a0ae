package agent

import (
	"context"
	"fmt"
	"os"

	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/work"
)

// openSession starts a new session or restores the one Options name.
func (a *Agent) openSession(ctx context.Context) error {
	env := a.opts.Workspace.Env()
	var path string
	switch {
	case a.opts.Resume != "":
		p, err := transcript.Find(env.ProjectsDir(), transcript.ProjectDir(env, a.cwd), a.opts.Resume)
		if err != nil {
			return fmt.Errorf("agent: resume %s: %w", a.opts.Resume, err)
		}
		path = p
	case a.opts.Continue:
		infos, err := transcript.List(ctx, transcript.ProjectDir(env, a.cwd), transcript.ListOptions{})
		if err != nil && len(infos) == 0 {
			return fmt.Errorf("agent: continue: %w", err)
		}
		if len(infos) == 0 {
			return fmt.Errorf("%w: no session was started in %s yet", ErrResumeNotFound, a.cwd)
		}
		path = infos[0].Path
	}
	if path == "" {
		a.sessionID = a.opts.SessionID
		if a.sessionID == "" {
			a.sessionID = transcript.NewSessionID()
		}
		a.work = work.NewState()
		return a.openJournal(ctx, transcript.SessionPath(env, a.cwd, a.sessionID), nil)
	}
	return a.restore(ctx, path)
}

func (a *Agent) openJournal(ctx context.Context, path string, meta []*transcript.Entry) error {
	if a.opts.NoTranscript {
		return nil
	}
	version := "strata"
	if a.opts.Version != "" {
		version += " " + a.opts.Version
	}
	j, err := transcript.Open(ctx, path, transcript.Options{SessionID: a.sessionID, CWD: a.cwd, Version: version,
		Logger: a.log, Now: a.now, Metadata: meta})
	if err != nil {
		if _, serr := os.Lstat(path); meta == nil && serr != nil && ctx.Err() == nil {
			// A new session whose transcript cannot even be opened: the session goes on
			// unsaved, and says so once.
			a.saveFailed(err)
			return nil
		}
		return fmt.Errorf("agent: transcript: %w", err)
	}
	a.journal = j
	if err := transcript.Probe(path); err != nil {
		a.saveFailed(err)
	}
	return nil
}

// restore loads the transcript at path and rebuilds the conversation, working memory and read
// cache from it; the journal then appends to the same file.
func (a *Agent) restore(ctx context.Context, path string) error {
	sess, err := transcript.Load(ctx, path, transcript.ReadOptions{Logger: a.log})
	if err != nil {
		return fmt.Errorf("agent: resume: %w", err)
	}
	a.sessionID = sess.ID
	for _, p := range transcript.ProblemLines(sess.Problems, transcript.ShownProblems) {
		a.warn("resume %s: %s", path, p)
	}
	chain, repair, err := sess.History(a.now())
	if err != nil {
		a.warn("resume %s: %v", path, err)
	}
	if err := a.prompt.Restore(chain); err != nil {
		return fmt.Errorf("agent: resume %s: %w", path, err)
	}
	a.work = work.NewState()
	if states := sess.OfType(workStateType); len(states) > 0 {
		last := states[len(states)-1]
		if err := a.work.Restore(last.Content); err != nil {
			a.warn("resume: todos and tasks: %v", err)
		}
		a.lastState = string(last.Content)
	} else if td, ok := sess.LastTodos(); ok {
		if err := a.work.Todos.RestoreFromToolUse(a.sessionID, td.Input); err != nil {
			a.warn("resume: todos: %v", err)
		}
	}
	skipped, err := a.prompt.Cache().Restore(ctx, sess.FileStates())
	if err != nil {
		return fmt.Errorf("agent: resume: %w", err)
	}
	for _, s := range skipped {
		a.log.Debug("agent: resume: read cache skipped", "path", s.Path, "reason", s.Reason)
	}
	if err := a.openJournal(ctx, path, sess.Meta.List()); err != nil {
		return err
	}
	if last, ok := a.prompt.Last(); ok && a.journal != nil {
		a.journal.SetLeaf(last.UUID)
	}
	if repair != nil && a.journal != nil {
		a.journalMessage(*repair)
		if err := a.journal.Sync(ctx); err != nil {
			a.warn("transcript %s: %v", path, err)
		}
	}
	return nil
}
