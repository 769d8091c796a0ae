package compact

import (
	"context"
	"fmt"
	"strings"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tokens"
)

// Sections are the fixed headings every model summary has, in order.
var Sections = []string{
	"Primary request and intent",
	"Key technical concepts",
	"Files and code",
	"Errors and fixes",
	"Problem solving",
	"All user messages",
	"Standing instructions",
	"Pending tasks",
	"Current work",
	"Next step",
}

const summarySystem = `You condense a coding session so that work can continue in a fresh context window without losing the task. You write for the same assistant that will carry on: be concrete, keep file paths, function names, commands, error messages and decisions; drop chit-chat. Never invent facts that are not in the material.`

func sectionList() string {
	var b strings.Builder
	for i, s := range Sections {
		fmt.Fprintf(&b, "%d. %s\n", i+1, s)
	}
	return b.String()
}

func finalPrompt(extra string) string {
	p := "Write a summary of the conversation above with exactly these numbered sections, each as a markdown heading:\n" +
		sectionList() +
		"Under \"All user messages\" list every message the user wrote (not tool results), in order, briefly. Under \"Standing instructions\" quote verbatim every instruction of the user that should keep applying for the rest of the session — rules, preferences, constraints, also those not worded with \"always\" or \"never\" — or write \"none\". Under \"Current work\" say precisely what was being done just before this summary, and under \"Next step\" the single next action, quoting the user's latest request where it applies. Reply with the summary only."
	if extra = strings.TrimSpace(extra); extra != "" {
		p += "\n\nAdditional instructions from the user for this summary:\n" + extra
	}
	return p
}

const chunkPrompt = "The material above is one slice of a longer session (the range is given in its header). Summarise this slice only, under the same numbered sections, keeping every user request, file path, decision and unresolved problem it contains; another pass will merge the slices. Reply with the summary only."

const rollupPrompt = "The material above is a series of partial summaries of consecutive slices of one session, oldest first. Merge them into one summary with the same numbered sections; where slices disagree, the later one wins. Reply with the summary only."

// Part is one summary and the range of messages it covers: From and To are the uuids of the
// first and last history entry, Count how many entries. Level 0 parts summarise messages;
// higher levels summarise the parts below them.
type Part struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
	Level int    `json:"level"`
	Text  string `json:"text"`
}

// Summary is the outcome of Summarize.
type Summary struct {
	// Text is the final summary.
	Text string
	// Parts are the level-0 chunk summaries, oldest first; nil when one call sufficed.
	// Together they cover the summarised entries exactly once, in order.
	Parts []Part
	// Calls is the number of model calls made.
	Calls int
}

// SummaryOptions configure Summarize.
type SummaryOptions struct {
	// Window is the summarising model's context window in tokens (required).
	Window int
	// MaxTokens caps each summary reply (default 8000, at most a quarter of Window).
	MaxTokens int
	// Instructions are the user's /compact instructions, added to the final call.
	Instructions string
	// Model overrides the provider's configured model ("" keeps it).
	Model string
}

func (o SummaryOptions) maxTokens() int {
	m := o.MaxTokens
	if m <= 0 {
		m = 8000
	}
	return max(min(m, o.Window/4), 256)
}

// inputBudget is how many tokens of material one call may carry: the window minus the reply,
// the prompts, and a fifth of slack because the estimate is only an estimate.
func (o SummaryOptions) inputBudget() int {
	b := (o.Window - o.maxTokens() - 1500) * 4 / 5
	return max(b, 512)
}

// item is one rendered unit of material: an entry or a lower-level part.
type item struct {
	from, to string
	count    int
	text     string
	tokens   int
}

