package conversation

import (
	"fmt"
	"slices"
	"strings"
)

// The rules a request's messages must follow, as the Anthropic Messages API enforces them (an
// OpenAI-compatible server needs a subset: it takes consecutive messages of one role). One
// function decides each: Check reports, Repair fixes, and both use the same predicates.

// ProblemKind names a rule a request's messages break.
type ProblemKind string

// Problem kinds.
const (
	// NoMessages: the request has no message at all.
	NoMessages ProblemKind = "no-messages"
	// FirstNotUser: the first message is the assistant's.
	FirstNotUser ProblemKind = "first-not-user"
	// EmptyMessage: a message has no content, or only empty or blank text blocks.
	EmptyMessage ProblemKind = "empty-message"
	// EmptyText: a text block is empty or blank (the API refuses it even beside other blocks).
	EmptyText ProblemKind = "empty-text"
	// SameRole: two consecutive messages have the same role.
	SameRole ProblemKind = "same-role"
	// Unanswered: a tool_use has no tool_result in the next message.
	Unanswered ProblemKind = "unanswered-tool-use"
	// StrayResult: a tool_result answers no tool_use of the message before (or answers one
	// twice).
	StrayResult ProblemKind = "stray-tool-result"
	// ResultNotFirst: a tool_result comes after other content in its message.
	ResultNotFirst ProblemKind = "tool-result-not-first"
	// DuplicateCall: a tool_use repeats the id of an earlier one (the API wants ids unique).
	DuplicateCall ProblemKind = "duplicate-tool-use"
	// Unsendable: a block no request carries (see Sendable): thinking without its signature,
	// a provider's server-side tool call or result, a type strata does not know.
	Unsendable ProblemKind = "unsendable-block"
	// ThinkingLast: an assistant message ends with thinking (a reply cut off after it); the
	// API refuses an assistant message whose final block is thinking.
	ThinkingLast ProblemKind = "thinking-last"
)

// Problem is one broken rule, located by message index (and block index where there is one).
type Problem struct {
	Kind    ProblemKind
	Message int
	// Block is the index of the offending block in the message, or -1.
	Block int
	// ToolUseID is the call concerned (Unanswered, StrayResult, ResultNotFirst).
	ToolUseID string
	// Tool is the name of the unanswered call.
	Tool string
	// BlockType is the type of the block concerned (Unsendable).
	BlockType BlockType
}

func (p Problem) String() string {
	if p.Kind == NoMessages {
		return p.What()
	}
	return fmt.Sprintf("message %d: %s", p.Message, p.What())
}

// What says what is wrong, without the message's position.
func (p Problem) What() string {
	switch p.Kind {
	case NoMessages:
		return "the request has no messages"
	case FirstNotUser:
		return "the first message is the assistant's, not the user's"
	case EmptyMessage:
		return "the message is empty"
	case EmptyText:
		return fmt.Sprintf("text block %d is empty", p.Block)
	case SameRole:
		return "same role as the message before"
	case Unanswered:
		return fmt.Sprintf("tool call %s (%s) has no tool_result in the next message", p.ToolUseID, p.Tool)
	case StrayResult:
		return fmt.Sprintf("tool_result for %s answers no tool call of the message before", p.ToolUseID)
	case ResultNotFirst:
		return fmt.Sprintf("tool_result for %s comes after other content", p.ToolUseID)
	case DuplicateCall:
		return fmt.Sprintf("tool call %s repeats an earlier call's id", p.ToolUseID)
	case Unsendable:
		return fmt.Sprintf("block %d (%s) cannot be sent to a model", p.Block, p.BlockType)
	case ThinkingLast:
		return fmt.Sprintf("the reply ends with its thinking (block %d)", p.Block)
	}
	return string(p.Kind)
}

