// Package prompt owns what the model sees: the instruction set and its touches, the system
// blocks, the tools offered, pending attachments, the read cache, the recall session, the
// token count, cache points and the history.
//
//   - Request builds each request from the history in a fixed order, merged and repaired, with
//     cache points after the previous and the current tail.
//   - Touch, Queue and a finished recall (StartRecall, RecallDone: a goroutine the Context
//     owns, never waited for by a turn) add attachments; Boundary turns them into one isMeta
//     user message.
//   - Prepare and Apply run a compaction's effects only after compact.Run succeeded: reload,
//     re-touch, refill the read cache with bounded reads, reset recall, restart the count.
//   - Snapshot is what a fork starts from: system, tools, messages and cache points.
package prompt

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/recall"
)

//go:embed system.md memory.md nomemory.md
var prompts embed.FS

func mustDoc(name string) string {
	b, err := prompts.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("prompt: embedded %s: %v", name, err))
	}
	return strings.TrimRight(string(b), "\n")
}

// Options configure a Context.
type Options struct {
	Instructions *instructions.Set // loaded at session start
	Tools        []llm.Tool
	Cache        *conversation.ReadCache
	Recall       *recall.Session  // nil without recall
	Recaller     *recall.Recaller // nil without recall
	Cwd          string
	MemoryDir    string // "" with auto-memory off
	Model        string // "" when the provider's configuration decides
	Now          func() time.Time
	Logger       *slog.Logger
}

// Attachment is text queued for the next request.
type Attachment struct {
	Source string // "instructions", "recall", "note"
	Text   string
}

// Context is what the model sees in one session. Its methods are safe for concurrent use,
// but a turn (Boundary, Request, Record) is run by one goroutine at a time.
type Context struct {
	opts  Options
	cache *conversation.ReadCache
	tools []llm.Tool

	mu      sync.Mutex // guards the fields below
	instr   *instructions.Set
	system  []llm.SystemBlock
	history *conversation.History
	tokens  conversation.Accountant
	pending []Attachment
	tail    int // index of the previous request's last message, -1 before the first
	points  []llm.CachePoint
	fixed   map[string]bool // request repairs already reported
	job     *recallJob

	wg sync.WaitGroup // recall goroutines
}

// New returns the Context of a session with an empty history.
func New(opts Options) *Context {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Cache == nil {
		opts.Cache = conversation.NewReadCache(conversation.ReadCacheOptions{Dir: opts.Cwd, Now: opts.Now})
	}
	c := &Context{opts: opts, cache: opts.Cache, tools: opts.Tools, instr: opts.Instructions, tail: -1}
	c.history, _ = conversation.NewHistory(nil)
	c.system = c.render(c.instr)
	c.resetTokens()
	return c
}

// Cache is the read cache.
func (c *Context) Cache() *conversation.ReadCache { return c.cache }

// Tools are the tools offered, as the model is told of them.
func (c *Context) Tools() []llm.Tool { return c.tools }

// Instructions is the instruction set now in force.
func (c *Context) Instructions() *instructions.Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.instr
}

// System returns the system blocks.
func (c *Context) System() []llm.SystemBlock {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.system
}

// SetModel re-renders the system prompt, which names the model, and restarts the count.
func (c *Context) SetModel(model string) {
	c.mu.Lock()
	c.opts.Model = model
	c.system = c.render(c.instr)
	c.mu.Unlock()
	c.ResetTokens()
}

// render renders the system prompt with set's instruction block: the pieces loaded at session
// start (promptSources); what touches added is in the conversation as attachments.
func (c *Context) render(set *instructions.Set) []llm.SystemBlock {
	mem := mustDoc("nomemory.md")
	if c.opts.MemoryDir != "" {
		mem = strings.ReplaceAll(mustDoc("memory.md"), "{{DIR}}", c.opts.MemoryDir)
	}
	model := c.opts.Model
	if model == "" {
		model = "(the provider's configured model)"
	}
	r := strings.NewReplacer("{{MEMORY}}", mem+"\n", "{{CWD}}", c.opts.Cwd, "{{ROOT}}", set.ProjectRoot(),
		"{{PLATFORM}}", runtime.GOOS+"/"+runtime.GOARCH, "{{DATE}}", c.opts.Now().Format("2006-01-02"), "{{MODEL}}", model)
	blocks := []llm.SystemBlock{{Text: r.Replace(mustDoc("system.md"))}}
	if text := instructions.RenderSources(promptSources(set)); text != "" {
		blocks = append(blocks, llm.SystemBlock{Text: "# Instructions\nThe instruction files that apply to this session, lowest priority first (later and more specific text wins). Each is headed by where it comes from.\n\n" + text})
	}
	blocks[len(blocks)-1].Cache = true
	return blocks
}

