package compact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/work"
)

// Session-memory compaction keeps this much of the recent conversation (DESIGN.md, Layer 4).
const (
	KeepMinTokens   = 10_000
	KeepMaxTokens   = 40_000
	KeepMinMessages = 5
)

// Method says how the summary was made.
type Method string

// Methods.
const (
	MethodSessionMemory Method = "session-memory" // the notes file is the summary, recent messages kept
	MethodModel         Method = "model"          // a model summary (possibly chunked)
)

// ErrNothingToCompact is returned when the history holds no message to compact.
var ErrNothingToCompact = errors.New("compact: nothing to compact")

// ErrNotSmaller is returned (as a *NotSmallerError) when the compacted context would be no
// smaller than the context now: nothing is returned to write, and the caller keeps the
// conversation as it is.
var ErrNotSmaller = errors.New("compact: compaction would not make the context smaller")

// NotSmallerError says how large the context is and how large a compacted one would be. Post is
// a lower bound when the refusal came before the summary was written (no model call is made
// when what must be carried alone is as large as the context).
type NotSmallerError struct {
	Pre, Post int
}

func (e *NotSmallerError) Error() string {
	if e.Post < e.Pre {
		return fmt.Sprintf("compaction would make the context only %d%% smaller (about %d tokens now, %d after; it takes at least %d%%); nothing was changed",
			100*(e.Pre-e.Post)/max(e.Pre, 1), e.Pre, e.Post, MinGainPercent)
	}
	return fmt.Sprintf("compaction would not make the context smaller (about %d tokens now, at least %d after); nothing was changed", e.Pre, e.Post)
}

// MinGainPercent is the least a compaction must take off the context, in percent of it, to be
// written: a smaller gain (a small window compacted again and again) would only append a
// boundary and a summary to the transcript for nothing. Run refuses it as *NotSmallerError.
const MinGainPercent = 5

// worthWriting reports whether a context of pre tokens compacted to post gains MinGainPercent.
func worthWriting(pre, post int) bool {
	return (pre-post)*100 >= MinGainPercent*pre && post < pre
}

// Is makes errors.Is(err, ErrNotSmaller) true.
func (e *NotSmallerError) Is(target error) bool { return target == ErrNotSmaller }

// Input is what a compaction works from: the history, the strategy (trigger, instructions,
// model, session notes) and the budgets. Input holds values only — no read cache, store,
// instruction set or recall session — so Run cannot change the caller's state; the caller
// applies Result. History and a Provider or usable Notes are required; every other field is
// optional and its part of the re-injection is skipped when it is empty.
type Input struct {
	// History is the current conversation chain.
	History []conversation.Entry
	// LeafUUID is the transcript's leaf before compaction (the boundary's logicalParentUuid);
	// "" means the last History entry's uuid.
	LeafUUID string
	Trigger  Trigger
	// Instructions are the user's /compact instructions.
	Instructions string

	Provider llm.Provider
	Model    string
	// Window is the model's context window; MaxOutput its reply cap.
	Window    int
	MaxOutput int
	// PrefixTokens is the estimate of what every request sends before the history (system
	// prompt, instruction files, memory index, tools); the compaction's target includes it.
	PrefixTokens int
	// Tokens is the context's size now as the caller counts it: the provider's reported usage
	// of the last response plus an estimate of what was added since (conversation.Accountant).
	// 0: counted from History the same way, with PrefixTokens for the part no usage covers.
	Tokens int
	// UserBudget overrides the budget of the recent user messages carried verbatim (0: the
	// Budget's Recent share).
	UserBudget int

	// Notes are the session-memory notes (ReadSessionNotes); when they hold more than the bare
	// template (HasNotes), session-memory compaction is tried first.
	Notes SessionNotes

	// Reinject is what the new context gets back after the summary.
	Reinject Reinject

	// Now stamps the new entries (nil: time.Now).
	Now    func() time.Time
	Logger *slog.Logger
}

// Reinject is what the caller hands back to the model after the summary, as values it took
// from its own state.
type Reinject struct {
	// Files are the read cache's views, most recent first (ReadCache.Recent(0)). RecentFiles
	// picks the ones re-injected: files the model read or wrote, not injected views
	// (instruction files, recalled memories) and not files in InPrompt.
	Files []conversation.FileState
	// InPrompt are the paths of the files the new prompt holds anyway (the instruction files and
	// the memory index, re-read from disk, and Rules): never re-injected as files.
	InPrompt []string
	// Todos is the agent's todo list, Tasks the session's tasks.
	Todos []work.Todo
	Tasks []work.Task
	// Instructions are the conditional rules and nested instruction files that applied to
	// files touched in the session, as the caller re-read them from disk.
	Rules []instructions.Source
}