// Check reports every rule msgs break as the messages of a request: the first message is the
// user's; every block can be sent (Sendable) and no reply ends with its thinking; no message
// is empty and no text block blank; roles alternate; tool_use ids are
// unique; every tool_use is answered by a tool_result in the next message, those results come
// first in it, and every tool_result answers a call of the message before, once. nil means the
// request is valid.
func Check(msgs []Message) []Problem {
	if len(msgs) == 0 {
		return []Problem{{Kind: NoMessages, Message: -1, Block: -1}}
	}
	var probs []Problem
	add := func(p Problem) { probs = append(probs, p) }
	for _, d := range duplicateCalls(msgs) {
		add(Problem{Kind: DuplicateCall, Message: d[0], Block: d[1], ToolUseID: msgs[d[0]].Content[d[1]].ID})
	}
	if msgs[0].Role != User {
		add(Problem{Kind: FirstNotUser, Message: 0, Block: -1})
	}
	for i, m := range msgs {
		for j, b := range m.Content {
			if !Sendable(b) {
				add(Problem{Kind: Unsendable, Message: i, Block: j, BlockType: b.Type})
			}
		}
		if j := thinkingLast(m); j >= 0 {
			add(Problem{Kind: ThinkingLast, Message: i, Block: j})
		}
		if empty(m) {
			add(Problem{Kind: EmptyMessage, Message: i, Block: -1})
		} else {
			for j, b := range m.Content {
				if blankText(b) {
					add(Problem{Kind: EmptyText, Message: i, Block: j})
				}
			}
		}
		if i > 0 && msgs[i-1].Role == m.Role {
			add(Problem{Kind: SameRole, Message: i, Block: -1})
		}
		if m.Role == Assistant {
			for _, c := range unanswered(msgs, i) {
				add(Problem{Kind: Unanswered, Message: i, Block: -1, ToolUseID: c.ID, Tool: c.Name})
			}
			continue
		}
		calls := callsBefore(msgs, i)
		answered := map[string]bool{}
		other := false
		for j, b := range m.Content {
			if b.Type != ToolResult {
				other = true
				continue
			}
			if !calls[b.ToolUseID] || answered[b.ToolUseID] {
				add(Problem{Kind: StrayResult, Message: i, Block: j, ToolUseID: b.ToolUseID})
			} else if other {
				add(Problem{Kind: ResultNotFirst, Message: i, Block: j, ToolUseID: b.ToolUseID})
			}
			answered[b.ToolUseID] = true
		}
	}
	return probs
}

// Fix is one change Repair made, with the problem it fixed.
type Fix struct {
	Problem
	// Action says what was done, in words.
	Action string
	// Origin is the Origin of the block the fix concerns (the call, the result, the block left
	// out), else of the message; 0 when the messages carried none.
	Origin int
}

func (r Fix) String() string { return r.Problem.String() + ": " + r.Action }

// InterruptedText is the content of the error result Repair gives a tool call that has none.
const InterruptedText = "[Tool call interrupted: no result was recorded (the session ended or the transcript was cut before the tool returned). Its effects, if any, are unknown.]"

// Interrupted returns the error tool_result that answers call c when its real result is lost,
// as Claude Code answers a call cut off by an interruption.
func Interrupted(c Block, text string) Block {
	if text == "" {
		text = InterruptedText
	}
	return Block{Type: ToolResult, ToolUseID: c.ID, IsError: true, Content: []Block{{Type: Text, Text: text}}}
}

// Repair returns msgs made valid for a request (Check of it is empty unless nothing sendable is
// left) and what it changed, in order; msgs is not edited. As Claude Code does, it drops
// blocks that are not Sendable, thinking that ends a reply, blank text, empty messages,
// repeated tool_use ids and results answering no open call; merges consecutive messages of one
// role; puts a user message before an assistant's first one; answers a call without a result
// as Interrupted; and moves results before the other content of their message.
func Repair(msgs []Message) ([]Message, []Fix) {
	if len(msgs) == 0 {
		return nil, nil
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{Role: m.Role, Content: slices.Clone(m.Content), Origin: m.Origin}
	}
	var reps []Fix
	// Each pass can expose a problem the next one fixes (dropping a stray result can empty a
	// message, which makes two assistant messages adjacent); every pass that changes something
	// removes a block or a message or fixes a pairing for good, so this ends.
	for range len(msgs) + 4 {
		var r []Fix
		out, r = repairPass(out)
		reps = append(reps, r...)
		if len(r) == 0 {
			break
		}
	}
	return out, reps
}

