package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/conversation"
)

// Source is one attempt's events as a provider decodes them from the wire, with no retries.
// Providers emit EventStart, EventBlockStart/Text/Thinking/Signature/ToolInput/BlockStop (the
// Block of a stop may be nil: the Stream assembles it), EventUsage (cumulative) and EventStop.
type Source interface {
	// Recv returns the next event. io.EOF means the server ended the stream cleanly after its
	// final event; any other error ends the attempt (a *Error says whether to retry).
	Recv() (Event, error)
	// Close releases the connection; it may be called while Recv blocks in another call.
	Close() error
}

// Opener starts one attempt. ctx is cancelled when the attempt ends or stalls.
type Opener func(ctx context.Context) (Source, error)

// StreamOptions configure NewStream.
type StreamOptions struct {
	Endpoint Endpoint
	Retry    RetryPolicy
	// StallTimeout aborts an attempt when no event arrives for this long (default 2m).
	StallTimeout time.Duration
	// Output is the request's structured output, if any, so the Stream can fill
	// Response.Structured.
	Output *Schema
	Logger *slog.Logger
}

// DefaultStallTimeout is how long a stream may stay silent before the attempt is abandoned.
const DefaultStallTimeout = 2 * time.Minute

type wholeKey struct{}

// Stream is a reply in progress. Events are delivered as they arrive; attempts that fail before
// any content (text, thinking or a tool call) was delivered are retried under the RetryPolicy
// and are invisible except for an EventRetry. A failure after content ends the stream with an
// error; Complete avoids that case by delivering nothing until the reply is whole, so it can
// retry any failure.
//
// Usage: defer s.Close(); for s.Next() { ev := s.Event(); ... }; if err := s.Err(); ...;
// resp := s.Response(). Close releases the connection of a stream that is abandoned early.
// A Stream is used by one goroutine; Close may be called from another to abort it.
type Stream struct {
	ctx   context.Context
	opts  StreamOptions
	open  Opener
	log   *slog.Logger
	whole bool // deliver nothing before the reply is complete (Complete)

	attempt   int
	wait      time.Duration // backoff before the next attempt
	src       Source
	cancel    context.CancelCauseFunc
	actx      context.Context // the current attempt's context
	timer     *time.Timer
	delivered bool    // content of the current attempt has been delivered
	held      []Event // non-content events held until content proves the attempt good
	queue     []Event // events ready to be returned by Next
	cur       Event
	done      bool
	sawStop   bool
	err       error

	asm assembler

	mu     sync.Mutex // guards src and closed against Close from another goroutine
	closed bool

	// onEnd, set by Metered, receives the usage the last attempt reported when the stream ends.
	onEnd func(Usage)
}

var errStall = errors.New("stall timeout")

// NewStream returns a Stream that calls open for each attempt. Providers call it from their
// Stream method; it does not start the first attempt until the first Next.
func NewStream(ctx context.Context, open Opener, opts StreamOptions) *Stream {
	opts.Retry = opts.Retry.withDefaults()
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Stream{ctx: ctx, opts: opts, open: open, log: log}
	s.whole, _ = ctx.Value(wholeKey{}).(bool)
	return s
}

// Next advances to the next event; it returns false at the end or on error (see Err).
func (s *Stream) Next() bool {
	for {
		if len(s.queue) > 0 {
			s.cur, s.queue = s.queue[0], s.queue[1:]
			return true
		}
		if s.done {
			return false
		}
		s.step()
	}
}

// Event returns the event Next advanced to.
func (s *Stream) Event() Event { return s.cur }

// Err returns the error that ended the stream: nil after a complete reply, a *Error (test it
// with errors.Is against the sentinels) or the context's error after cancellation.
func (s *Stream) Err() error { return s.err }

// Response returns the reply assembled so far; it is complete when Next has returned false
// and Err is nil.
func (s *Stream) Response() *Response {
	r := s.asm.response()
	return &r
}

// All iterates over the events; the final pair carries the error, if any.
func (s *Stream) All() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		defer s.Close()
		for s.Next() {
			if !yield(s.Event(), nil) {
				return
			}
		}
		if s.err != nil {
			yield(Event{}, s.err)
		}
	}
}

// Close aborts the stream and releases its connection. It is safe to call more than once and
// from another goroutine.
func (s *Stream) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return s.endAttemptLocked()
}

func (s *Stream) endAttemptLocked() error {
	var err error
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.src != nil {
		err = s.src.Close()
		s.src = nil
	}
	if s.cancel != nil {
		s.cancel(nil)
		s.cancel = nil
	}
	return err
}