// Result is a finished compaction: what to append, the new context, and what the caller's
// state should hold afterwards.
type Result struct {
	Method  Method
	Trigger Trigger
	// Entries are the transcript entries to append, in order: the compact_boundary system
	// entry (parentUuid null, logicalParentUuid = the old leaf), the summary (isCompactSummary),
	// the re-injected attachments (isMeta) and, for session-memory compaction, the kept
	// messages re-linked after them.
	Entries []*transcript.Entry
	// Context is the new conversation chain, the same messages with the same uuids as the
	// conversation entries of Entries; start a new conversation.History from it.
	Context []conversation.Entry
	// Summary is the summary text (the model's or the notes file's); Parts the chunk
	// summaries of a hierarchical model summary.
	Summary string
	Parts   []Part
	Calls   int
	// UserMessages are the user's messages carried verbatim, pinned ones first; Pinned how many
	// of them are pinned (the first request, messages the user pinned, or their condensed form);
	// UserOmitted how many older ones did not fit the budget.
	UserMessages []string
	Pinned       int
	UserOmitted  int
	// Condensed lists the pinned messages the model condensed to fit their budget (kind and
	// first words), those its numbered list has an item for; the summary message lists them
	// too. A pinned message without an item is carried verbatim after the condensed text when
	// it fits the budget (newest first), and listed in Lost when it does not.
	Condensed []string
	// Lost lists, by kind and first words, the pinned messages the condensation left out that
	// did not fit the budget verbatim: only the condensed text stands for them in the
	// new context. The Note names them for the user, and the summary message for the model.
	Lost []string
	// Kept is the number of recent messages kept (session-memory compaction).
	Kept int
	// Files are the paths re-injected from Reinject.Files, most recent first; FileViews the
	// views as re-injected (clipped to the budget, Partial when clipped): the read cache should
	// hold exactly these after the compaction.
	Files     []string
	FileViews []conversation.FileState
	// PreTokens is the context before (Input.Tokens), PostTokens the estimate after (the
	// prefix and Context), Budget what each part was allowed.
	PreTokens, PostTokens int
	Budget                Budget
	// Note is set when the compacted context is over Budget.Target (it says by how much and
	// why), pinned messages could not be condensed, or a condensation lost some (Lost), for
	// the user.
	Note string
}