func repairPass(msgs []Message) ([]Message, []Fix) {
	var reps []Fix
	// Blocks that cannot be sent, thinking that ends a reply, blank text, then empty messages.
	kept := msgs[:0]
	for i, m := range msgs {
		for j := 0; j < len(m.Content); j++ {
			if b := m.Content[j]; !Sendable(b) {
				reps = append(reps, Fix{Problem{Kind: Unsendable, Message: i, Block: j, BlockType: b.Type}, "the block was left out", b.Origin})
				m.Content = slices.Delete(slices.Clone(m.Content), j, j+1)
				j--
			}
		}
		for j := thinkingLast(m); j >= 0; j = thinkingLast(m) {
			reps = append(reps, Fix{Problem{Kind: ThinkingLast, Message: i, Block: j}, "the thinking was left out", m.Content[j].Origin})
			m.Content = slices.Clone(m.Content[:j])
		}
		for j := 0; j < len(m.Content); j++ {
			if blankText(m.Content[j]) && len(m.Content) > 1 {
				reps = append(reps, Fix{Problem{Kind: EmptyText, Message: i, Block: j}, "the blank text block was left out", m.Content[j].Origin})
				m.Content = slices.Delete(m.Content, j, j+1)
				j--
			}
		}
		if empty(m) {
			reps = append(reps, Fix{Problem{Kind: EmptyMessage, Message: i, Block: -1}, "the empty message was left out", originOf(m)})
			continue
		}
		kept = append(kept, m)
	}
	msgs = kept
	// Roles alternate.
	for i := 1; i < len(msgs); i++ {
		if msgs[i].Role == msgs[i-1].Role {
			reps = append(reps, Fix{Problem{Kind: SameRole, Message: i, Block: -1}, "merged into the message before", originOf(msgs[i])})
		}
	}
	msgs = Merge(msgs)
	dups := duplicateCalls(msgs)
	for _, d := range dups {
		c := msgs[d[0]].Content[d[1]]
		reps = append(reps, Fix{Problem{Kind: DuplicateCall, Message: d[0], Block: d[1], ToolUseID: c.ID}, "the copy was left out", c.Origin})
	}
	for k := len(dups) - 1; k >= 0; k-- { // from the end, so earlier positions stay valid
		i, j := dups[k][0], dups[k][1]
		msgs[i].Content = slices.Delete(slices.Clone(msgs[i].Content), j, j+1)
	}
	if len(msgs) > 0 && msgs[0].Role != User {
		reps = append(reps, Fix{Problem{Kind: FirstNotUser, Message: 0, Block: -1}, "a user message saying the conversation starts earlier was put before it", originOf(msgs[0])})
		msgs = slices.Insert(msgs, 0, NewText(User, "[The conversation before this point is not available.]"))
	}
	// Tool results: strays out, the rest first, missing ones added.
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == User {
			calls := callsBefore(msgs, i)
			answered := map[string]bool{}
			var results, rest []Block
			moved := false
			for j, b := range m.Content {
				switch {
				case b.Type != ToolResult:
					rest = append(rest, b)
				case !calls[b.ToolUseID] || answered[b.ToolUseID]:
					reps = append(reps, Fix{Problem{Kind: StrayResult, Message: i, Block: j, ToolUseID: b.ToolUseID}, "the result was left out", b.Origin})
				default:
					if len(rest) > 0 && !moved {
						reps = append(reps, Fix{Problem{Kind: ResultNotFirst, Message: i, Block: j, ToolUseID: b.ToolUseID}, "tool results were moved before the other content", b.Origin})
						moved = true
					}
					answered[b.ToolUseID] = true
					results = append(results, b)
				}
			}
			msgs[i].Content = append(results, rest...)
			continue
		}
		open := unanswered(msgs, i)
		if len(open) == 0 {
			continue
		}
		var fill []Block
		for _, c := range open {
			reps = append(reps, Fix{Problem{Kind: Unanswered, Message: i, Block: -1, ToolUseID: c.ID, Tool: c.Name}, "answered with an error result saying the call was interrupted", c.Origin})
			fill = append(fill, Interrupted(c, ""))
		}
		if i+1 < len(msgs) {
			msgs[i+1].Content = append(fill, msgs[i+1].Content...)
		} else {
			msgs = append(msgs, Message{Role: User, Content: fill})
		}
	}
	return msgs, reps
}