// promptSources are the instruction pieces the system prompt holds: those loaded at session
// start (with the memory index and enforced blocks), not those a touch added, which reach the
// model as attachments (and, after a compaction, in its re-injected instructions) — so no piece
// is in a request twice.
func promptSources(set *instructions.Set) []instructions.Source {
	var out []instructions.Source
	for _, src := range set.Sources() {
		if src.Trigger == "" {
			out = append(out, src)
		}
	}
	return out
}

// Touch tells the instruction set that a tool accessed path and queues what newly applies.
func (c *Context) Touch(ctx context.Context, path string) {
	srcs := c.Instructions().Touch(ctx, path)
	if len(srcs) == 0 {
		return
	}
	for _, s := range srcs {
		c.RecordInjected(s.Path, s.Text)
	}
	c.Queue("instructions", "These instructions now apply because "+path+" was accessed. Follow them from now on.\n\n"+instructions.RenderSources(srcs))
}

// Queue adds an attachment for the next request boundary.
func (c *Context) Queue(source, text string) {
	c.mu.Lock()
	c.pending = append(c.pending, Attachment{Source: source, Text: text})
	c.mu.Unlock()
}

// Boundary takes the queued attachments and returns them with the isMeta user message that
// carries them (ok false: none queued). The caller records the message.
func (c *Context) Boundary() (m conversation.Message, taken []Attachment, ok bool) {
	c.mu.Lock()
	taken, c.pending = c.pending, nil
	c.mu.Unlock()
	if len(taken) == 0 {
		return m, nil, false
	}
	m = conversation.Message{Role: conversation.User}
	for _, p := range taken {
		m.Content = append(m.Content, conversation.Block{Type: conversation.Text, Text: "<system-reminder>\n" + strings.TrimRight(p.Text, "\n") + "\n</system-reminder>"})
	}
	return m, taken, true
}

// RecordInjected notes in the read cache that the model saw path only in altered form, so that
// an Edit or Write of it needs a real Read first.
func (c *Context) RecordInjected(path, text string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if err := c.cache.Record(conversation.FileState{Path: path, Content: text, ModTime: fi.ModTime(), Partial: true, Source: conversation.SourceInjected}); err != nil {
		c.opts.Logger.Warn("prompt: read cache", "path", path, "err", err)
	}
}

// Record adds e (uuid, parent and time filled in) to the history and the token count; an
// assistant reply carries the provider's usage in e.Usage.
func (c *Context) Record(e conversation.Entry) conversation.Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, _ = c.history.AppendEntry(e) // fails only on a duplicate uuid; e has none
	c.tokens.Append(e)
	return e
}

// Entries returns the history.
func (c *Context) Entries() []conversation.Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.history.Entries()
}

// Last returns the last entry of the history.
func (c *Context) Last() (conversation.Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.history.Last()
}

// Restore replaces the history (a resumed session's chain) and restarts the count.
func (c *Context) Restore(entries []conversation.Entry) error {
	h, err := conversation.NewHistory(entries)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.history, c.tail = h, -1
	c.mu.Unlock()
	c.ResetTokens()
	return nil
}

// Messages returns the history as the provider gets it (see checked).
func Messages(entries []conversation.Entry) []conversation.Message {
	msgs, _ := checked(entries)
	return msgs
}

// checked turns the history into a request's messages: consecutive messages of one role merged
// into one (tool results first, as the APIs require), so each request is the previous one plus
// a tail, then conversation.Repair, so that a history left inconsistent (a crash between a
// tool call and its result, a damaged transcript) is never sent broken. It returns what the
// repair changed.
func checked(entries []conversation.Entry) ([]conversation.Message, []conversation.Fix) {
	msgs := make([]conversation.Message, 0, len(entries))
	for _, e := range entries {
		if len(e.Message.Content) > 0 {
			msgs = append(msgs, e.Message)
		}
	}
	return conversation.Repair(conversation.Merge(msgs))
}