// Run compacts in.History. It tries session-memory compaction when in.Notes hold notes (and
// the result fits the target), otherwise it asks the model for a summary. The user's messages
// are carried verbatim: pinned ones (the first request, messages the user pinned) all, condensed
// by the model when they exceed their budget, then the recent ones that fit. A compaction that
// would not make the context smaller returns a *NotSmallerError and nothing else. Run changes
// nothing but what it returns: reloading instructions and the memory index, refilling the read
// cache (Result.FileViews), resetting recall and writing the transcript are the caller's, after
// a success.
func Run(ctx context.Context, in Input) (*Result, error) {
	if in.Provider == nil && !HasNotes(in.Notes.Text) {
		return nil, fmt.Errorf("compact: no model provider")
	}
	if in.Window <= 0 {
		return nil, fmt.Errorf("compact: no context window given")
	}
	if in.Trigger == "" {
		in.Trigger = Manual
	}
	log := in.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
		in.Logger = log
	}
	var msgs []conversation.Entry
	for _, e := range in.History {
		if !e.IsMeta {
			msgs = append(msgs, e)
		}
	}
	if len(msgs) == 0 {
		return nil, ErrNothingToCompact
	}
	th := ThresholdsFor(in.Window, in.MaxOutput)
	b := BudgetFor(th, in.PrefixTokens)
	if in.UserBudget > 0 {
		b.Recent = in.UserBudget
	}
	r := &Result{Trigger: in.Trigger, PreTokens: in.Tokens, Budget: b}
	if r.PreTokens <= 0 {
		var acc conversation.Accountant
		acc.AddTokens(in.PrefixTokens)
		acc.Append(in.History...)
		r.PreTokens = acc.Tokens()
	}
	state := stateAttachments(in.Reinject)
	// Files get what the rest leaves of the room.
	files := func(reserved int) []string {
		text, paths, views := fileAttachments(in.Reinject, min(b.Files, b.Room-reserved-textTokens(state)), b.FileEach)
		r.Files, r.FileViews = paths, views
		return append(text, state...)
	}

	if notes := strings.TrimSpace(in.Notes.Text); HasNotes(notes) {
		kb := keepBounds{min: b.KeepMin, max: b.KeepMax}
		k, whole := keepUncovered(in.History, keepRecent(in.History, kb), in.Notes.Covered, kb.max)
		// Messages still in the kept tail need not be carried again.
		c := carry(in.History[:len(in.History)-len(k)], b)
		attach := files(tokens.Estimate(renderSummary(notes, c.floor(b))) + conversation.EstimateEntries(k))
		if whole && (in.Provider == nil || assembledTokens(b, notes, c.floor(b), attach, k) <= b.Target) {
			return finish(ctx, in, r, MethodSessionMemory, notes, c, attach, k)
		}
		log.Debug("compact: session memory leaves too much; falling back to a model summary")
	}
	if in.Provider == nil {
		return nil, fmt.Errorf("compact: no model provider and no usable session notes")
	}
	c := carry(in.History, b)
	attach := files(b.Summary + tokens.Estimate(renderSummary("", c.floor(b))))
	// What must be carried whatever the summary says: when that alone is not smaller than the
	// context, no model call is made.
	if post := assembledTokens(b, "", c.floor(b), attach, nil); !worthWriting(r.PreTokens, post) {
		return nil, &NotSmallerError{Pre: r.PreTokens, Post: post}
	}
	maxTokens := b.Summary
	if in.MaxOutput > 0 {
		maxTokens = min(maxTokens, in.MaxOutput)
	}
	s, err := Summarize(ctx, in.Provider, in.History, SummaryOptions{
		Window: in.Window, MaxTokens: maxTokens, Instructions: in.Instructions, Model: in.Model,
	})
	r.Calls = s.Calls
	if err != nil {
		return nil, err
	}
	r.Parts = s.Parts
	return finish(ctx, in, r, MethodModel, s.Text, c, attach, nil)
}

// carry plans the user messages of entries for budget b: pinned ones marked, recent ones cut.
func carry(entries []conversation.Entry, b Budget) carriedMessages {
	users, fromStart := userMessages(entries)
	return planUsers(users, fromStart, b.Recent)
}

// floor is c as it will be carried at the least: pinned messages over their budget replaced
// by a condensed text of the budget's size.
func (c carriedMessages) floor(b Budget) carriedMessages {
	cond, whole := c.condensable()
	if msgTokens(c.pinned) <= b.Pinned || len(cond) == 0 {
		return c
	}
	var parts []string
	for _, m := range cond {
		parts = append(parts, m.text)
	}
	room := max(b.Pinned-msgTokens(whole), 0)
	text := clip(strings.Join(parts, "\n\n"), room)
	c.pinned = append([]userMsg{{text: text, whole: text, pin: pinCondensed}}, whole...)
	return c
}

// assembledTokens estimates the context a compaction would leave: the prefix, the summary
// message, the attachments and the kept tail.
func assembledTokens(b Budget, summary string, c carriedMessages, attach []string, kept []conversation.Entry) int {
	n := b.Prefix + tokens.Estimate(renderSummary(summary, c)) + conversation.EstimateEntries(kept)
	for _, a := range attach {
		n += tokens.Estimate(a)
	}
	return n
}

// pinnedOver says that the pinned messages cond do not fit the room left for them.
func pinnedOver(cond []userMsg, room int) string {
	if room == 0 {
		return fmt.Sprintf("Your %d pinned messages (about %d tokens) do not fit: the current request fills the room kept for pinned messages", len(cond), msgTokens(cond))
	}
	return fmt.Sprintf("Your %d pinned messages (about %d tokens) are over the %d tokens kept for them", len(cond), msgTokens(cond), room)
}

