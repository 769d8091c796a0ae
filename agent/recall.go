package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/recall"
)

// recallJob is one turn's recall running in a goroutine the Agent owns; done closes when res
// and err are set.
type recallJob struct {
	done   chan struct{}
	cancel context.CancelFunc
	res    recall.Result
	err    error
	taken  bool
}

// startRecall starts recall for a user message; a recall still running from an earlier turn
// is cancelled (its result would be stale). It never blocks.
func (a *Agent) startRecall(ctx context.Context, query string, tools []string) {
	if a.recaller == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.job != nil && !a.job.taken {
		a.job.cancel()
	}
	jctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	job := &recallJob{done: make(chan struct{}), cancel: cancel}
	a.job = job
	turn := recall.Turn{Query: query, Tools: tools, Read: func(p string) bool { _, ok := a.prompt.Cache().Get(p); return ok }}
	a.wg.Go(func() {
		defer close(job.done)
		defer cancel()
		job.res, job.err = a.recaller.Recall(jctx, a.recallS, turn)
	})
}

// recallDone takes a finished recall, if there is one, and queues its attachment. It never
// waits.
func (a *Agent) recallDone(sink Sink, turn int) bool {
	a.mu.Lock()
	job := a.job
	a.mu.Unlock()
	if job == nil || job.taken {
		return false
	}
	select {
	case <-job.done:
	default:
		return false
	}
	job.taken = true
	if job.err != nil {
		if job.err != context.Canceled {
			a.warn("recall: %v", job.err)
		}
		sink(Event{Kind: EventRecall, Turn: turn, Err: job.err})
		return false
	}
	var files []string
	var b strings.Builder
	mounted := false
	for _, m := range job.res.Memories {
		files = append(files, recall.Ref(m.Store, m.File))
		store := ""
		if m.Store != "" {
			store, mounted = fmt.Sprintf(" store=%q", m.Store), true
		}
		fmt.Fprintf(&b, "<memory file=%q name=%q type=%q%s>\n%s\n</memory>\n", m.File, m.Name, m.Type, store, strings.TrimRight(m.Content, "\n"))
		a.prompt.RecordInjected(m.Path, m.Content)
	}
	sink(Event{Kind: EventRecall, Turn: turn, Memories: files})
	if len(files) == 0 {
		return false
	}
	from := "from this project's auto-memory"
	if mounted {
		from = "from this project's auto-memory, and from the shared memory stores named by store="
	}
	text := "Memories recalled for the user's latest message (" + from + "; they may be outdated, so check claims about code against the files):\n" + b.String()
	a.prompt.Queue("recall", text)
	return true
}

// ModelSelector is a recall.Selector that asks a (small) model to pick from the lexical
// shortlist with structured JSON output. It returns at most max names, only names on the
// shortlist, without repeats. When the model call fails it falls back to the lexical order
// and logs why, so recall works without a model.
type ModelSelector struct {
	Provider llm.Provider
	Model    string
	Logger   *slog.Logger
}

const selectorPrompt = `You pick memories for an AI coding agent. Given the user's message and a list of memory files (one per line: type, file name, date, description), choose the files that will clearly help the agent answer this message. Choose none when none clearly helps. Prefer specific matches over general ones; skip files whose description does not relate to the message. Reply with JSON only: {"selected": ["file.md", ...]} listing at most %d file names exactly as given, best first.`

var selectorSchema = json.RawMessage(`{"type":"object","properties":{"selected":{"type":"array","items":{"type":"string"}}},"required":["selected"],"additionalProperties":false}`)

// Select implements recall.Selector.
func (s *ModelSelector) Select(ctx context.Context, query string, shortlist []recall.Candidate, max int) ([]string, error) {
	if len(shortlist) == 0 || max <= 0 {
		return nil, nil
	}
	req := &llm.Request{
		Model:     s.Model,
		System:    []llm.SystemBlock{{Text: fmt.Sprintf(selectorPrompt, max)}},
		Messages:  []conversation.Message{conversation.NewText(conversation.User, "User message:\n"+query+"\n\nMemory files:\n"+recall.ManifestOf(shortlist))},
		MaxTokens: 512,
		Output:    &llm.Schema{Name: "select_memories", Description: "The memory files to show the agent", Schema: selectorSchema},
	}
	resp, err := llm.Complete(ctx, s.Provider, req)
	if err == nil {
		var out struct {
			Selected []string `json:"selected"`
		}
		if err = json.Unmarshal(resp.Structured, &out); err == nil {
			return pick(out.Selected, shortlist, max), nil
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if s.Logger != nil {
		s.Logger.Warn("agent: recall selector failed; using the lexical order", "err", err)
	}
	return recall.Lexical{}.Select(ctx, query, shortlist, max)
}

// pick keeps the names that are on the shortlist, once each, at most max.
func pick(names []string, shortlist []recall.Candidate, max int) []string {
	known := map[string]bool{}
	for _, c := range shortlist {
		known[c.File] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if !known[n] || seen[n] || len(out) == max {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}
