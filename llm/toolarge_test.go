package llm

import (
	"fmt"
	"testing"
)

func TestTooLarge(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&Error{Kind: ErrBadRequest, Status: 400, Type: "invalid_request_error", Message: "prompt is too long: 210000 tokens > 200000 maximum"}, true},
		{&Error{Kind: ErrBadRequest, Status: 413, Type: "request_too_large", Message: "Request exceeds the maximum allowed number of bytes."}, true},
		{&Error{Kind: ErrBadRequest, Status: 400, Type: "context_length_exceeded", Message: "This model's maximum context length is 128000 tokens."}, true},
		{fmt.Errorf("agent: %w", &Error{Kind: ErrBadRequest, Status: 400, Message: "Prompt is too long"}), true},
		{&Error{Kind: ErrBadRequest, Status: 400, Type: "invalid_request_error", Message: "messages: text content blocks must be non-empty"}, false},
		{&Error{Kind: ErrServer, Status: 500, Message: "prompt is too long"}, false},
		{fmt.Errorf("prompt is too long"), false},
	} {
		if got := TooLarge(c.err); got != c.want {
			t.Errorf("TooLarge(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
