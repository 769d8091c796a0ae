package agent

import (
	"encoding/json"
	"time"

	"github.com/strata-mem/strata/llm"
)

// EventKind is the kind of an Event.
type EventKind string

// Event kinds, in the order they can occur within one model request: a request starts, text
// and thinking stream, usage arrives, then each tool call starts and ends. Attachments are
// reported when they are queued for the next request.
const (
	EventRequest    EventKind = "request"    // a model request is sent (Turn counts them)
	EventText       EventKind = "text"       // a text delta
	EventThinking   EventKind = "thinking"   // a thinking delta
	EventRetry      EventKind = "retry"      // an attempt failed before any content; Err, Wait
	EventUsage      EventKind = "usage"      // usage of the finished request (Usage)
	EventToolStart  EventKind = "tool_start" // a tool call is about to run (Tool)
	EventToolEnd    EventKind = "tool_end"   // a tool call finished (Tool, Output, IsError)
	EventAttachment EventKind = "attachment" // text queued for the next request (Source, Text)
	EventRecall     EventKind = "recall"     // recall finished (Memories, Err)
	EventPermission EventKind = "permission" // a tool call was denied (Tool, Text says why)
	EventAssistant  EventKind = "assistant"  // an assistant message is complete (Text: its text)
)

// ToolCall is a tool call as the model sent it.
type ToolCall struct {
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// Event is one thing that happened during Run, for the caller to render. Only the fields of
// its Kind are set.
type Event struct {
	Kind EventKind
	// Turn is the 1-based number of the model request within the Run.
	Turn int
	Text string
	Tool *ToolCall
	// Output and IsError are a finished tool call's result.
	Output  string
	IsError bool
	Usage   llm.Usage
	// Source names where an attachment comes from ("instructions", "recall", "tasks").
	Source string
	// Memories are the recalled files of an EventRecall.
	Memories []string
	Err      error
	Wait     time.Duration
}

// Sink receives events. It is called synchronously from Run's goroutine, so it must not call
// back into the Agent; a slow Sink slows the turn, never reorders events.
type Sink func(Event)
