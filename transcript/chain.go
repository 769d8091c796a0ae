package transcript

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/strata-mem/strata/conversation"
)

// The chain is rebuilt the way Claude Code's loader (2.1) rebuilds it, so that strata and
// Claude Code resume the same conversation from the same file. docs/sessions.md describes each
// rule with the real-world shape it handles.

// messageTypes are the entry types that are messages of the conversation (Claude Code's
// transcript messages). Other entries that carry a uuid (progress above all) are bridged: a
// parentUuid naming one of them continues at its parent.
var messageTypes = map[string]bool{TypeUser: true, TypeAssistant: true, TypeAttachment: true, TypeSystem: true}

// graph indexes the entries of a file for BuildChain.
type graph struct {
	entries []*Entry
	// byUUID holds the message entries; the first of a duplicated uuid wins.
	byUUID map[string]*Entry
	// bridge maps the uuid of a bridged entry (progress …) to its parentUuid.
	bridge map[string]string
	// mainline is true when some message is not on a sidechain: the file is a session, and its
	// sidechain entries (1.x inline subagents) never form the main chain. A file of sidechain
	// entries only is a subagent's.
	mainline bool
	// over and logical replace a message's parent and a boundary's logical parent (relink).
	over, logical map[string]string
}

func newGraph(entries []*Entry) *graph {
	g := &graph{entries: entries, byUUID: make(map[string]*Entry, len(entries)), bridge: map[string]string{},
		over: map[string]string{}, logical: map[string]string{}}
	for _, e := range entries {
		switch {
		case e.UUID == "" || metadataTypes[e.Type]:
		case messageTypes[e.Type]:
			if _, dup := g.byUUID[e.UUID]; !dup {
				g.byUUID[e.UUID] = e
			}
			if !e.IsSidechain {
				g.mainline = true
			}
		default:
			if _, dup := g.bridge[e.UUID]; !dup {
				g.bridge[e.UUID] = e.ParentUUID
			}
		}
	}
	g.relink()
	return g
}

// resolve follows id through bridged entries to the message it leads to: id itself when it
// names a message or nothing known, "" when the bridges end at a root. Cycle-safe.
func (g *graph) resolve(id string) string {
	for range len(g.bridge) + 1 {
		p, ok := g.bridge[id]
		if !ok {
			return id
		}
		id = p
	}
	return "" // a cycle among bridged entries
}

// parent returns the uuid of e's parent message ("" for a root).
func (g *graph) parent(e *Entry) string {
	if p, ok := g.over[e.UUID]; ok {
		return p
	}
	return g.resolve(e.ParentUUID)
}

// excluded reports whether e takes no part in the main chain: a sidechain entry of a session.
func (g *graph) excluded(e *Entry) bool { return g.mainline && e.IsSidechain }

// BuildChain rebuilds the conversation a resume continues, as Claude Code's loader does:
// progress and other non-message entries are bridged; the leaf is the newest user or assistant
// entry ending a branch (sidechains only in a subagent's file), with the attachments that
// follow it; a compaction's preserved segment is relinked after its summary; parentUuid is followed
// cycle-safe, and logicalParentUuid across a loaded compact boundary; a reply's sibling lines
// and their tool results (Claude Code 2.1 writes parallel calls one a line) are put back after
// its last line on the chain. A cycle or an unexpected missing parent is a Problem.
func BuildChain(entries []*Entry) ([]*Entry, []Problem) {
	g := newGraph(entries)
	leaf := g.leaf()
	if leaf == nil {
		return nil, nil
	}
	chain, probs := g.walk(leaf)
	return g.recoverParallel(chain), probs
}

