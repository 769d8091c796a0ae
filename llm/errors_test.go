package llm

import (
	"errors"
	"testing"
)

// The status of an error reply decides its kind; only an error event inside a stream (which
// arrives with the stream's 200) takes its status from the type. A 401 whose body says
// api_error was once reported as a 500 and retried five times.
func TestStatusErrorStatusFirst(t *testing.T) {
	tests := []struct {
		status     int
		typ        string
		wantStatus int
		wantKind   error
	}{
		{401, "api_error", 401, ErrAuth},
		{403, "server_error", 403, ErrAuth},
		{404, "api_error", 404, ErrModelNotFound},
		{400, "overloaded_error", 400, ErrBadRequest},
		{429, "api_error", 429, ErrRateLimited},
		{500, "overloaded_error", 529, ErrOverloaded},
		{503, "rate_limit_error", 503, ErrServer},
		{529, "overloaded_error", 529, ErrOverloaded},
		{200, "overloaded_error", 529, ErrOverloaded},
		{200, "rate_limit_error", 429, ErrRateLimited},
		{200, "api_error", 500, ErrServer},
		{200, "server_error", 500, ErrServer},
		{200, "invalid_request_error", 200, ErrBadRequest},
	}
	for _, tt := range tests {
		e := ep.StatusError(tt.status, tt.typ, "m", nil)
		if e.Status != tt.wantStatus || !errors.Is(e, tt.wantKind) {
			t.Errorf("StatusError(%d, %q) = status %d kind %v, want %d %v", tt.status, tt.typ, e.Status, e.Kind, tt.wantStatus, tt.wantKind)
		}
	}
	if ep.StatusError(401, "api_error", "m", nil).Retryable() {
		t.Error("a 401 is retried")
	}
}

func TestReplyError(t *testing.T) {
	tests := []struct {
		body, typ, msg string
	}{
		{`{"type":"error","error":{"type":"not_found_error","message":"model: 模型"}}`, "not_found_error", "model: 模型"},
		{`{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "invalid_request_error", "Incorrect API key"},
		{`{"error":"model is required"}`, "", "model is required"},
		{`{"error":{"message":5,"type":"x"}}`, "x", ""},
		{`{"error":null}`, "", ""},
		{`<html>Bad gateway</html>`, "", ""},
		{``, "", ""},
	}
	for _, tt := range tests {
		e := ep.ReplyError(400, []byte(tt.body), nil)
		if e.Type != tt.typ || e.Message != tt.msg || e.Status != 400 {
			t.Errorf("ReplyError(%s) = type %q message %q status %d, want %q %q 400", tt.body, e.Type, e.Message, e.Status, tt.typ, tt.msg)
		}
	}
}
