package transcript

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/strata-mem/strata/conversation"
)

// Session is a transcript loaded for resuming or showing: the file's entries, the conversation
// chain rebuilt from them and the session's metadata.
type Session struct {
	ID   string
	File *File
	// Chain is the conversation from its first reachable entry to the leaf, oldest first, as
	// Claude Code's loader rebuilds it (BuildChain): the leaf is the newest user or assistant
	// entry that ends a branch (not on a sidechain, unless the whole file is a subagent's),
	// each step follows parentUuid through progress entries, or logicalParentUuid across a
	// compact boundary, and the sibling lines and results of parallel tool calls are put back.
	// Progress entries are not in it.
	Chain []*Entry
	// Boundary is the index in Chain of the last compact boundary, or -1.
	Boundary int
	Meta     Metadata
	// Problems are the file's skipped lines and notes followed by the chain's breaks (a cycle,
	// a parent that is not in the file).
	Problems []Problem
}

// Load reads the transcript at path and rebuilds its conversation (see ReadFile for what is
// read and BuildChain for the chain).
func Load(ctx context.Context, path string, opts ReadOptions) (*Session, error) {
	f, err := ReadFile(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	return FromFile(f), nil
}

// FromFile rebuilds the session held by f.
func FromFile(f *File) *Session {
	s := &Session{ID: SessionIDOf(f.Path), File: f}
	chain, probs := BuildChain(f.Entries)
	s.Chain = chain
	s.Boundary = -1
	for i, e := range chain {
		if e.IsCompactBoundary() {
			s.Boundary = i
		}
	}
	s.Problems = append(append([]Problem(nil), f.Problems...), probs...)
	for _, e := range f.Earlier {
		s.Meta.add(e)
	}
	for _, e := range f.Entries {
		s.Meta.add(e)
		if s.ID == "" && e.SessionID != "" {
			s.ID = e.SessionID
		}
	}
	return s
}

// Live returns the part of the chain the model sees after a resume: everything after the last
// compact boundary (the compact summary first), or the whole chain.
func (s *Session) Live() []*Entry {
	return s.Chain[s.Boundary+1:]
}

// Leaf returns the last entry of the chain, or nil for an empty session: the entry a resumed
// conversation's next message hangs under, as in Claude Code (after recovered parallel tool
// results, it is the last of them rather than the leaf BuildChain started from).
func (s *Session) Leaf() *Entry {
	if len(s.Chain) == 0 {
		return nil
	}
	return s.Chain[len(s.Chain)-1]
}

// Lines returns the chain's entries together with the entries their parent links pass
// through (progress entries, which the chain bridges), in file order: the lines an export
// writes so that the result loads back to the same chain.
func (s *Session) Lines() []*Entry {
	on := make(map[*Entry]bool, len(s.Chain))
	for _, e := range s.Chain {
		on[e] = true
	}
	g := newGraph(s.File.Entries)
	bridged := map[string]*Entry{}
	for _, e := range s.File.Entries {
		if _, ok := g.bridge[e.UUID]; ok && bridged[e.UUID] == nil {
			bridged[e.UUID] = e
		}
	}
	for _, e := range s.Chain {
		for _, id := range []string{e.ParentUUID, e.LogicalParentUUID} {
			for p := bridged[id]; p != nil && !on[p]; p = bridged[p.ParentUUID] {
				on[p] = true
			}
		}
	}
	out := make([]*Entry, 0, len(on))
	for _, e := range s.File.Entries {
		if on[e] {
			out = append(out, e)
		}
	}
	return out
}

// Metadata is the latest value of each kind of session metadata.
type Metadata struct {
	CustomTitle, AITitle, Summary, Tag, LastPrompt, AgentName, Mode, PermissionMode string
	// Entries holds the latest entry of each metadata type, to seed a Journal (Options.Metadata)
	// when the session is resumed.
	Entries map[string]*Entry
}

// Title is the title the metadata alone gives: the user's custom title, else the generated
// one. A session's title by the full rule (a summary of this session, else its first prompt)
// is Session.Title; see the package function Title.
func (m Metadata) Title() string { return Title(m.CustomTitle, m.AITitle, "", "", "") }

// List returns the latest metadata entries (for Options.Metadata).
func (m Metadata) List() []*Entry {
	out := make([]*Entry, 0, len(m.Entries))
	for _, t := range sortedKeys(m.Entries) {
		out = append(out, m.Entries[t])
	}
	return out
}

func (m *Metadata) add(e *Entry) {
	if !metadataTypes[e.Type] {
		return
	}
	if m.Entries == nil {
		m.Entries = map[string]*Entry{}
	}
	m.Entries[e.Type] = e
	switch e.Type {
	case TypeCustomTitle:
		m.CustomTitle = e.CustomTitle
	case TypeAITitle:
		m.AITitle = e.AITitle
	case TypeSummary:
		m.Summary = e.Summary
	case TypeTag:
		m.Tag = e.Tag
	case TypeLastPrompt:
		m.LastPrompt = e.LastPrompt
	case TypeAgentName:
		m.AgentName = e.AgentName
	case TypeMode:
		m.Mode = e.Mode
	case TypePermissionMode:
		var pm struct {
			PermissionMode string `json:"permissionMode"`
		}
		if json.Unmarshal(e.Raw, &pm) == nil {
			m.PermissionMode = pm.PermissionMode
		}
	}
}

// ToolUse is a tool call found on the chain with its result, if one came back.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
	// Call is the assistant entry that holds the call.
	Call *Entry
	// Result is the user entry that holds the tool_result block (nil if none yet);
	// Output is that entry's toolUseResult (structured result, when the tool wrote one) and
	// IsError the block's is_error.
	Result  *Entry
	Output  json.RawMessage
	IsError bool
}