// Summarize asks the model for a summary of entries (meta entries are skipped). When the
// material does not fit one call, it summarises consecutive chunks and rolls their summaries
// up, as many levels as needed.
func Summarize(ctx context.Context, p llm.Provider, entries []conversation.Entry, o SummaryOptions) (Summary, error) {
	if o.Window <= 0 {
		return Summary{}, fmt.Errorf("compact: summarize: no context window given")
	}
	budget := o.inputBudget()
	var items []item
	for _, e := range entries {
		if e.IsMeta {
			continue
		}
		t := clip(renderEntry(e), budget)
		items = append(items, item{from: e.UUID, to: e.UUID, count: 1, text: t, tokens: tokens.Estimate(t)})
	}
	if len(items) == 0 {
		return Summary{}, fmt.Errorf("compact: summarize: nothing to summarise")
	}
	var s Summary
	level := 0
	for {
		chunks := split(items, budget)
		if len(chunks) == 1 {
			prompt := finalPrompt(o.Instructions)
			if level > 0 {
				prompt = rollupPrompt + "\n\n" + prompt
			}
			text, err := call(ctx, p, o, chunks[0], prompt)
			s.Calls++
			if err != nil {
				return s, err
			}
			s.Text = text
			return s, nil
		}
		next := make([]item, 0, len(chunks))
		for _, c := range chunks {
			prompt := chunkPrompt
			if level > 0 {
				prompt = rollupPrompt + "\n" + chunkPrompt
			}
			text, err := call(ctx, p, o, c, prompt)
			s.Calls++
			if err != nil {
				return s, err
			}
			part := Part{From: c[0].from, To: c[len(c)-1].to, Level: level, Text: text}
			for _, it := range c {
				part.Count += it.count
			}
			if level == 0 {
				s.Parts = append(s.Parts, part)
			}
			rendered := fmt.Sprintf("<summary from=%q to=%q messages=%d>\n%s\n</summary>", part.From, part.To, part.Count, clip(text, budget/2))
			next = append(next, item{from: part.From, to: part.To, count: part.Count, text: rendered, tokens: tokens.Estimate(rendered)})
		}
		if len(next) >= len(items) {
			return s, fmt.Errorf("compact: summarize: summaries do not shrink (%d items at level %d)", len(items), level)
		}
		items = next
		level++
	}
}

// split groups consecutive items into chunks of at most budget tokens (an item larger than the
// budget is alone in its chunk; items are clipped beforehand so that cannot happen).
func split(items []item, budget int) [][]item {
	var chunks [][]item
	var cur []item
	used := 0
	for _, it := range items {
		if len(cur) > 0 && used+it.tokens > budget {
			chunks = append(chunks, cur)
			cur, used = nil, 0
		}
		cur = append(cur, it)
		used += it.tokens
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

func call(ctx context.Context, p llm.Provider, o SummaryOptions, chunk []item, prompt string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "<conversation from=%q to=%q>\n", chunk[0].from, chunk[len(chunk)-1].to)
	for _, it := range chunk {
		b.WriteString(it.text)
		b.WriteString("\n\n")
	}
	b.WriteString("</conversation>\n\n")
	b.WriteString(prompt)
	req := &llm.Request{
		Model:     o.Model,
		System:    []llm.SystemBlock{{Text: summarySystem}},
		Messages:  []conversation.Message{conversation.NewText(conversation.User, b.String())},
		MaxTokens: o.maxTokens(),
	}
	resp, err := llm.Complete(ctx, p, req)
	if err != nil {
		return "", fmt.Errorf("compact: summary call: %w", err)
	}
	text := strings.TrimSpace(resp.Message.TextOf())
	if text == "" {
		return "", fmt.Errorf("compact: summary call: empty reply (stop reason %q)", resp.StopReason)
	}
	return text, nil
}

// renderEntry renders one entry as plain text for the summariser, headed by its uuid.
func renderEntry(e conversation.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] %s:", e.UUID, e.Message.Role)
	for _, bl := range e.Message.Content {
		switch bl.Type {
		case conversation.Text:
			b.WriteString("\n" + bl.Text)
		case conversation.ToolUse:
			fmt.Fprintf(&b, "\n(tool call %s %s)", bl.Name, clipBytes(string(bl.Input), 2000))
		case conversation.ToolResult:
			r := conversation.Message{Content: bl.Content}.TextOf()
			tag := "tool result"
			if bl.IsError {
				tag = "tool error"
			}
			fmt.Fprintf(&b, "\n(%s)\n%s", tag, clipBytes(r, 6000))
		case conversation.Image:
			b.WriteString("\n(image)")
		}
	}
	return b.String()
}

// clip cuts text to about n tokens, keeping its head and tail.
func clip(text string, n int) string {
	if tokens.Estimate(text) <= n {
		return text
	}
	r := []rune(text)
	keep := len(r) * n / max(tokens.Estimate(text), 1) * 9 / 10
	if keep < 2 {
		return ""
	}
	return string(r[:keep/2]) + "\n[… cut for length …]\n" + string(r[len(r)-keep/2:])
}

func clipBytes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n/2]) + " […] " + string(r[len(r)-n/2:])
}
