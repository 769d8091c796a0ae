package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/strata-mem/strata/conversation"
)

// Entry types written by Claude Code (and by strata). Any other type is kept as it is.
const (
	TypeUser                = "user"
	TypeAssistant           = "assistant"
	TypeAttachment          = "attachment"
	TypeSystem              = "system"
	TypeProgress            = "progress"
	TypeSummary             = "summary"
	TypeCustomTitle         = "custom-title"
	TypeAITitle             = "ai-title"
	TypeTag                 = "tag"
	TypeLastPrompt          = "last-prompt"
	TypeAgentName           = "agent-name"
	TypeMode                = "mode"
	TypePermissionMode      = "permission-mode"
	TypeWorktreeState       = "worktree-state"
	TypeFileHistorySnapshot = "file-history-snapshot"
	TypeQueueOperation      = "queue-operation"

	// SubtypeCompactBoundary marks a system entry written by compaction: its parentUuid is null
	// and logicalParentUuid names the last entry before the compaction.
	SubtypeCompactBoundary = "compact_boundary"
)

// metadataTypes are session-level entries that describe the session rather than the
// conversation. The latest of each type wins; the Journal re-appends them at Close so listing,
// which reads only the file's tail, still sees them.
var metadataTypes = map[string]bool{
	TypeSummary: true, TypeCustomTitle: true, TypeAITitle: true, TypeTag: true, TypeLastPrompt: true,
	TypeAgentName: true, TypeMode: true, TypePermissionMode: true, TypeWorktreeState: true,
}

// IsMetadataType reports whether entries of type t are session metadata (title, tag, mode …).
func IsMetadataType(t string) bool { return metadataTypes[t] }

// chainTypes are the entry types that form the conversation's parentUuid chain.
var chainTypes = map[string]bool{TypeUser: true, TypeAssistant: true, TypeAttachment: true, TypeSystem: true, TypeProgress: true}

// Entry is one line of a transcript. The typed fields are a view of the keys strata knows;
// every other key is kept: Raw holds the line exactly as read, and Extra holds unknown keys of
// entries built in memory. Writing an entry writes Raw's keys in their order with the typed
// fields laid over them (a zero typed field keeps Raw's value), then Extra's keys; so unknown
// types and fields survive a read/write round trip.
type Entry struct {
	Type    string
	Subtype string

	UUID              string
	ParentUUID        string // "" is written as null for conversation entries
	LogicalParentUUID string // set on compact boundaries: the entry before the compaction
	IsSidechain       bool
	SessionID         string
	AgentID           string
	CWD               string
	GitBranch         string
	Version           string
	UserType          string
	Timestamp         time.Time

	// Message is the provider message ({"role":..,"content":..}) of user and assistant
	// entries, verbatim. Decode it with DecodeMessage.
	Message          json.RawMessage
	IsMeta           bool
	IsCompactSummary bool
	// Provenance is a user entry's conversation.Provenance, verbatim (InputProvenance).
	Provenance    json.RawMessage
	ToolUseResult json.RawMessage
	// Content is a system entry's text or a queue operation's payload, verbatim.
	Content json.RawMessage
	Level   string

	// Metadata entries.
	Summary     string
	LeafUUID    string
	CustomTitle string
	AITitle     string
	Tag         string
	LastPrompt  string
	AgentName   string
	Mode        string

	// MessageID and Snapshot belong to file-history-snapshot entries.
	MessageID string
	Snapshot  json.RawMessage
	// Todos is the todo list that Claude Code 1.0.x stored on user entries.
	Todos json.RawMessage

	// Extra holds keys the typed view does not know, for entries built in memory.
	Extra map[string]json.RawMessage
	// Raw is the line as read (without its newline); nil for entries built in memory.
	Raw []byte
	// Line is the entry's 1-based line number in the file it was read from (0 if built in
	// memory). It is not written.
	Line int
}