// ToolUses returns the calls of the named tools (all tools when names is empty) on the chain,
// oldest first, each paired with its result.
func (s *Session) ToolUses(names ...string) []ToolUse {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []ToolUse
	index := map[string]int{}
	for _, e := range s.Chain {
		if e.Type != TypeAssistant && e.Type != TypeUser || len(e.Message) == 0 {
			continue
		}
		if !bytes.Contains(e.Message, []byte(`"tool_`)) {
			continue
		}
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			continue
		}
		for _, b := range m.Content {
			switch {
			case b.Type == conversation.ToolUse && e.Type == TypeAssistant && (len(want) == 0 || want[b.Name]):
				index[b.ID] = len(out)
				out = append(out, ToolUse{ID: b.ID, Name: b.Name, Input: b.Input, Call: e})
			case b.Type == conversation.ToolResult:
				if i, ok := index[b.ToolUseID]; ok {
					out[i].Result, out[i].Output, out[i].IsError = e, e.ToolUseResult, b.IsError
				}
			}
		}
	}
	return out
}

// ReadToolUses returns the Read tool calls on the chain with their results: the raw material
// for restoring the read-file history.
func (s *Session) ReadToolUses() []ToolUse { return s.ToolUses("Read") }

// Todos is the newest todo list found on the chain.
type Todos struct {
	// Input is the TodoWrite input ({"todos":[…]}); for Claude Code 1.0.x transcripts, which
	// stored the list on user entries, the same shape is built from that list.
	Input json.RawMessage
	// Entry is the entry it was found on.
	Entry *Entry
}