// leaf picks the entry the chain ends at (see BuildChain).
func (g *graph) leaf() *Entry {
	hasChild := make(map[string]bool, len(g.byUUID))
	for _, e := range g.entries {
		if messageTypes[e.Type] && e.UUID != "" && g.byUUID[e.UUID] == e && !g.excluded(e) {
			if p := g.parent(e); p != "" {
				hasChild[p] = true
			}
		}
	}
	var best, end *Entry
	bestPos := -1
	pos := make(map[*Entry]int, len(g.byUUID))
	for i, e := range g.entries {
		pos[e] = i
	}
	for _, t := range g.entries {
		if !messageTypes[t.Type] || t.UUID == "" || g.byUUID[t.UUID] != t || g.excluded(t) || hasChild[t.UUID] {
			continue
		}
		// Walk back from the terminal entry to the nearest user or assistant entry.
		seen := map[string]bool{}
		for e := t; e != nil && !seen[e.UUID]; e = g.byUUID[g.parent(e)] {
			seen[e.UUID] = true
			if e.Type != TypeUser && e.Type != TypeAssistant {
				continue
			}
			if !g.excluded(e) && (best == nil || newer(e, pos[e], best, bestPos)) {
				best, bestPos, end = e, pos[e], t
			}
			break
		}
	}
	if best != nil {
		return g.trailing(best, end)
	}
	// No user or assistant entry: the newest message of the file, so that a file of system
	// entries still shows them.
	for i := len(g.entries) - 1; i >= 0; i-- {
		if e := g.entries[i]; messageTypes[e.Type] && e.UUID != "" && !g.excluded(e) {
			return e
		}
	}
	return nil
}

// trailing returns the last of the attachments that follow best on the way to the branch end
// (best itself when none does): Claude Code 2.1.3xx keeps them on the chain, the file it
// re-attached after a compaction above all, and hangs the next message under them.
func (g *graph) trailing(best, end *Entry) *Entry {
	var path []*Entry // end back to best, exclusive
	seen := map[string]bool{}
	for e := end; e != nil && e != best && !seen[e.UUID]; e = g.byUUID[g.parent(e)] {
		seen[e.UUID] = true
		path = append(path, e)
	}
	out := best
	for i := len(path) - 1; i >= 0 && path[i].Type == TypeAttachment; i-- {
		out = path[i]
	}
	return out
}

// newer reports whether a (at index ia of the file) is newer than b (at ib): a later
// timestamp, or the same (or a missing) one and a later line.
func newer(a *Entry, ia int, b *Entry, ib int) bool {
	if !a.Timestamp.IsZero() && !b.Timestamp.IsZero() && !a.Timestamp.Equal(b.Timestamp) {
		return a.Timestamp.After(b.Timestamp)
	}
	return ia > ib
}

// walk follows parents from leaf and returns the chain oldest first.
func (g *graph) walk(leaf *Entry) ([]*Entry, []Problem) {
	var probs []Problem
	var rev []*Entry
	seen := map[string]bool{}
	for e := leaf; e != nil; {
		if seen[e.UUID] {
			probs = append(probs, Problem{Line: e.Line, UUID: e.UUID, Reason: "parentUuid cycle; chain cut here"})
			break
		}
		seen[e.UUID] = true
		rev = append(rev, e)
		next := g.parent(e)
		if next == "" && e.ParentUUID == "" && (e.LogicalParentUUID != "" || g.logical[e.UUID] != "") {
			next = g.logicalParent(e)
			if next == "" || g.byUUID[next] == nil {
				break // history before the compaction was not loaded
			}
		}
		if next == "" {
			break
		}
		p := g.byUUID[next]
		if p == nil {
			if g.mainline {
				probs = append(probs, Problem{Line: e.Line, UUID: e.UUID, Reason: fmt.Sprintf("parent %s is not in the file; chain starts here", next)})
			}
			// A subagent's chain starts at the main session's entry that spawned it.
			break
		}
		e = p
	}
	slices.Reverse(rev)
	return rev, probs
}