// wireEntry is the JSON shape of the known keys. rawSpan fields alias the input line.
type wireEntry struct {
	Type              string  `json:"type"`
	Subtype           string  `json:"subtype"`
	UUID              string  `json:"uuid"`
	ParentUUID        *string `json:"parentUuid"`
	LogicalParentUUID *string `json:"logicalParentUuid"`
	IsSidechain       bool    `json:"isSidechain"`
	SessionID         string  `json:"sessionId"`
	AgentID           string  `json:"agentId"`
	CWD               string  `json:"cwd"`
	GitBranch         string  `json:"gitBranch"`
	Version           string  `json:"version"`
	UserType          string  `json:"userType"`
	Timestamp         string  `json:"timestamp"`
	Message           rawSpan `json:"message"`
	IsMeta            bool    `json:"isMeta"`
	IsCompactSummary  bool    `json:"isCompactSummary"`
	Provenance        rawSpan `json:"provenance"`
	ToolUseResult     rawSpan `json:"toolUseResult"`
	Content           rawSpan `json:"content"`
	Level             string  `json:"level"`
	Summary           string  `json:"summary"`
	LeafUUID          string  `json:"leafUuid"`
	CustomTitle       string  `json:"customTitle"`
	AITitle           string  `json:"aiTitle"`
	Tag               string  `json:"tag"`
	LastPrompt        string  `json:"lastPrompt"`
	AgentName         string  `json:"agentName"`
	Mode              string  `json:"mode"`
	MessageID         string  `json:"messageId"`
	Snapshot          rawSpan `json:"snapshot"`
	Todos             rawSpan `json:"todos"`
}

// knownKeys are the JSON keys of the typed view, in the order strata writes them (Claude
// Code's order where it has one).
var knownKeys = []string{"parentUuid", "logicalParentUuid", "isSidechain", "userType", "cwd", "sessionId",
	"version", "gitBranch", "agentId", "type", "subtype", "message", "content", "level", "isMeta",
	"isCompactSummary", "provenance", "uuid", "timestamp", "toolUseResult", "summary", "leafUuid", "customTitle",
	"aiTitle", "tag", "lastPrompt", "agentName", "mode", "messageId", "snapshot", "todos"}

// knownKeySet is knownKeys as a set, built on first use rather than at every process's start.
var knownKeySet = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool, len(knownKeys))
	for _, k := range knownKeys {
		m[k] = true
	}
	return m
})

// rawSpan is a json.RawMessage that keeps a slice of the input instead of a copy, so an entry's
// message costs no memory beyond its line. aliasing reports whether the decoder hands
// UnmarshalJSON a slice of its input (encoding/json does); if not, the bytes are copied.
type rawSpan []byte

var aliasing = sync.OnceValue(func() bool {
	in := []byte(`{"message":{"a":1}}`)
	var w struct {
		Message probeSpan `json:"message"`
	}
	if err := json.Unmarshal(in, &w); err != nil || len(w.Message) == 0 {
		return false
	}
	return &w.Message[0] == &in[11]
})

// probeSpan keeps the slice it is given; it only tests the decoder.
type probeSpan []byte

func (p *probeSpan) UnmarshalJSON(b []byte) error { *p = b; return nil }

func (r *rawSpan) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = nil
		return nil
	}
	if aliasing() {
		*r = b[:len(b):len(b)]
	} else {
		*r = append([]byte(nil), b...)
	}
	return nil
}

// ErrNotObject is returned by ParseEntry for a line that is valid JSON but not an object.
var ErrNotObject = errors.New("transcript: line is not a JSON object")

// ParseEntry decodes one transcript line. The entry keeps line as Raw and its message fields
// point into it, so the caller must not modify line afterwards. A known key holding a value of
// the wrong type is ignored (its value stays in Raw) and reported as a *FieldError together
// with the usable entry; any other error means the line is not an entry.
func ParseEntry(line []byte) (*Entry, error) {
	line = bytes.TrimRight(line, "\r")
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return nil, errors.New("transcript: empty line")
	}
	if line[i] != '{' {
		if json.Valid(line) {
			return nil, ErrNotObject
		}
		return nil, fmt.Errorf("transcript: invalid JSON")
	}
	var w wireEntry
	err := json.Unmarshal(line, &w)
	var fieldErr error
	if err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil, fmt.Errorf("transcript: invalid JSON: %w", err)
		}
		fieldErr = &FieldError{Field: te.Field, Err: err}
	}
	e := &Entry{
		Type: w.Type, Subtype: w.Subtype, UUID: w.UUID, IsSidechain: w.IsSidechain, SessionID: w.SessionID,
		AgentID: w.AgentID, CWD: w.CWD, GitBranch: w.GitBranch, Version: w.Version, UserType: w.UserType,
		Message: json.RawMessage(w.Message), IsMeta: w.IsMeta, IsCompactSummary: w.IsCompactSummary,
		Provenance: json.RawMessage(w.Provenance), ToolUseResult: json.RawMessage(w.ToolUseResult), Content: json.RawMessage(w.Content), Level: w.Level,
		Summary: w.Summary, LeafUUID: w.LeafUUID, CustomTitle: w.CustomTitle, AITitle: w.AITitle, Tag: w.Tag,
		LastPrompt: w.LastPrompt, AgentName: w.AgentName, Mode: w.Mode, MessageID: w.MessageID,
		Snapshot: json.RawMessage(w.Snapshot), Todos: json.RawMessage(w.Todos), Raw: line,
	}
	if w.ParentUUID != nil {
		e.ParentUUID = *w.ParentUUID
	}
	if w.LogicalParentUUID != nil {
		e.LogicalParentUUID = *w.LogicalParentUUID
	}
	if w.Timestamp != "" {
		if t, err := time.Parse(time.RFC3339Nano, w.Timestamp); err == nil {
			e.Timestamp = t
		} else if fieldErr == nil {
			fieldErr = &FieldError{Field: "timestamp", Err: err}
		}
	}
	return e, fieldErr
}

