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
	// UserBudget caps the tokens of user messages carried verbatim (0: DefaultUserBudget).
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
	// Files are the read cache's views, most recent first (ReadCache.Recent(0)). The first
	// conversation.PostCompactFiles with content that the model read or wrote are re-injected;
	// injected views (instruction files, recalled memories) are not.
	Files []conversation.FileState
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
	// UserMessages are the user's messages carried verbatim; UserOmitted how many older ones
	// did not fit the budget.
	UserMessages []string
	UserOmitted  int
	// Kept is the number of recent messages kept (session-memory compaction).
	Kept int
	// Files are the paths re-injected from Reinject.Files, most recent first; FileViews the
	// views as re-injected (clipped to PostCompactFileTokens, Partial when clipped): the read
	// cache should hold exactly these after the compaction.
	Files     []string
	FileViews []conversation.FileState
	// PreTokens is the context before (conversation.ContextTokens of History: the last
	// reported usage plus estimates after it), PostTokens the estimate of Context.
	PreTokens, PostTokens int
}

// Run compacts in.History. It tries session-memory compaction when in.Notes hold notes (and
// the result would be below the automatic threshold), otherwise it asks the model for a
// summary. Run changes nothing but what it returns: reloading instructions and the memory
// index, refilling the read cache (Result.FileViews), resetting recall and writing the
// transcript are the caller's, after a success.
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
	r := &Result{Trigger: in.Trigger, PreTokens: conversation.ContextTokens(in.History)}

	users := UserMessages(in.History)
	budget := in.UserBudget
	if budget <= 0 {
		budget = DefaultUserBudget
	}

	var summary string
	var kept []conversation.Entry
	if notes := strings.TrimSpace(in.Notes.Text); HasNotes(notes) {
		th := ThresholdsFor(in.Window, in.MaxOutput)
		kb := keepFor(th)
		k, whole := keepUncovered(in.History, keepRecent(in.History, kb), in.Notes.Covered, kb.max)
		if whole && tokens.Estimate(notes)+conversation.EstimateEntries(k) < th.Auto {
			r.Method, summary, kept = MethodSessionMemory, notes, k
			// Messages still in the kept tail need not be carried again.
			users = UserMessages(in.History[:len(in.History)-len(k)])
		} else {
			log.Debug("compact: session memory leaves too much; falling back to a model summary")
		}
	}
	if r.Method == "" {
		if in.Provider == nil {
			return nil, fmt.Errorf("compact: no model provider and no usable session notes")
		}
		s, err := Summarize(ctx, in.Provider, in.History, SummaryOptions{
			Window: in.Window, MaxTokens: min(max(in.MaxOutput, 0), 20_000), Instructions: in.Instructions, Model: in.Model,
		})
		r.Calls = s.Calls
		if err != nil {
			return nil, err
		}
		r.Method, summary, r.Parts = MethodModel, s.Text, s.Parts
	}
	r.Summary = summary
	r.UserMessages, r.UserOmitted = keepUserMessages(users, budget)

	b := newBuilder(in)
	leaf := in.LeafUUID
	if leaf == "" {
		leaf = in.History[len(in.History)-1].UUID
	}
	b.boundary(leaf, in.Trigger, r.PreTokens)
	b.add(conversation.NewText(conversation.User, renderSummary(summary, r.UserMessages, r.UserOmitted)), false, true)
	for _, a := range attachments(in.Reinject, r) {
		b.add(conversation.NewText(conversation.User, a), true, false)
	}
	for _, e := range kept {
		b.add(e.Message, false, false)
	}
	r.Kept = len(kept)
	r.Entries, r.Context = b.entries, b.context
	r.PostTokens = conversation.ContextTokens(r.Context)
	return r, nil
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

// keepFor scales KeepMinTokens and KeepMaxTokens to the window: at most a quarter and a half
// of the automatic threshold, so that a small window is not compacted again a turn later (with
// a 200K window the bounds are KeepMinTokens and KeepMaxTokens themselves).
func keepFor(th Thresholds) keepBounds {
	return keepBounds{min: min(KeepMinTokens, th.Auto/4), max: min(KeepMaxTokens, th.Auto/2)}
}

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