// step makes progress: opens an attempt, receives one event, or handles a failure.
func (s *Stream) step() {
	if err := s.ctx.Err(); err != nil {
		s.fail(err)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.fail(fmt.Errorf("llm: stream closed: %w", context.Canceled))
		return
	}
	src := s.src
	s.mu.Unlock()
	if src == nil {
		if err := sleep(s.ctx, s.wait); err != nil {
			s.fail(err)
			return
		}
		s.attempt++
		actx, cancel := context.WithCancelCause(s.ctx)
		timer := time.AfterFunc(s.opts.StallTimeout, func() { cancel(errStall) })
		src, err := s.open(actx)
		if err != nil {
			timer.Stop()
			cancel(nil)
			s.failed(s.classify(actx, err))
			return
		}
		s.mu.Lock()
		s.src, s.cancel, s.timer, s.actx = src, cancel, timer, actx
		closed := s.closed
		s.mu.Unlock()
		if closed {
			s.mu.Lock()
			s.endAttemptLocked()
			s.mu.Unlock()
		}
		s.asm = assembler{}
		s.held, s.delivered, s.sawStop = nil, false, false
		return
	}
	// The stall timer runs only while waiting for the server, so a slow consumer between
	// two Next calls never counts as a stalled stream.
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Reset(s.opts.StallTimeout)
	}
	s.mu.Unlock()
	ev, err := src.Recv()
	s.mu.Lock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.mu.Unlock()
	if err == io.EOF {
		if !s.sawStop {
			s.failed(s.opts.Endpoint.Truncated())
			return
		}
		s.finish()
		return
	}
	if err != nil {
		s.failed(s.classify(s.actx, err))
		return
	}
	if err := s.asm.apply(&ev); err != nil {
		s.failed(s.opts.Endpoint.Malformed(err))
		return
	}
	if ev.Type == EventStop {
		s.sawStop = true
	}
	content := ev.Type != EventStart && ev.Type != EventUsage
	switch {
	case s.whole:
		s.held = append(s.held, ev)
	case s.delivered || content:
		s.delivered = s.delivered || content
		s.queue = append(s.queue, s.held...)
		s.queue = append(s.queue, ev)
		s.held = nil
	default:
		s.held = append(s.held, ev)
	}
}

func (s *Stream) classify(actx context.Context, err error) error {
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	if context.Cause(actx) == errStall {
		return &Error{Provider: s.opts.Endpoint.Provider, URL: s.opts.Endpoint.URL, Kind: ErrStalled, Cause: err,
			Message: fmt.Sprintf("nothing arrived for %s", s.opts.StallTimeout), Hint: "the server stopped answering"}
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return s.opts.Endpoint.TransportError(err)
}

// failed ends the current attempt and either schedules another or ends the stream.
func (s *Stream) failed(err error) {
	s.mu.Lock()
	s.endAttemptLocked()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		s.fail(fmt.Errorf("llm: stream closed: %w", context.Canceled))
		return
	}
	if s.ctx.Err() != nil {
		s.fail(s.ctx.Err())
		return
	}
	if s.delivered && !s.whole {
		s.fail(err)
		return
	}
	wait, ok := s.opts.Retry.delay(s.attempt, err)
	if !ok {
		s.fail(err)
		return
	}
	s.log.Warn("llm: retrying", "provider", s.opts.Endpoint.Provider, "attempt", s.attempt, "wait", wait, "err", err)
	s.wait = wait
	s.held = nil
	s.queue = append(s.queue, Event{Type: EventRetry, Attempt: s.attempt, Wait: wait, Err: err})
}

func (s *Stream) fail(err error) {
	var e *Error
	if errors.As(err, &e) {
		e.Attempts = s.attempt
	}
	s.err = err
	s.done = true
	s.mu.Lock()
	s.endAttemptLocked()
	s.mu.Unlock()
	s.ended()
}

// ended hands the usage of the last attempt to onEnd, once.
func (s *Stream) ended() {
	if f := s.onEnd; f != nil {
		s.onEnd = nil
		if s.asm.usage.Reported() {
			f(s.asm.usage)
		}
	}
}

func (s *Stream) finish() {
	s.mu.Lock()
	s.endAttemptLocked()
	s.mu.Unlock()
	s.queue = append(s.queue, s.held...)
	s.held = nil
	s.done = true
	if s.opts.Output != nil {
		if err := s.asm.structured(s.opts.Output); err != nil {
			s.err = s.opts.Endpoint.Malformed(err)
		}
	}
	s.ended()
}