// finish condenses the pinned messages when they exceed their budget, builds the entries and
// the new context, and refuses a result that is not smaller than the context was.
func finish(ctx context.Context, in Input, r *Result, method Method, summary string, c carriedMessages, attach []string, kept []conversation.Entry) (*Result, error) {
	b := r.Budget
	var notes []string
	// The latest user message is the request being worked on: it is carried whole even when it
	// is pinned (a first request, a message the user pinned) and over the budget; only the others
	// are condensed.
	cond, whole := c.condensable()
	if len(cond) > 0 && msgTokens(c.pinned) > b.Pinned && in.Provider != nil {
		room := max(b.Pinned-msgTokens(whole), 0)
		text, err := condense(ctx, in.Provider, in.Model, cond, room)
		r.Calls++
		if err != nil {
			// Never dropped: the pinned messages stay verbatim, and the note says so.
			in.Logger.Warn("compact: pinned messages kept verbatim", "err", err)
			notes = append(notes, fmt.Sprintf("%s and could not be condensed (%v); they are kept verbatim.", pinnedOver(cond, room), err))
		} else if tokens.Estimate(text) < msgTokens(cond) { // a longer "condensation" is not one
			held, verbatim, lost := condensation(text, cond, room-tokens.Estimate(text))
			if len(held) == 0 {
				in.Logger.Warn("compact: the condensation has an item for none of the pinned messages; kept verbatim")
				notes = append(notes, pinnedOver(cond, room)+", and the model's condensation did not list them one by one; they are kept verbatim.")
			} else {
				c.condensed, c.lost = describe(held), describe(lost)
				c.pinned = append(append([]userMsg{{text: text, whole: text, pin: pinCondensed}}, verbatim...), whole...)
				if len(lost) > 0 {
					in.Logger.Warn("compact: pinned messages lost by the condensation", "n", len(lost))
					notes = append(notes, fmt.Sprintf("The model's condensation of your pinned messages left out %d of them, and they do not fit the pinned budget verbatim, so they are not carried: %s. They are in the transcript before this compaction; pin again what still applies.", len(lost), strings.Join(c.lost, "; ")))
				}
			}
		}
	}
	r.Method, r.Summary = method, summary
	r.UserMessages, r.Pinned, r.UserOmitted, r.Condensed, r.Lost = c.texts(), len(c.pinned), c.omitted, c.condensed, c.lost

	bl := newBuilder(in)
	leaf := in.LeafUUID
	if leaf == "" {
		leaf = in.History[len(in.History)-1].UUID
	}
	bl.boundary(leaf, in.Trigger, r.PreTokens)
	bl.add(conversation.NewText(conversation.User, renderSummary(summary, c)), false, true)
	for _, a := range attach {
		bl.add(conversation.NewText(conversation.User, a), true, false)
	}
	for _, e := range kept {
		bl.add(e.Message, false, false)
	}
	r.Kept = len(kept)
	r.Entries, r.Context = bl.entries, bl.context
	r.PostTokens = b.Prefix + conversation.EstimateEntries(r.Context)
	if !worthWriting(r.PreTokens, r.PostTokens) {
		return nil, &NotSmallerError{Pre: r.PreTokens, Post: r.PostTokens}
	}
	if r.PostTokens > b.Target {
		notes = append(notes, overNote(r, c, summary, kept))
	}
	r.Note = strings.Join(notes, " ")
	return r, nil
}

// overNote says why a compacted context is over its target.
func overNote(r *Result, c carriedMessages, summary string, kept []conversation.Entry) string {
	b := r.Budget
	why := fmt.Sprintf("the summary takes about %d tokens, your pinned messages %d, your recent messages %d, re-read files and todos %d, the kept messages %d",
		tokens.Estimate(summary), msgTokens(c.pinned), msgTokens(c.recent), r.PostTokens-b.Prefix-tokens.Estimate(renderSummary(summary, c))-conversation.EstimateEntries(kept), conversation.EstimateEntries(kept))
	if b.Prefix >= b.Target {
		why = fmt.Sprintf("the system prompt, instruction files and tools alone take about %d tokens", b.Prefix)
	}
	return fmt.Sprintf("The compacted context is about %d tokens, over its target of %d (the automatic threshold divided by %d): %s. The next automatic compaction will come sooner; a model with a larger context window, fewer or shorter instruction files, or shorter pinned messages would help.",
		r.PostTokens, b.Target, PostCompactDivisor, why)
}