// FieldError reports a known key whose value has the wrong type or form. The entry is still
// usable; the key's original value stays in Raw.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return fmt.Sprintf("transcript: field %s: %v", e.Field, e.Err) }
func (e *FieldError) Unwrap() error { return e.Err }

// IsCompactBoundary reports whether e is a compaction's boundary marker.
func (e *Entry) IsCompactBoundary() bool {
	return e.Type == TypeSystem && e.Subtype == SubtypeCompactBoundary
}

// IsConversation reports whether e belongs to the conversation chain (user, assistant,
// attachment, system or progress entries).
func (e *Entry) IsConversation() bool { return chainTypes[e.Type] }

// DecodeMessage decodes the entry's message into the shared message model. It returns false
// when the entry has no message. Blocks of unknown types keep their type and known fields only;
// the entry's Message keeps the full original.
func (e *Entry) DecodeMessage() (conversation.Message, bool, error) {
	if len(e.Message) == 0 {
		return conversation.Message{}, false, nil
	}
	var m conversation.Message
	if err := json.Unmarshal(e.Message, &m); err != nil {
		return conversation.Message{}, false, fmt.Errorf("transcript: entry %s: message: %w", e.UUID, err)
	}
	return m, true, nil
}

// IsAPIError reports whether e is the assistant entry Claude Code writes in place of a reply
// when a request failed (isApiErrorMessage, under the model "<synthetic>": "API Error: 529
// Overloaded…", "You've hit your session limit…"). Its text is not the model's words, so it is
// not sent back to a model.
func (e *Entry) IsAPIError() bool {
	if e.Type != TypeAssistant || len(e.Message) == 0 {
		return false
	}
	if model, ok := topLevelString(e.Message, "model"); ok && model != "<synthetic>" {
		return false
	}
	var w struct {
		IsAPIErrorMessage bool `json:"isApiErrorMessage"`
	}
	if e.Raw != nil {
		json.Unmarshal(e.Raw, &w)
	} else if v, ok := e.Extra["isApiErrorMessage"]; ok {
		json.Unmarshal(v, &w.IsAPIErrorMessage)
	}
	return w.IsAPIErrorMessage
}

// ProviderMessageID returns the provider's message id ("msg_…") of an assistant entry. Claude Code
// writes one entry per content block, so several consecutive entries can share it.
func (e *Entry) ProviderMessageID() string {
	if len(e.Message) == 0 {
		return ""
	}
	if id, ok := topLevelString(e.Message, "id"); ok {
		return id
	}
	var m map[string]json.RawMessage
	var id string
	if json.Unmarshal(e.Message, &m) != nil || json.Unmarshal(m["id"], &id) != nil {
		return ""
	}
	return id
}

// topLevelString returns the string value of key (exact case; the last one when repeated, as
// JSON.parse reads it) among the top-level keys of the JSON object data, skipping the other
// values without decoding them: a reply's content can be large, and BuildChain asks every
// assistant line for its id. ok is false when the scan cannot decide (a key with escapes,
// malformed input): the caller decodes instead.
func topLevelString(data []byte, key string) (string, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return "", false
	}
	i++
	var val []byte
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return "", false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != '"' {
			return "", false
		}
		end := bytes.IndexByte(data[i+1:], '"')
		if end < 0 {
			return "", false
		}
		k := data[i+1 : i+1+end]
		if bytes.IndexByte(k, '\\') >= 0 {
			return "", false
		}
		i = skipSpace(data, i+end+2)
		if i >= len(data) || data[i] != ':' {
			return "", false
		}
		i = skipSpace(data, i+1)
		j, ok := skipValue(data, i)
		if !ok {
			return "", false
		}
		if string(k) == key {
			val = data[i:j]
		}
		i = skipSpace(data, j)
		if i < len(data) && data[i] == ',' {
			i++
		}
	}
	var v string
	if val == nil || json.Unmarshal(val, &v) != nil {
		return "", true // no such key, or not a string
	}
	return v, true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the offset just after the JSON value starting at data[i].