// recoverParallel puts back the sibling assistant lines and tool results of parallel tool
// calls that the single parent walk left off the chain (see BuildChain).
func (g *graph) recoverParallel(chain []*Entry) []*Entry {
	idOf := map[*Entry]string{} // assistant line → its message.id
	for _, e := range g.entries {
		if e.Type == TypeAssistant && e.UUID != "" && g.byUUID[e.UUID] == e && !g.excluded(e) {
			if id := e.ProviderMessageID(); id != "" {
				idOf[e] = id
			}
		}
	}
	seen := make(map[string]bool, len(chain))
	anchor := map[string]*Entry{} // message.id → its last assistant line on the chain
	var ids []string              // message.ids on the chain, in chain order
	for _, e := range chain {
		seen[e.UUID] = true
		id := idOf[e]
		if id == "" {
			continue
		}
		if anchor[id] == nil {
			ids = append(ids, id)
		}
		anchor[id] = e
	}
	if len(ids) == 0 {
		return chain
	}
	// Off-chain candidates: assistant lines of a reply on the chain, and tool results whose
	// parent is an assistant line.
	siblings := map[string][]*Entry{} // message.id → assistant lines, file order
	results := map[string][]*Entry{}  // assistant uuid → off-chain tool results, file order
	for _, e := range g.entries {
		if e.UUID == "" || g.byUUID[e.UUID] != e || g.excluded(e) {
			continue
		}
		switch e.Type {
		case TypeAssistant:
			if id := idOf[e]; id != "" && anchor[id] != nil {
				siblings[id] = append(siblings[id], e)
			}
		case TypeUser:
			if !seen[e.UUID] && hasToolResult(e) {
				p := g.parent(e)
				results[p] = append(results[p], e)
			}
		}
	}
	inserts := map[*Entry][]*Entry{}
	for _, id := range ids {
		var calls, res []*Entry
		for _, s := range siblings[id] {
			if !seen[s.UUID] {
				calls = append(calls, s)
			}
			for _, r := range results[s.UUID] {
				if !seen[r.UUID] {
					res = append(res, r)
				}
			}
		}
		if len(calls) == 0 && len(res) == 0 {
			continue
		}
		byTime := func(a, b *Entry) int { return a.Timestamp.Compare(b.Timestamp) }
		slices.SortStableFunc(calls, byTime)
		slices.SortStableFunc(res, byTime)
		for _, r := range append(calls, res...) {
			seen[r.UUID] = true
		}
		inserts[anchor[id]] = append(calls, res...)
	}
	if len(inserts) == 0 {
		return chain
	}
	out := make([]*Entry, 0, len(chain)+len(inserts)*2)
	for _, e := range chain {
		out = append(out, e)
		out = append(out, inserts[e]...)
	}
	return out
}

// hasToolResult reports whether a user entry's message holds a tool_result block.
func hasToolResult(e *Entry) bool {
	if !bytes.Contains(e.Message, []byte(`"tool_result"`)) {
		return false
	}
	m, ok, err := e.DecodeMessage()
	if err != nil || !ok {
		return false
	}
	return slices.ContainsFunc(m.Content, func(b conversation.Block) bool { return b.Type == conversation.ToolResult })
}

// Turn is one provider message rebuilt from chain entries, with the entries it came from in
// chain order.
type Turn struct {
	conversation.Message
	Entries []*Entry
}

// Last returns the newest entry of the turn.
func (t Turn) Last() *Entry { return t.Entries[len(t.Entries)-1] }

// Turns converts the user and assistant entries among entries (a chain) into provider messages,
// as Claude Code does before sending: the assistant lines of one reply (one message.id) become
// one message, its blocks in line order, even when tool results sit between the lines (2.1
// writes a call's result before the reply's next call when the tool runs while the reply
// streams); those tool results then follow the merged reply. A block the reply already holds
// (the same tool call or signed thinking, from a second copy of the reply) is not repeated. User entries stay one turn each
// (merging consecutive ones is the request's job: conversation.Merge). The entries Claude Code
// writes in place of a failed request's reply (IsAPIError) are left out: they are not the
// model's words. Entries whose message does not decode are reported in the error
// and left out; the rest are returned.
func Turns(entries []*Entry) ([]Turn, error) {
	return turns(entries, nil)
}