// SessionNotes are the session-memory notes as Run uses them.
type SessionNotes struct {
	// Text is the notes file's text.
	Text string
	// Covered is the uuid of the last message the notes cover (Notes.MarkCovered; "" when
	// unknown: Run then keeps only the recent KeepMinTokens–KeepMaxTokens).
	Covered string
}

// ReadSessionNotes reads the notes file at path and the mark MarkCovered left beside it. A
// missing file gives empty notes and no error. On an error the notes read so far are returned
// with it: a notes file that cannot be read gives empty notes (a model summary is used), a mark
// that cannot be read gives the text without Covered.
func ReadSessionNotes(path string) (SessionNotes, error) {
	if path == "" {
		return SessionNotes{}, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return SessionNotes{}, nil
	}
	if err != nil {
		return SessionNotes{}, fmt.Errorf("compact: session notes: %w", err)
	}
	n := SessionNotes{Text: string(data)}
	n.Covered, err = NotesCovered(path)
	return n, err
}

// keepBounds are the token bounds of the tail session-memory compaction keeps.
type keepBounds struct{ min, max int }

// keepRecent picks the tail of history session-memory compaction keeps: at least kb.min
// tokens and KeepMinMessages text messages, at most kb.max tokens, never starting on a tool
// result whose call would be cut off. Meta entries are not kept.
func keepRecent(history []conversation.Entry, kb keepBounds) []conversation.Entry {
	start, used, texts := len(history), 0, 0
	for i := len(history) - 1; i >= 0; i-- {
		if used >= kb.min && texts >= KeepMinMessages {
			break
		}
		t := conversation.EstimateTokens(history[i].Message)
		if used+t > kb.max {
			break
		}
		used += t
		start = i
		if !history[i].IsMeta && hasText(history[i].Message) {
			texts++
		}
	}
	// Don't begin with tool results: their calls are in the dropped part.
	for start < len(history) && (startsWithToolResult(history[start].Message) || history[start].Message.Role != conversation.User) {
		start++
	}
	var out []conversation.Entry
	for _, e := range history[start:] {
		if !e.IsMeta {
			out = append(out, e)
		}
	}
	return out
}

func hasText(m conversation.Message) bool {
	for _, b := range m.Content {
		if b.Type == conversation.Text && strings.TrimSpace(b.Text) != "" {
			return true
		}
	}
	return false
}

func startsWithToolResult(m conversation.Message) bool {
	for _, b := range m.Content {
		if b.Type == conversation.ToolResult {
			return true
		}
	}
	return false
}

// builder makes matching transcript and conversation entries, chained by uuid.
type builder struct {
	now     func() time.Time
	last    string
	entries []*transcript.Entry
	context []conversation.Entry
}

func newBuilder(in Input) *builder {
	now := in.Now
	if now == nil {
		now = time.Now
	}
	return &builder{now: now}
}

func (b *builder) boundary(logicalParent string, trig Trigger, pre int) {
	meta, _ := json.Marshal(map[string]any{"trigger": string(trig), "preTokens": pre})
	content, _ := json.Marshal("Conversation compacted")
	e := &transcript.Entry{
		Type: transcript.TypeSystem, Subtype: transcript.SubtypeCompactBoundary,
		UUID: uuid.NewString(), LogicalParentUUID: logicalParent, Timestamp: b.now().UTC(),
		Content: content, Level: "info",
		Extra: map[string]json.RawMessage{"compactMetadata": meta},
	}
	b.entries = append(b.entries, e)
	b.last = e.UUID
}

func (b *builder) add(m conversation.Message, isMeta, isSummary bool) {
	raw, err := transcript.EncodeMessage(m, nil)
	if err != nil {
		// A Message of text and decoded blocks always marshals; a failure is a programming error.
		panic(fmt.Sprintf("compact: marshal message: %v", err))
	}
	at := b.now().UTC()
	id := uuid.NewString()
	typ := transcript.TypeUser
	if m.Role == conversation.Assistant {
		typ = transcript.TypeAssistant
	}
	b.entries = append(b.entries, &transcript.Entry{
		Type: typ, UUID: id, ParentUUID: b.last, Timestamp: at,
		Message: raw, IsMeta: isMeta, IsCompactSummary: isSummary,
	})
	ce := conversation.Entry{UUID: id, Timestamp: at, IsMeta: isMeta, Message: m}
	if len(b.context) > 0 {
		ce.ParentUUID = b.last
	}
	b.context = append(b.context, ce)
	b.last = id
}