func skipValue(data []byte, i int) (int, bool) {
	depth := 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return 0, false
			}
			i++ // past the closing quote
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			if depth == 0 {
				return i, true // the enclosing object ends: a number or literal ended here
			}
			depth--
			i++
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			return i, true
		default:
			i++
		}
		if depth == 0 && (c == '"' || c == '}' || c == ']') {
			return i, true
		}
	}
	return i, depth == 0
}

// Usage returns the provider's usage that Claude Code (and strata) store under message.usage
// of an assistant entry, or nil when the entry has none or it reports nothing.
func (e *Entry) Usage() *conversation.Usage {
	if e.Type != TypeAssistant || len(e.Message) == 0 {
		return nil
	}
	var m struct {
		Usage *conversation.Usage `json:"usage"`
	}
	if json.Unmarshal(e.Message, &m) != nil || m.Usage == nil || !m.Usage.Reported() {
		return nil
	}
	return m.Usage
}

// EncodeMessage is the message of a user or assistant entry: {"role":..,"content":..} plus,
// when u reports usage, "usage" in Claude Code's shape (read back by Entry.Usage).
func EncodeMessage(m conversation.Message, u *conversation.Usage) (json.RawMessage, error) {
	if u == nil || !u.Reported() {
		return json.Marshal(m)
	}
	return json.Marshal(struct {
		conversation.Message
		Usage *conversation.Usage `json:"usage"`
	}{m, u})
}

