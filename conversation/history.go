package conversation

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Entry is one link of the conversation chain: a message with the ids the transcript uses to
// rebuild the order (uuid, parentUuid) and the flags that decide what may be dropped.
type Entry struct {
	UUID       string    `json:"uuid"`
	ParentUUID string    `json:"parentUuid,omitempty"`
	Timestamp  time.Time `json:"timestamp"`
	// IsMeta marks a message the engine injected (reminders, attachments) rather than one the
	// user or the model wrote. Fit drops these first when space runs out.
	IsMeta  bool    `json:"isMeta,omitempty"`
	Message Message `json:"message"`
	// Provenance records where a user message's parts came from and whether it is pinned
	// (zero: not recorded).
	Provenance Provenance `json:"provenance,omitzero"`
	// Usage is the provider's usage for the request that produced this (assistant) entry.
	Usage *Usage `json:"usage,omitempty"`
}

// History is the conversation chain in order, oldest first. Each appended entry gets a fresh
// UUID (v7) and the previous entry's UUID as parent. Safe for concurrent use.
type History struct {
	mu      sync.Mutex
	entries []Entry
	ids     map[string]bool
	now     func() time.Time
}

// NewHistory returns a history holding chain (for example the chain a resumed transcript
// rebuilt). Every entry needs a unique UUID, and a parent that is in the chain must come before
// its child; parents outside the chain (a compact boundary's lost ancestors) are allowed.
func NewHistory(chain []Entry) (*History, error) {
	h := &History{ids: make(map[string]bool, len(chain)), now: time.Now}
	pos := make(map[string]int, len(chain))
	for i, e := range chain {
		if e.UUID == "" {
			return nil, fmt.Errorf("conversation: history entry %d: no uuid", i)
		}
		if h.ids[e.UUID] {
			return nil, fmt.Errorf("conversation: history entry %d: duplicate uuid %s", i, e.UUID)
		}
		h.ids[e.UUID] = true
		pos[e.UUID] = i
	}
	for i, e := range chain {
		if p, ok := pos[e.ParentUUID]; ok && p >= i {
			return nil, fmt.Errorf("conversation: history entry %d (%s): parent %s comes at or after it", i, e.UUID, e.ParentUUID)
		}
	}
	h.entries = slices.Clone(chain)
	return h, nil
}

// Append adds m as a new entry linked to the last one and returns it.
func (h *History) Append(m Message) Entry {
	e, _ := h.AppendEntry(Entry{Message: m})
	return e
}

// AppendMeta adds m as an injected (isMeta) entry and returns it.
func (h *History) AppendMeta(m Message) Entry {
	e, _ := h.AppendEntry(Entry{Message: m, IsMeta: true})
	return e
}

// AppendEntry adds e, filling an empty UUID (v7), ParentUUID (the last entry's) and Timestamp
// (now). It fails only when e.UUID is already in the chain.
func (h *History) AppendEntry(e Entry) (Entry, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.UUID == "" {
		e.UUID = newUUID()
	}
	if h.ids[e.UUID] {
		return Entry{}, fmt.Errorf("conversation: append: duplicate uuid %s", e.UUID)
	}
	if e.ParentUUID == "" && len(h.entries) > 0 {
		e.ParentUUID = h.entries[len(h.entries)-1].UUID
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = h.now()
	}
	h.ids[e.UUID] = true
	h.entries = append(h.entries, e)
	return e, nil
}

func newUUID() string {
	id, err := uuid.NewV7()
	if err != nil {
		// NewV7 fails only when the random source fails; v4 reads the same source and panics
		// in that case, which is the right outcome for a broken system.
		return uuid.NewString()
	}
	return id.String()
}

// Entries returns a copy of the chain, oldest first.
func (h *History) Entries() []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries)
}

// Len returns the number of entries.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// Last returns the newest entry.
func (h *History) Last() (Entry, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.entries) == 0 {
		return Entry{}, false
	}
	return h.entries[len(h.entries)-1], true
}

// Tokens returns ContextTokens of the chain.
func (h *History) Tokens() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return ContextTokens(h.entries)
}

// ErrOverBudget is returned by Fit when the chain does not fit the budget even without any
// droppable entry; the caller must compact.
var ErrOverBudget = errors.New("conversation: history does not fit the budget; compact it")

// Fitted is the part of a history that fits a token budget.
type Fitted struct {
	// Entries are the entries to send, oldest first.
	Entries []Entry
	// Dropped are the UUIDs of the isMeta entries left out, oldest first.
	Dropped []string
	// Tokens is the size of Entries (ContextTokens before dropping, minus the estimates of the
	// dropped entries).
	Tokens int
}

// Fit returns the entries to send within budget tokens. When the whole chain is too big it leaves
// out isMeta entries, oldest first, except those holding tool calls or results (dropping them
// would break the pairing the providers require) and the newest entry. If that is not enough it
// returns the best it could do and ErrOverBudget. The history itself is not changed.
func (h *History) Fit(budget int) (Fitted, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f := Fitted{Tokens: ContextTokens(h.entries)}
	drop := map[int]bool{}
	for i := 0; i < len(h.entries)-1 && f.Tokens > budget; i++ {
		e := h.entries[i]
		if !e.IsMeta || hasToolBlocks(e.Message) {
			continue
		}
		drop[i] = true
		f.Dropped = append(f.Dropped, e.UUID)
		f.Tokens -= EstimateTokens(e.Message)
	}
	f.Entries = make([]Entry, 0, len(h.entries)-len(drop))
	for i, e := range h.entries {
		if !drop[i] {
			f.Entries = append(f.Entries, e)
		}
	}
	if f.Tokens > budget {
		return f, ErrOverBudget
	}
	return f, nil
}

func hasToolBlocks(m Message) bool {
	for _, b := range m.Content {
		if b.Type == ToolUse || b.Type == ToolResult {
			return true
		}
	}
	return false
}

// Messages turns entries into the message list a provider expects: adjacent messages of the same
// role (an injected reminder after a tool result, say) are merged into one by Merge. The
// entries are not modified.
func Messages(entries []Entry) []Message {
	msgs := make([]Message, len(entries))
	for i, e := range entries {
		msgs[i] = e.Message
	}
	return Merge(msgs)
}