// turns is Turns; with left set, it also gives every message and block the line of its entry
// as Origin (so that conversation.Repair's fixes name it) and calls left for each entry left
// out: an API error line (err nil) or a message that does not decode.
func turns(entries []*Entry, left func(e *Entry, err error)) ([]Turn, error) {
	var out []Turn
	var ids []string // message.id of each assistant turn in out ("" for user turns)
	var errs []error
	for _, e := range entries {
		if m, ok := e.attachmentMessage(); ok {
			if left != nil {
				m.Origin = e.Line
				for i := range m.Content {
					m.Content[i].Origin = e.Line
				}
			}
			// Like Claude Code, an attachment goes before the user messages that precede it
			// since the last reply, tool result or summary.
			j := len(out)
			for j > 0 && out[j-1].Role == conversation.User && !hasToolResult(out[j-1].Last()) &&
				out[j-1].Last().Type != TypeAttachment && !out[j-1].Last().IsCompactSummary {
				j--
			}
			out = slices.Insert(out, j, Turn{Message: m, Entries: []*Entry{e}})
			ids = slices.Insert(ids, j, "")
			continue
		}
		if e.Type != TypeUser && e.Type != TypeAssistant {
			continue
		}
		if e.IsAPIError() {
			if left != nil {
				left(e, nil)
			}
			continue
		}
		m, ok, err := e.DecodeMessage()
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", e.Line, err))
			if left != nil {
				left(e, err)
			}
			continue
		}
		if !ok {
			continue
		}
		if m.Role == "" {
			m.Role = conversation.Role(e.Type)
		}
		if left != nil {
			m.Content = slices.Clone(m.Content)
			m.Origin = e.Line
			for i := range m.Content {
				m.Content[i].Origin = e.Line
			}
		}
		id := ""
		if e.Type == TypeAssistant {
			id = e.ProviderMessageID()
		}
		if i := sameReply(out, ids, id); i >= 0 {
			for _, b := range m.Content {
				if !holds(out[i].Content, b) {
					out[i].Content = append(out[i].Content, b)
				}
			}
			out[i].Entries = append(out[i].Entries, e)
			continue
		}
		out = append(out, Turn{Message: m, Entries: []*Entry{e}})
		ids = append(ids, id)
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("transcript: %d messages could not be decoded; first: %w", len(errs), errs[0])
	}
	return out, nil
}

// sameReply returns the index of the assistant turn in out that an assistant line of reply id
// continues, or -1: looking back over tool-result messages and other replies' lines (Claude
// Code's normalizeMessagesForAPI does the same), stopping at any other user message.
func sameReply(out []Turn, ids []string, id string) int {
	if id == "" {
		return -1
	}
	for i := len(out) - 1; i >= 0; i-- {
		switch {
		case out[i].Role == conversation.Assistant:
			if ids[i] == id {
				return i
			}
		case !onlyToolResults(out[i].Message):
			return -1
		}
	}
	return -1
}

// holds reports whether a reply's blocks already hold b: a tool call with its id, or thinking
// with its signature. A reply can be in a file twice, once as one line and once as a line per
// block (a real 2.0.76 session has both); the second copy adds nothing.
func holds(bs []conversation.Block, b conversation.Block) bool {
	return slices.ContainsFunc(bs, func(x conversation.Block) bool {
		switch {
		case x.Type != b.Type:
			return false
		case b.Type == conversation.ToolUse:
			return x.ID == b.ID
		case b.Type == conversation.Thinking:
			return b.Signature != "" && x.Signature == b.Signature
		case b.Type == conversation.RedactedThinking:
			return x.Data == b.Data
		}
		return false
	})
}

func onlyToolResults(m conversation.Message) bool {
	if len(m.Content) == 0 {
		return false
	}
	for _, b := range m.Content {
		if b.Type != conversation.ToolResult {
			return false
		}
	}
	return true
}

// Messages converts the user and assistant entries among entries into the messages of a
// request (Turns, then consecutive messages of one role merged by conversation.Merge). Entries
// whose message does not decode are reported in the error and left out; the rest are returned.
func Messages(entries []*Entry) ([]conversation.Message, error) {
	turns, err := Turns(entries)
	msgs := make([]conversation.Message, len(turns))
	for i, t := range turns {
		msgs[i] = t.Message
	}
	return conversation.Merge(msgs), err
}
