package llm

import (
	"context"
	"encoding/json"
	"time"

	"github.com/strata-mem/strata/conversation"
)

// Provider sends one request to a model and streams the reply. Implementations live in
// llm/anthropic and llm/openai; both retry transient failures themselves (see Stream), so a
// caller never loops on errors.
type Provider interface {
	// Stream starts the request. The returned error covers only what fails before the first
	// attempt (a request that cannot be encoded); everything that happens on the wire, retries
	// included, is reported through the Stream.
	Stream(ctx context.Context, req *Request) (*Stream, error)
}

// Request is one model call in provider-neutral form.
type Request struct {
	// Model is the model id; "" means the provider's configured model.
	Model string
	// System is the system prompt as text blocks. A block with Cache set ends a cacheable prefix.
	System []SystemBlock
	// Messages is the conversation, oldest first; it must start with a user message.
	Messages []conversation.Message
	// Tools the model may call.
	Tools []Tool
	// CachePoints mark "cache everything up to and including this block" inside Messages.
	// Anthropic accepts at most 4 markers in all (system, tools and messages together);
	// OpenAI-compatible servers cache prefixes automatically and ignore them.
	CachePoints []CachePoint
	// MaxTokens caps the reply; 0 means the configured default.
	MaxTokens int
	// ThinkingBudget enables extended thinking with this many tokens (Anthropic; at least
	// 1024 and below MaxTokens). OpenAI reasoning models get a matching reasoning_effort.
	// Ignored when Output is set, because forcing a tool and thinking cannot be combined.
	ThinkingBudget int
	// Temperature, when non-nil, is sent to OpenAI-compatible servers; nil leaves the server's
	// default. The Anthropic Messages API no longer accepts it, so it is not sent there.
	Temperature *float64
	// Output asks for structured JSON output matching a schema instead of free text; the
	// reply's JSON is then in Response.Structured.
	Output *Schema
}

// SystemBlock is one block of the system prompt.
type SystemBlock struct {
	Text string
	// Cache ends a cacheable prefix after this block.
	Cache bool
}

// Tool is a tool the model may call.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON schema of the tool's input (an object schema).
	InputSchema json.RawMessage
	// Cache ends a cacheable prefix after this tool (tools come before the system prompt
	// in Anthropic's cache order: tools, system, messages).
	Cache bool
}

// CachePoint names a block inside Request.Messages after which the prefix should be cached.
type CachePoint struct {
	// Message indexes Request.Messages.
	Message int
	// Block indexes the message's Content; -1 means its last block.
	Block int
}

// CacheAfter marks the last block of message i.
func CacheAfter(i int) CachePoint { return CachePoint{Message: i, Block: -1} }

// Schema asks for a JSON reply matching a schema. Anthropic gets it as a forced tool call
// named Name; OpenAI-compatible servers as response_format json_schema.
type Schema struct {
	// Name identifies the output ([a-zA-Z0-9_-], at most 64 characters).
	Name        string
	Description string
	// Schema is a JSON schema; the top level must be an object schema.
	Schema json.RawMessage
}

// StopReason says why the model stopped. Values are the Anthropic ones; OpenAI finish reasons
// are mapped onto them.
type StopReason string

// Stop reasons.
const (
	StopEndTurn   StopReason = "end_turn"      // the model finished its turn
	StopMaxTokens StopReason = "max_tokens"    // cut at MaxTokens
	StopToolUse   StopReason = "tool_use"      // the model wants tool results
	StopSequence  StopReason = "stop_sequence" // a stop sequence matched
	StopRefusal   StopReason = "refusal"       // refused or filtered
	StopPause     StopReason = "pause_turn"    // a long turn paused; send it back to continue
)

// Usage is what a call cost. It is conversation.Usage, the one usage type (the agent records
// it on the assistant entry it belongs to); InputTokens counts only uncached input.
type Usage = conversation.Usage

// Response is a finished reply.
type Response struct {
	// ID is the provider's message id.
	ID string
	// Model is the model that answered, as the server names it.
	Model string
	// Message is the assistant message: text, thinking (with signatures) and tool_use blocks
	// in the order the model produced them.
	Message    conversation.Message
	StopReason StopReason
	Usage      Usage
	// Structured is the JSON object of a request with Output set (nil otherwise).
	Structured json.RawMessage
}

// ToolCalls returns the tool_use blocks of the reply, in order.
func (r *Response) ToolCalls() []conversation.Block {
	var out []conversation.Block
	for _, b := range r.Message.Content {
		if b.Type == conversation.ToolUse {
			out = append(out, b)
		}
	}
	return out
}

// EventType is the kind of a stream event.
type EventType int

// Event types, in the order they can occur for one block: BlockStart, then deltas, then
// BlockStop. Usage may come more than once (the last is the total); Stop comes once, last.
const (
	// EventBlockStart opens content block Index; Block has its Type (and ID and Name for a
	// tool call).
	EventBlockStart EventType = iota + 1
	// EventText is a text delta (Text) of block Index.
	EventText
	// EventThinking is a thinking delta (Text) of block Index.
	EventThinking
	// EventToolInput is a fragment of a tool call's JSON input (Text) of block Index.
	EventToolInput
	// EventBlockStop closes block Index; Block is the finished block (thinking with its
	// signature, tool_use with its whole input).
	EventBlockStop
	// EventUsage reports the usage so far (cumulative).
	EventUsage
	// EventSignature is a fragment of a thinking block's signature (Text); consumers can
	// ignore it, the finished block carries the whole signature.
	EventSignature
	// EventStart says the server accepted the request and started its reply; ID and Model
	// are set.
	EventStart
	// EventStop carries the stop reason; the Response is complete after it.
	EventStop
	// EventRetry says an attempt failed before any content and another starts after Wait;
	// Err is what failed. Nothing of the failed attempt was delivered.
	EventRetry
)

var eventNames = map[EventType]string{EventBlockStart: "block_start", EventText: "text", EventThinking: "thinking",
	EventToolInput: "tool_input", EventBlockStop: "block_stop", EventUsage: "usage", EventStop: "stop", EventRetry: "retry",
	EventSignature: "signature", EventStart: "start"}

func (t EventType) String() string {
	if s, ok := eventNames[t]; ok {
		return s
	}
	return "unknown"
}

// Event is one item of a stream. Only the fields of its Type are set.
type Event struct {
	Type       EventType
	Index      int
	Text       string
	Block      *conversation.Block
	Usage      Usage
	StopReason StopReason
	// ID and Model of an EventStart.
	ID, Model string
	// Retry details.
	Attempt int
	Wait    time.Duration
	Err     error
}