// Request builds the next request and remembers its tail for the next one's cache marker.
// fixes are the repairs not reported before (each is reported once, not at every request).
func (c *Context) Request(maxTokens int) (req *llm.Request, fixes []conversation.Fix) {
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, all := checked(c.history.Entries())
	for _, f := range all {
		if !c.fixed[f.String()] {
			if c.fixed == nil {
				c.fixed = map[string]bool{}
			}
			c.fixed[f.String()] = true
			fixes = append(fixes, f)
		}
	}
	req = &llm.Request{Model: c.opts.Model, System: c.system, Tools: c.tools, Messages: msgs, MaxTokens: maxTokens}
	prev := c.tail
	c.tail = len(msgs) - 1
	if prev >= 0 && prev < len(msgs)-1 && cacheable(msgs[prev]) {
		req.CachePoints = append(req.CachePoints, llm.CacheAfter(prev))
	}
	if n := len(msgs); n > 0 && cacheable(msgs[n-1]) {
		req.CachePoints = append(req.CachePoints, llm.CacheAfter(n-1))
	}
	c.points = req.CachePoints
	return req, fixes
}

// cacheable reports whether the last block of m can carry a cache marker.
func cacheable(m conversation.Message) bool {
	if len(m.Content) == 0 {
		return false
	}
	switch m.Content[len(m.Content)-1].Type {
	case conversation.Text, conversation.ToolResult, conversation.ToolUse, conversation.Image:
		return true
	}
	return false
}

// Snapshot is what a fork starts from: the request prefix and the history's messages as the
// last request sent them, with its cache points.
type Snapshot struct {
	Model    string
	System   []llm.SystemBlock
	Tools    []llm.Tool
	Messages []conversation.Message
	Points   []llm.CachePoint
	Entries  int    // history entries the messages hold
	LastUUID string // the last entry's uuid; "" for an empty history
}

// Snapshot returns what a fork would start from now.
func (c *Context) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	entries := c.history.Entries()
	s := Snapshot{Model: c.opts.Model, System: c.system, Tools: c.tools, Messages: Messages(entries), Points: slices.Clone(c.points), Entries: len(entries)}
	if len(entries) > 0 {
		s.LastUUID = entries[len(entries)-1].UUID
	}
	return s
}

// Size describes what the model sees now, by source, for a /context view.
type Size struct {
	System       int `json:"system_tokens"`
	Instructions int `json:"instructions_tokens"`
	Tools        int `json:"tools_tokens"`
	Messages     int `json:"messages_tokens"`
	// Sources are the instruction pieces, session start first, then those touches added.
	Sources []instructions.Source `json:"sources"`
}

// Total is the sum of the parts.
func (s Size) Total() int { return s.System + s.Instructions + s.Tools + s.Messages }

// Size returns the estimated size of each part of the next request.
func (c *Context) Size() Size {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := prefixOf(c.system, c.tools)
	s.Messages = conversation.EstimateMessages(Messages(c.history.Entries())...)
	s.Sources = c.instr.Sources()
	return s
}

// prefixOf estimates a request prefix of system blocks and tools.
func prefixOf(system []llm.SystemBlock, tools []llm.Tool) Size {
	var s Size
	s.System = conversation.EstimateMessages(conversation.NewText(conversation.User, system[0].Text))
	if len(system) > 1 {
		s.Instructions = conversation.EstimateMessages(conversation.NewText(conversation.User, system[1].Text))
	}
	for _, t := range tools {
		s.Tools += conversation.EstimateMessages(conversation.NewText(conversation.User, t.Description+string(t.InputSchema)))
	}
	return s
}

// Tokens is the context's size: reported usage plus estimates since (estimated throughout
// while no usage was reported).
func (c *Context) Tokens() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tokens.Tokens()
}

// ResetTokens restarts the count from the request prefix (estimated) and the history (its last
// reported usage, which covers the prefix too, plus estimates after it).
func (c *Context) ResetTokens() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.resetTokens()
}

func (c *Context) resetTokens() {
	c.tokens.Reset()
	c.tokens.AddTokens(prefixOf(c.system, c.tools).Total())
	c.tokens.Append(c.history.Entries()...)
}
