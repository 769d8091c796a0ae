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

// recallDone takes a finished recall, if there is one (its attachment is queued), and
// reports it. It never waits.
func (a *Agent) recallDone(sink Sink, turn int) bool {
	files, err, ok := a.prompt.RecallDone()
	switch {
	case !ok:
		return false
	case err != nil:
		if err != context.Canceled {
			a.warn("recall: %v", err)
		}
		sink(Event{Kind: EventRecall, Turn: turn, Err: err})
		return false
	}
	sink(Event{Kind: EventRecall, Turn: turn, Memories: files})
	return len(files) > 0
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