// Complete sends req and waits for the whole reply. Unlike a Stream it can retry a failure at
// any point, because nothing was shown to anyone yet.
func Complete(ctx context.Context, p Provider, req *Request) (*Response, error) {
	s, err := p.Stream(context.WithValue(ctx, wholeKey{}, true), req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	for s.Next() {
	}
	return s.Response(), s.Err()
}

// assembler builds the Response from events.
type assembler struct {
	id, model string
	blocks    []conversation.Block
	parts     []*parts // per block; pointers, because a Builder must not move once written
	open      []bool
	usage     Usage
	stop      StopReason
	json      json.RawMessage
}

func (a *assembler) apply(ev *Event) error {
	check := func() error {
		if ev.Index < 0 || ev.Index >= len(a.blocks) {
			return fmt.Errorf("%s event for block %d, but %d blocks were started", ev.Type, ev.Index, len(a.blocks))
		}
		if !a.open[ev.Index] {
			return fmt.Errorf("%s event for block %d, which is already stopped", ev.Type, ev.Index)
		}
		return nil
	}
	switch ev.Type {
	case EventStart:
		a.id, a.model = ev.ID, ev.Model
	case EventBlockStart:
		if ev.Index != len(a.blocks) || ev.Block == nil {
			return fmt.Errorf("block %d started, expected block %d", ev.Index, len(a.blocks))
		}
		a.blocks = append(a.blocks, *ev.Block)
		a.parts = append(a.parts, &parts{})
		a.open = append(a.open, true)
	case EventText, EventThinking, EventSignature, EventToolInput:
		if err := check(); err != nil {
			return err
		}
		switch ev.Type {
		case EventText, EventThinking:
			a.parts[ev.Index].text.WriteString(ev.Text)
		case EventSignature:
			a.parts[ev.Index].sig.WriteString(ev.Text)
		case EventToolInput:
			a.parts[ev.Index].input.WriteString(ev.Text)
		}
	case EventBlockStop:
		if err := check(); err != nil {
			return err
		}
		a.flush(ev.Index)
		b := &a.blocks[ev.Index]
		if b.Type == conversation.ToolUse {
			in := strings.TrimSpace(a.parts[ev.Index].input.String())
			switch {
			case in == "" && len(b.Input) == 0:
				b.Input = json.RawMessage("{}")
			case in != "":
				if !json.Valid([]byte(in)) {
					return fmt.Errorf("tool call %s (%s): input is not valid JSON: %.80q", b.Name, b.ID, in)
				}
				b.Input = json.RawMessage(in)
			}
		}
		a.open[ev.Index] = false
		done := *b
		ev.Block = &done
	case EventUsage:
		a.usage = ev.Usage
	case EventStop:
		a.stop = ev.StopReason
	}
	return nil
}

// parts collects one block's deltas, materialised into the block at its stop (no quadratic +=).
type parts struct {
	input strings.Builder // tool input JSON
	text  strings.Builder // text or thinking
	sig   strings.Builder // signature
}

// flush moves the accumulated deltas of block i into the block.
func (a *assembler) flush(i int) {
	b := &a.blocks[i]
	if a.parts[i].text.Len() > 0 {
		if b.Type == conversation.Thinking {
			b.Thinking += a.parts[i].text.String()
		} else {
			b.Text += a.parts[i].text.String()
		}
		a.parts[i].text.Reset()
	}
	if a.parts[i].sig.Len() > 0 {
		b.Signature += a.parts[i].sig.String()
		a.parts[i].sig.Reset()
	}
}

func (a *assembler) response() Response {
	for i := range a.blocks {
		a.flush(i)
	}
	r := Response{ID: a.id, Model: a.model, StopReason: a.stop, Usage: a.usage, Structured: a.json}
	r.Message.Role = conversation.Assistant
	for i, b := range a.blocks {
		if b.Type == conversation.ToolUse && len(b.Input) == 0 {
			if in := a.parts[i].input.String(); json.Valid([]byte(in)) {
				b.Input = json.RawMessage(in)
			}
		}
		if b.Type == conversation.Text && b.Text == "" || b.Type == conversation.Thinking && b.Thinking == "" && b.Signature == "" {
			continue // the APIs reject empty blocks when they are sent back
		}
		r.Message.Content = append(r.Message.Content, b)
	}
	return r
}

// structured fills the structured output: the input of the forced tool call, or else the
// text, which must hold a JSON object (a fenced code block is accepted).
func (a *assembler) structured(out *Schema) error {
	for i := range a.blocks {
		a.flush(i)
	}
	for _, b := range a.blocks {
		if b.Type == conversation.ToolUse && b.Name == out.Name {
			a.json = b.Input
			return nil
		}
	}
	var text strings.Builder
	for _, b := range a.blocks {
		if b.Type == conversation.Text {
			text.WriteString(b.Text)
		}
	}
	obj, err := ExtractJSON(text.String())
	if err != nil {
		return fmt.Errorf("structured output %s: %w", out.Name, err)
	}
	a.json = obj
	return nil
}

// ExtractJSON finds the JSON object in a model's text: the whole text, or the first fenced
// code block, or the span from the first '{' to the last '}'. It returns the object compacted.
func ExtractJSON(text string) (json.RawMessage, error) {
	cands := []string{strings.TrimSpace(text)}
	if i := strings.Index(text, "```"); i >= 0 {
		rest := text[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			cands = append(cands, strings.TrimSpace(rest[:j]))
		}
	}
	if i, j := strings.IndexByte(text, '{'), strings.LastIndexByte(text, '}'); i >= 0 && j > i {
		cands = append(cands, text[i:j+1])
	}
	for _, c := range cands {
		if !strings.HasPrefix(c, "{") || !json.Valid([]byte(c)) {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(c)); err == nil {
			return buf.Bytes(), nil
		}
	}
	return nil, fmt.Errorf("no JSON object in the reply (%d bytes)", len(text))
}
