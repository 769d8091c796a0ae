package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/conversation"
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
	if err := probeSave(path); err != nil {
		a.saveFailed(err)
	}
	return nil
}

// probeSave tells, before anything is written, whether the transcript at path could be
// created: the nearest existing directory on its way must take a new file (tried with a temp
// file, removed at once). Nothing else is created, so a session without messages leaves no
// trace; an existing transcript is not probed (opening it for appending already worked).
func probeSave(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	dir := filepath.Dir(path)
	for {
		fi, err := os.Stat(dir)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("transcript: %s is not a directory", dir)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("transcript: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return fmt.Errorf("transcript: %w", err)
		}
		dir = parent
	}
	f, err := os.CreateTemp(dir, ".strata-probe-*")
	if err != nil {
		return fmt.Errorf("transcript: cannot create files in %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
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
	chain, repair, err := resumeChain(sess, a.now())
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
	var states []conversation.FileState
	for _, tu := range sess.ToolUses("Read", "Write", "Edit") {
		if tu.Result == nil || tu.IsError {
			continue
		}
		st, ok, err := conversation.FileStateFromToolUse(tu.Name, tu.Input, tu.Result.Timestamp)
		if err != nil || !ok {
			continue
		}
		states = append([]conversation.FileState{st}, states...) // most recent first
	}
	skipped, err := a.prompt.Cache().Restore(ctx, states)
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

// resumeChain builds the history a resume of sess continues: the live part of its chain
// (historyFrom), plus, when the session ended inside tool calls (a crash between a call and
// its result), an entry answering them as interrupted, returned as repair too so that it is
// written to the transcript. Whatever else is inconsistent is repaired in each request
// (checked). err reports entries that could not be decoded; the rest is returned.
func resumeChain(sess *transcript.Session, now time.Time) (chain []conversation.Entry, repair *conversation.Entry, err error) {
	chain, err = historyFrom(sess.Live())
	msgs := make([]conversation.Message, len(chain))
	for i, e := range chain {
		msgs[i] = e.Message
	}
	if open := conversation.OpenCalls(msgs); len(open) > 0 {
		e := conversation.Entry{UUID: newID(), ParentUUID: chain[len(chain)-1].UUID, Timestamp: now,
			Message: interruptedResults(open, "the session ended before this tool call finished")}
		chain = append(chain, e)
		repair = &e
	}
	return chain, repair, err
}

// historyFrom turns transcript entries into history entries, one per transcript.Turns message
// (the assistant lines of one reply merged as Claude Code merges them), each with the uuid of
// its newest line, parents relinked so the chain is contiguous.
func historyFrom(entries []*transcript.Entry) ([]conversation.Entry, error) {
	turns, err := transcript.Turns(entries)
	out := make([]conversation.Entry, 0, len(turns))
	for _, t := range turns {
		if len(t.Content) == 0 {
			continue
		}
		last := t.Last()
		ce := conversation.Entry{UUID: last.UUID, Timestamp: last.Timestamp, IsMeta: t.Entries[0].IsMeta, Message: t.Message}
		if len(t.Entries) == 1 {
			ce.Provenance = last.InputProvenance()
		}
		for _, e := range t.Entries {
			if u := e.Usage(); u != nil {
				ce.Usage = u // each line of a reply repeats its usage; the last is final
			}
		}
		if len(out) > 0 {
			ce.ParentUUID = out[len(out)-1].UUID
		}
		out = append(out, ce)
	}
	return out, err
}

// interruptedResults is the user message answering calls that never ran to the end.
func interruptedResults(calls []conversation.Block, why string) conversation.Message {
	m := conversation.Message{Role: conversation.User}
	for _, c := range calls {
		m.Content = append(m.Content, conversation.Interrupted(c, "Interrupted: "+why+". The tool call did not complete; its effects, if any, are unknown."))
	}
	return m
}

func newID() string { return transcript.NewSessionID() }