// LastTodos returns the newest TodoWrite input on the chain (or a 1.0.x user entry's todos),
// and false when there is none.
func (s *Session) LastTodos() (Todos, bool) {
	for i := len(s.Chain) - 1; i >= 0; i-- {
		e := s.Chain[i]
		if e.Type == TypeUser && len(e.Todos) > 0 && string(e.Todos) != "null" {
			in, err := jsonMarshal(map[string]json.RawMessage{"todos": e.Todos})
			if err == nil {
				return Todos{Input: in, Entry: e}, true
			}
		}
		if e.Type != TypeAssistant || !bytes.Contains(e.Message, []byte(`"TodoWrite"`)) {
			continue
		}
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			continue
		}
		for j := len(m.Content) - 1; j >= 0; j-- {
			if b := m.Content[j]; b.Type == conversation.ToolUse && b.Name == "TodoWrite" {
				return Todos{Input: b.Input, Entry: e}, true
			}
		}
	}
	return Todos{}, false
}

// OfType returns the entries of type typ in file order (file-history-snapshot, queue-operation,
// or types other packages define to persist their state).
func (s *Session) OfType(typ string) []*Entry {
	var out []*Entry
	for _, e := range s.File.Entries {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// FileSnapshots returns the file-history-snapshot entries (file backups taken before edits,
// for rewind), in file order.
func (s *Session) FileSnapshots() []*Entry { return s.OfType(TypeFileHistorySnapshot) }

// LastActivity returns the newest timestamp in the loaded part of the file.
func (s *Session) LastActivity() time.Time {
	for i := len(s.File.Entries) - 1; i >= 0; i-- {
		if t := s.File.Entries[i].Timestamp; !t.IsZero() {
			return t
		}
	}
	return time.Time{}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// RequestFix is a change a resume of the session makes to its live conversation so that the
// request it sends is valid — a line the loader leaves out (a failed request's error line, a
// message that does not decode), or a fix of conversation.Repair — with the line of the
// transcript entry it concerns (0 only when it concerns no entry: a message Repair added).
type RequestFix struct {
	conversation.Fix
	Line int
}

// Kinds of RequestFix the loader makes before conversation.Repair.
const (
	// APIErrorLine: an assistant line Claude Code wrote in place of a failed request's reply
	// (Entry.IsAPIError) is left out: it is not the model's words.
	APIErrorLine conversation.ProblemKind = "api-error-line"
	// UndecodableMessage: a user or assistant line whose message does not decode is left out.
	UndecodableMessage conversation.ProblemKind = "undecodable-message"
)

func (f RequestFix) String() string {
	what := f.What()
	switch f.Kind {
	case APIErrorLine:
		what = "the error of a failed request, written in place of a reply (isApiErrorMessage)"
	case UndecodableMessage:
		what = "the message does not decode"
	}
	if f.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", f.Line, what, f.Action)
	}
	if f.Kind == APIErrorLine || f.Kind == UndecodableMessage {
		return what + ": " + f.Action
	}
	return f.Fix.String()
}

// RequestFixes returns what a resume repairs in the live conversation, each with its line:
// the lines the loader leaves out (Turns: failed requests' error lines, messages that do not
// decode), in file order, then the fixes of conversation.Repair of Messages of Live (calls left
// without a result by a crash or a damaged file, stray results, blank text, unsigned thinking,
// web search blocks, a reply ending in its thinking and the like), each located through the
// Origin of the block or message it concerns. nil means the conversation resumes as it is.
func (s *Session) RequestFixes() []RequestFix {
	var out []RequestFix
	ts, _ := turns(s.Live(), func(e *Entry, err error) {
		f := RequestFix{Line: e.Line}
		f.Kind, f.Action, f.Origin = APIErrorLine, "left out (not the model's words)", e.Line
		if err != nil {
			f.Kind, f.Action = UndecodableMessage, "left out ("+err.Error()+")"
		}
		out = append(out, f)
	})
	msgs := make([]conversation.Message, len(ts))
	for i, t := range ts {
		msgs[i] = t.Message
	}
	if len(msgs) > 0 {
		_, fixes := conversation.Repair(conversation.Merge(msgs))
		for _, f := range fixes {
			out = append(out, RequestFix{Fix: f, Line: f.Origin})
		}
	}
	return out
}
