package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/strata-mem/strata/conversation"

	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/work"
)

// openSession starts a new session or restores the one Options name.
func (a *Agent) openSession(ctx context.Context) error {
	a.sess = &session{work: work.NewState(), warn: a.warn, log: a.log, now: a.now}
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
		a.sess.id = a.opts.SessionID
		if a.sess.id == "" {
			a.sess.id = transcript.NewSessionID()
		}
		return a.openJournal(ctx, transcript.SessionPath(env, a.cwd, a.sess.id), nil)
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
	j, err := transcript.Open(ctx, path, transcript.Options{SessionID: a.sess.id, CWD: a.cwd, Version: version,
		Logger: a.log, Now: a.now, Metadata: meta})
	if err != nil {
		if _, serr := os.Lstat(path); meta == nil && serr != nil && ctx.Err() == nil {
			// A new session whose transcript cannot even be opened: the session goes on
			// unsaved, and says so once.
			a.sess.saveFailed(err)
			return nil
		}
		return fmt.Errorf("agent: transcript: %w", err)
	}
	a.sess.journal = j
	if err := transcript.Probe(path); err != nil {
		a.sess.saveFailed(err)
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
	a.sess.id = sess.ID
	for _, p := range transcript.ProblemLines(sess.Problems, transcript.ShownProblems) {
		a.warn("resume %s: %s", path, p)
	}
	if !slices.ContainsFunc(sess.Chain, func(e *transcript.Entry) bool {
		return e.Type == transcript.TypeUser || e.Type == transcript.TypeAssistant
	}) {
		// Claude Code refuses it too ("No conversation found").
		why := ""
		if n := len(sess.Problems); n > 0 {
			why = fmt.Sprintf(" (%d problems, the first: %s; strata sessions show lists them)", n, sess.Problems[0])
		}
		return fmt.Errorf("%w: %s holds no conversation%s", ErrResumeNotFound, path, why)
	}
	chain, repair, err := sess.History(a.now())
	if err != nil {
		a.warn("resume %s: %v", path, err)
	}
	if err := a.prompt.Restore(chain); err != nil {
		return fmt.Errorf("agent: resume %s: %w", path, err)
	}
	if states := sess.OfType(workStateType); len(states) > 0 {
		last := states[len(states)-1]
		if err := a.sess.work.Restore(last.Content); err != nil {
			a.warn("resume: todos and tasks: %v", err)
		}
		a.sess.lastState = string(last.Content)
	} else if td, ok := sess.LastTodos(); ok {
		if err := a.sess.work.Todos.RestoreFromToolUse(a.sess.id, td.Input); err != nil {
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
	if last, ok := a.prompt.Last(); ok && a.sess.journal != nil {
		a.sess.journal.SetLeaf(last.UUID)
	}
	if repair != nil && a.sess.journal != nil {
		a.sess.message(*repair)
		if err := a.sess.journal.Sync(ctx); err != nil {
			a.warn("transcript %s: %v", path, err)
		}
	}
	return nil
}

// workStateType is the transcript entry type that carries work.State snapshots.
const workStateType = "strata-work-state"

// session is what a session keeps in its transcript: its id, the journal (nil with
// NoTranscript), the working memory (todos and tasks) and whether saving failed.
type session struct {
	id      string
	journal *transcript.Journal
	work    *work.State
	warn    func(format string, args ...any)
	log     *slog.Logger
	now     func() time.Time

	mu        sync.Mutex
	unsaved   bool   // a failure to save the session was reported (saveFailed)
	lastState string // the work state last written
}

func (s *session) path() string {
	if s.journal == nil {
		return ""
	}
	return s.journal.Path()
}

func (s *session) append(e *transcript.Entry) {
	if s.journal == nil {
		return
	}
	if err := s.journal.Append(e); err != nil {
		s.saveFailed(err)
	}
}

// message appends a history entry.
func (s *session) message(e conversation.Entry) {
	if s.journal == nil {
		return
	}
	te, err := transcript.MessageEntry(e)
	if err != nil {
		s.warn("transcript: encode message: %v", err)
		return
	}
	s.append(te)
}

// saveWork writes the todos and tasks when they changed.
func (s *session) saveWork() {
	snap := string(s.work.Snapshot())
	s.mu.Lock()
	same := snap == s.lastState
	s.lastState = snap
	s.mu.Unlock()
	if same || s.journal == nil || !s.journal.Created() {
		return
	}
	s.append(&transcript.Entry{Type: workStateType, Content: json.RawMessage(snap), SessionID: s.id, Timestamp: s.now()})
}

// sync makes the transcript durable up to now, with a context that outlives a cancelled turn.
func (s *session) sync(ctx context.Context) {
	if s.journal == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := s.journal.Sync(sctx); err != nil {
		s.saveFailed(err)
	}
}

// saveFailed reports a failure to save the session: the first becomes a warning, later ones
// (the same cause, every append and flush) are only logged, so the user is told once.
func (s *session) saveFailed(err error) {
	s.mu.Lock()
	told := s.unsaved
	s.unsaved = true
	s.mu.Unlock()
	if told {
		s.log.Warn("agent: transcript", "err", err)
		return
	}
	s.warn("this session is not being saved (it cannot be resumed): %v", err)
}

func (s *session) close(ctx context.Context) error {
	if s.journal == nil {
		return nil
	}
	err := s.journal.Close(ctx)
	s.mu.Lock()
	told := s.unsaved
	s.mu.Unlock()
	switch {
	case err == nil:
		return nil
	case told: // the user knows the session is not saved
		s.log.Warn("agent: close transcript", "err", err)
		return nil
	}
	return fmt.Errorf("agent: close transcript: %w", err)
}
