package conversation

import (
	"sync"

	"github.com/strata-mem/strata/tokens"
)

// ImageTokens is the estimate for one image block: Anthropic bills about width*height/750
// tokens and scales images down to about 1.15 megapixels, which gives roughly 1,600.
const ImageTokens = 1600

// EstimateTokens estimates what m costs in the context window with tokens.Estimate: text,
// thinking, a tool call's name and input, tool results (recursively), and ImageTokens per image.
// Signatures and ids are not counted.
func EstimateTokens(m Message) int { return estimateBlocks(m.Content) }

// EstimateMessages is the sum of EstimateTokens over ms.
func EstimateMessages(ms ...Message) int {
	n := 0
	for _, m := range ms {
		n += EstimateTokens(m)
	}
	return n
}

func estimateBlocks(bs []Block) int {
	n := 0
	for _, b := range bs {
		switch b.Type {
		case Text:
			n += tokens.Estimate(b.Text)
		case Thinking:
			n += tokens.Estimate(b.Thinking)
		case ToolUse:
			n += tokens.Estimate(b.Name) + tokens.EstimateBytes(b.Input)
		case ToolResult:
			n += estimateBlocks(b.Content)
		case Image:
			n += ImageTokens
		default:
			n += tokens.Estimate(b.Text)
		}
	}
	return n
}

// Usage is what a provider reports for one request, in Anthropic's terms and JSON shape (the
// one Claude Code stores under message.usage). InputTokens counts only uncached input, so the
// whole prompt is InputTokens + CacheCreationInputTokens + CacheReadInputTokens (OpenAI's
// prompt_tokens are split that way too). It is the one usage type of strata: llm.Usage is an
// alias of it.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// PromptTokens is the whole prompt's size: uncached, written and read input together.
func (u Usage) PromptTokens() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// Total is the size of the context after the request: everything sent (uncached, read from the
// cache, written to the cache) plus the reply.
func (u Usage) Total() int { return u.PromptTokens() + u.OutputTokens }

// Reported reports whether u holds any figure. A provider that reports no usage (some
// OpenAI-compatible servers) leaves it zero; such a usage is not recorded and the context size
// is estimated instead.
func (u Usage) Reported() bool { return u.Total() > 0 }

// Add returns the sum of two usages, for totals over several calls.
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:              u.InputTokens + o.InputTokens,
		OutputTokens:             u.OutputTokens + o.OutputTokens,
		CacheCreationInputTokens: u.CacheCreationInputTokens + o.CacheCreationInputTokens,
		CacheReadInputTokens:     u.CacheReadInputTokens + o.CacheReadInputTokens,
	}
}

// Accountant tracks the current size of the context in tokens: the provider's reported usage for
// the last request (exact) plus an estimate for every message appended since (the next user
// message, tool results, injected attachments). Safe for concurrent use; the zero value is ready.
type Accountant struct {
	mu        sync.Mutex
	reported  int
	estimated int
}

// Observe records the usage of the response just received; it replaces all earlier figures.
// The response message itself must not be Added afterwards: its tokens are the usage's output.
// A usage that reports nothing (Reported is false) is ignored: the estimate stands.
func (a *Accountant) Observe(u Usage) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.observe(u)
}

// observe is Observe for a caller holding a.mu; it reports whether u was taken.
func (a *Accountant) observe(u Usage) bool {
	if !u.Reported() {
		return false
	}
	a.reported, a.estimated = u.Total(), 0
	return true
}

// Add adds the estimate of messages appended to the conversation since the last Observe.
func (a *Accountant) Add(ms ...Message) {
	n := EstimateMessages(ms...)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.estimated += n
}

// AddTokens adds n estimated tokens (for text that is not a Message, such as a system reminder).
func (a *Accountant) AddTokens(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.estimated += n
}

// Reset forgets the reported usage and starts from an estimate of ms, as after compaction, when
// no request has been sent with the new history yet.
func (a *Accountant) Reset(ms ...Message) {
	n := EstimateMessages(ms...)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.reported, a.estimated = 0, n
}

// Append records entries appended to the chain, in order: an entry that carries the
// provider's usage (the assistant reply it reported) is Observed, replacing every earlier
// figure, and its own message is not counted again (the usage's output covers it); any other
// entry adds its estimate.
func (a *Accountant) Append(es ...Entry) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range es {
		if e.Usage == nil || !a.observe(*e.Usage) {
			a.estimated += EstimateTokens(e.Message)
		}
	}
}

// Tokens returns the current context size: reported usage plus the estimate since.
func (a *Accountant) Tokens() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.reported + a.estimated
}

// Estimated returns only the estimated part of Tokens (what was appended since the last usage).
func (a *Accountant) Estimated() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.estimated
}

// ContextTokens computes what an Accountant would hold for a chain (Append of every entry):
// the usage of the last entry that carries one, plus the estimate of the entries after it; the
// estimate of all entries when none carries a usage (a fresh or just-compacted chain).
func ContextTokens(entries []Entry) int {
	var a Accountant
	a.Append(entries...)
	return a.Tokens()
}

// EstimateEntries is the estimate of the entries' messages, ignoring any reported usage: the
// size of a part of a chain (the tail a compaction keeps) rather than of a whole context.
func EstimateEntries(entries []Entry) int {
	n := 0
	for _, e := range entries {
		n += EstimateTokens(e.Message)
	}
	return n
}
