package prompt

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/recall"
)

// recallJob is one turn's recall running in a goroutine the Context owns; done closes when
// res and err are set.
type recallJob struct {
	done   chan struct{}
	cancel context.CancelFunc
	res    recall.Result
	err    error
	taken  bool
}

// StartRecall starts recall for a user message (tools: those the previous turn used); a
// recall still running from an earlier turn is cancelled (its result would be stale). It
// never blocks, and does nothing without a Recaller.
func (c *Context) StartRecall(ctx context.Context, query string, tools []string) {
	if c.opts.Recaller == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.job != nil && !c.job.taken {
		c.job.cancel()
	}
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	job := &recallJob{done: make(chan struct{}), cancel: cancel}
	c.job = job
	turn := recall.Turn{Query: query, Tools: tools, Read: func(p string) bool { _, ok := c.cache.Get(p); return ok }}
	c.wg.Go(func() {
		defer close(job.done)
		defer cancel()
		job.res, job.err = c.opts.Recaller.Recall(jctx, c.opts.Recall, turn)
	})
}

// RecallDone takes a finished recall, if there is one, and queues its memories as an
// attachment. It never waits. ok reports a recall taken (files are the memories it chose,
// err why it failed).
func (c *Context) RecallDone() (files []string, err error, ok bool) {
	c.mu.Lock()
	job := c.job
	c.mu.Unlock()
	if job == nil || job.taken {
		return nil, nil, false
	}
	select {
	case <-job.done:
	default:
		return nil, nil, false
	}
	job.taken = true
	if job.err != nil {
		return nil, job.err, true
	}
	var b strings.Builder
	mounted := false
	for _, m := range job.res.Memories {
		files = append(files, recall.Ref(m.Store, m.File))
		store := ""
		if m.Store != "" {
			store, mounted = fmt.Sprintf(" store=%q", m.Store), true
		}
		fmt.Fprintf(&b, "<memory file=%q name=%q type=%q%s>\n%s\n</memory>\n", m.File, m.Name, m.Type, store, strings.TrimRight(m.Content, "\n"))
		c.RecordInjected(m.Path, m.Content)
	}
	if len(files) > 0 {
		from := "from this project's auto-memory"
		if mounted {
			from = "from this project's auto-memory, and from the shared memory stores named by store="
		}
		c.Queue("recall", "Memories recalled for the user's latest message ("+from+"; they may be outdated, so check claims about code against the files):\n"+b.String())
	}
	return files, nil, true
}

// RecallSession is recall's session (what it surfaced and charged); nil without recall.
func (c *Context) RecallSession() *recall.Session { return c.opts.Recall }

// WaitRecall waits for the running recall, if any, to finish.
func (c *Context) WaitRecall() {
	c.mu.Lock()
	job := c.job
	c.mu.Unlock()
	if job != nil {
		<-job.done
	}
}

// Close cancels a running recall and waits for its goroutine.
func (c *Context) Close() {
	c.mu.Lock()
	if c.job != nil {
		c.job.cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}