// Merge returns msgs with consecutive messages of one role merged into one, tool results first
// in each merged user message (the APIs want them before any other content), as the providers
// require; msgs is not modified.
func Merge(msgs []Message) []Message {
	var out []Message
	for _, m := range msgs {
		n := len(out)
		if n == 0 || out[n-1].Role != m.Role {
			out = append(out, Message{Role: m.Role, Content: slices.Clone(m.Content), Origin: m.Origin})
			continue
		}
		merged := append(slices.Clone(out[n-1].Content), m.Content...)
		if m.Role == User && slices.ContainsFunc(m.Content, isResult) {
			merged = resultsFirst(merged)
		}
		out[n-1].Content = merged
	}
	return out
}

// originOf is the Origin of message m: its own, else its first block's.
func originOf(m Message) int {
	if m.Origin == 0 && len(m.Content) > 0 {
		return m.Content[0].Origin
	}
	return m.Origin
}

// resultsFirst moves the tool_result blocks of bs before the others, keeping each group's order.
func resultsFirst(bs []Block) []Block {
	out := make([]Block, 0, len(bs))
	for _, b := range bs {
		if isResult(b) {
			out = append(out, b)
		}
	}
	for _, b := range bs {
		if !isResult(b) {
			out = append(out, b)
		}
	}
	return out
}

func isResult(b Block) bool { return b.Type == ToolResult }

// thinkingLast returns the index of the thinking block that ends assistant message m, or -1.
func thinkingLast(m Message) int {
	n := len(m.Content)
	if m.Role != Assistant || n == 0 {
		return -1
	}
	if t := m.Content[n-1].Type; t == Thinking || t == RedactedThinking {
		return n - 1
	}
	return -1
}

// blankText reports a text block with no visible text.
func blankText(b Block) bool { return b.Type == Text && strings.TrimSpace(b.Text) == "" }

// empty reports a message the API would refuse as empty: no blocks, or only blank text.
func empty(m Message) bool {
	for _, b := range m.Content {
		if !blankText(b) {
			return false
		}
	}
	return true
}

// duplicateCalls returns the (message, block) positions of tool_use blocks whose id an earlier
// tool_use of msgs already has, in order.
func duplicateCalls(msgs []Message) [][2]int {
	seen := map[string]bool{}
	var out [][2]int
	for i, m := range msgs {
		if m.Role != Assistant {
			continue
		}
		for j, b := range m.Content {
			if b.Type != ToolUse {
				continue
			}
			if seen[b.ID] {
				out = append(out, [2]int{i, j})
			}
			seen[b.ID] = true
		}
	}
	return out
}

// callsBefore returns the tool_use ids of the message before msgs[i] when it is the assistant's.
func callsBefore(msgs []Message, i int) map[string]bool {
	calls := map[string]bool{}
	if i == 0 || msgs[i-1].Role != Assistant {
		return calls
	}
	for _, b := range msgs[i-1].Content {
		if b.Type == ToolUse {
			calls[b.ID] = true
		}
	}
	return calls
}

// unanswered returns the tool_use blocks of msgs[i] that the next message does not answer.
func unanswered(msgs []Message, i int) []Block {
	answered := map[string]bool{}
	if i+1 < len(msgs) && msgs[i+1].Role == User {
		for _, b := range msgs[i+1].Content {
			if b.Type == ToolResult {
				answered[b.ToolUseID] = true
			}
		}
	}
	var open []Block
	for _, b := range msgs[i].Content {
		if b.Type == ToolUse && !answered[b.ID] {
			open = append(open, b)
			answered[b.ID] = true // a call repeated in one message needs one answer
		}
	}
	return open
}

// OpenCalls returns the tool calls a conversation ended without answering: those of its last
// assistant message (after Merge) that the message after it does not answer. A session that
// crashed between a tool call and its result ends like that.
func OpenCalls(msgs []Message) []Block {
	msgs = Merge(msgs)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == Assistant {
			return unanswered(msgs, i)
		}
	}
	return nil
}

// InterruptedResults is the user message answering calls that never ran to the end, each
// with an is_error result saying why and that its effects are unknown.
func InterruptedResults(calls []Block, why string) Message {
	m := Message{Role: User}
	for _, c := range calls {
		m.Content = append(m.Content, Interrupted(c, "Interrupted: "+why+". The tool call did not complete; its effects, if any, are unknown."))
	}
	return m
}