// TimeFormat is how timestamps are written: UTC with milliseconds, as Claude Code does.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// MarshalJSON writes the entry as one JSON object (see Entry for how Raw, the typed fields and
// Extra combine).
func (e *Entry) MarshalJSON() ([]byte, error) {
	if len(e.Raw) == 0 && len(e.Extra) == 0 {
		return e.marshalKnown()
	}
	var pairs []kv
	if len(e.Raw) > 0 {
		var err error
		if pairs, err = objectPairs(e.Raw); err != nil {
			return nil, fmt.Errorf("transcript: entry %s: raw line: %w", e.UUID, err)
		}
	}
	set := func(k string, v []byte) {
		for i := range pairs {
			if pairs[i].key == k {
				pairs[i].val = v
				return
			}
		}
		pairs = append(pairs, kv{k, v})
	}
	if e.Raw == nil && metadataTypes[e.Type] {
		// Metadata lines start with their type, as Claude Code writes them, so that listing
		// can recognise them from their first bytes.
		set("type", e.known("type"))
	}
	for _, k := range knownKeys {
		if v := e.known(k); v != nil {
			set(k, v)
		}
	}
	if len(e.Extra) > 0 {
		keys := make([]string, 0, len(e.Extra))
		for k := range e.Extra {
			if !knownKeySet()[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			v, err := compactJSON(e.Extra[k])
			if err != nil {
				return nil, fmt.Errorf("transcript: entry %s: field %s: %w", e.UUID, k, err)
			}
			set(k, v)
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, p.key)
		b.WriteByte(':')
		b.Write(p.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalKnown writes an entry built in memory: its typed fields only, metadata types with
// "type" first.
func (e *Entry) marshalKnown() ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, 256+len(e.Message)+len(e.ToolUseResult)))
	b.WriteByte('{')
	first := true
	put := func(k string, v []byte) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte('"')
		b.WriteString(k) // known keys need no escaping
		b.WriteString(`":`)
		b.Write(v)
	}
	meta := metadataTypes[e.Type]
	if meta {
		put("type", e.known("type"))
	}
	for _, k := range knownKeys {
		if meta && k == "type" {
			continue
		}
		if v := e.known(k); v != nil {
			put(k, v)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type kv struct {
	key string
	val []byte
}

// known returns the JSON value of a typed field, or nil when it is zero (and so not written,
// except parentUuid, which conversation entries always carry, as null for a root).
func (e *Entry) known(k string) []byte {
	str := func(s string) []byte {
		if s == "" {
			return nil
		}
		var b bytes.Buffer
		writeString(&b, s)
		return b.Bytes()
	}
	flag := func(v bool) []byte {
		if !v {
			return nil
		}
		return []byte("true")
	}
	raw := func(r json.RawMessage) []byte {
		if len(r) == 0 {
			return nil
		}
		return r // one line: a slice of Raw, or compacted by encodeLine
	}
	switch k {
	case "parentUuid":
		if e.ParentUUID == "" {
			if chainTypes[e.Type] && e.Raw == nil {
				return []byte("null")
			}
			return nil
		}
		return str(e.ParentUUID)
	case "logicalParentUuid":
		return str(e.LogicalParentUUID)
	case "isSidechain":
		if chainTypes[e.Type] && e.Raw == nil {
			if e.IsSidechain {
				return []byte("true")
			}
			return []byte("false")
		}
		return flag(e.IsSidechain)
	case "userType":
		return str(e.UserType)
	case "cwd":
		return str(e.CWD)
	case "sessionId":
		return str(e.SessionID)
	case "version":
		return str(e.Version)
	case "gitBranch":
		return str(e.GitBranch)
	case "agentId":
		return str(e.AgentID)
	case "type":
		return str(e.Type)
	case "subtype":
		return str(e.Subtype)
	case "message":
		return raw(e.Message)
	case "content":
		return raw(e.Content)
	case "level":
		return str(e.Level)
	case "isMeta":
		return flag(e.IsMeta)
	case "isCompactSummary":
		return flag(e.IsCompactSummary)
	case "provenance":
		return raw(e.Provenance)
	case "uuid":
		return str(e.UUID)
	case "timestamp":
		if e.Timestamp.IsZero() {
			return nil
		}
		return str(e.Timestamp.UTC().Format(TimeFormat))
	case "toolUseResult":
		return raw(e.ToolUseResult)
	case "summary":
		return str(e.Summary)
	case "leafUuid":
		return str(e.LeafUUID)
	case "customTitle":
		return str(e.CustomTitle)
	case "aiTitle":
		return str(e.AITitle)
	case "tag":
		return str(e.Tag)
	case "lastPrompt":
		return str(e.LastPrompt)
	case "agentName":
		return str(e.AgentName)
	case "mode":
		return str(e.Mode)
	case "messageId":
		return str(e.MessageID)
	case "snapshot":
		return raw(e.Snapshot)
	case "todos":
		return raw(e.Todos)
	}
	return nil
}

// writeString writes s as a JSON string without HTML escaping (transcripts are full of
// <command-name> tags; escaping them would make strata's files differ from Claude Code's).
func writeString(b *bytes.Buffer, s string) {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	b.Truncate(b.Len() - 1)
}

// compactJSON returns v without insignificant whitespace, or an error when it is not JSON.
func compactJSON(v []byte) ([]byte, error) {
	if bytes.IndexAny(v, " \t\r\n") < 0 {
		if !json.Valid(v) {
			return nil, errors.New("not valid JSON")
		}
		return v, nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// objectPairs splits a JSON object into its keys and raw values, in order.
func objectPairs(data []byte) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, ErrNotObject
	}
	var pairs []kv
	seen := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if i, dup := seen[k]; dup { // the last duplicate wins, as in encoding/json
			pairs[i].val = v
			continue
		}
		seen[k] = len(pairs)
		pairs = append(pairs, kv{k, v})
	}
	return pairs, nil
}

// encodeLine returns the entry's JSON followed by a newline. Raw JSON fields of entries built
// in memory are compacted and checked first, so the record is exactly one line of valid JSON.
func encodeLine(e *Entry) ([]byte, error) {
	if e.Raw == nil {
		for _, f := range []*json.RawMessage{&e.Message, &e.ToolUseResult, &e.Content, &e.Snapshot, &e.Todos} {
			if len(*f) == 0 {
				continue
			}
			c, err := compactJSON(*f)
			if err != nil {
				return nil, fmt.Errorf("transcript: entry %s: %w", e.UUID, err)
			}
			*f = c
		}
	}
	b, err := e.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if e.Raw != nil && bytes.ContainsAny(b, "\r\n") {
		var out bytes.Buffer
		if err := json.Compact(&out, b); err != nil {
			return nil, fmt.Errorf("transcript: entry %s: %w", e.UUID, err)
		}
		b = out.Bytes()
	}
	return append(b, '\n'), nil
}

// InputProvenance decodes the entry's provenance: zero when it has none or it does not parse
// (a transcript written before it, or by Claude Code).
func (e *Entry) InputProvenance() conversation.Provenance {
	var p conversation.Provenance
	if len(e.Provenance) > 0 && json.Unmarshal(e.Provenance, &p) != nil {
		return conversation.Provenance{}
	}
	return p
}
