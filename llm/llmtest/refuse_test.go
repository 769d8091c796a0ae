package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestRefusesWhatTheAPIRefuses posts requests the real APIs answer with 400 and checks the
// fake answers the same way, in the format's error shape, without using a scripted reply; the
// valid variant of each is answered.
func TestRefusesWhatTheAPIRefuses(t *testing.T) {
	const (
		user      = `{"role":"user","content":"hi"}`
		userParts = `{"role":"user","content":[{"type":"text","text":"hi"}]}`
		call      = `{"role":"assistant","content":[{"type":"text","text":"reading"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}]}`
		twoCalls  = `{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{}},{"type":"tool_use","id":"toolu_2","name":"Read","input":{}}]}`
		result1   = `{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}`
		result2   = `{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}`
		reply     = `{"role":"assistant","content":[{"type":"text","text":"done"}]}`
	)
	anthropic := []struct {
		name, msgs, want string // want "" means accepted
	}{
		{"valid", user, ""},
		{"valid tool round", userParts + "," + call + `,{"role":"user","content":[` + result1 + `]}`, ""},
		{"valid parallel round", user + "," + twoCalls + `,{"role":"user","content":[` + result2 + "," + result1 + `,{"type":"text","text":"go on"}]}`, ""},
		{"valid final assistant prefill", user + `,{"role":"assistant","content":[]}`, ""},
		{"no messages", ``, "messages: at least one message is required"},
		{"first message the assistant's", reply + "," + user, `first message must use the "user" role`},
		{"two user messages in a row are combined", user + "," + user, ""},
		{"a system message mid-conversation, empty", user + "," + reply + `,{"role":"system","content":[]},` + user, ""},
		{"empty content", user + "," + reply + `,{"role":"user","content":[]}`, "messages.2: all messages must have non-empty content"},
		{"empty string content", `{"role":"user","content":""}`, "messages.0: all messages must have non-empty content"},
		{"empty text block", `{"role":"user","content":[{"type":"text","text":""}]}`, "messages.0.content.0.text: text content blocks must be non-empty"},
		{"blank text block", `{"role":"user","content":[{"type":"text","text":" \n"}]}`, "must contain non-whitespace text"},
		{"unanswered tool_use", user + "," + twoCalls + `,{"role":"user","content":[` + result1 + `]}`, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2."},
		{"unanswered tool_use at the end", user + "," + call, "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1."},
		{"result after text", user + "," + call + `,{"role":"user","content":[{"type":"text","text":"wait"},` + result1 + `]}`, "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1"},
		{"tool_use id repeated", user + "," + call + `,{"role":"user","content":[` + result1 + `]},` + call + `,{"role":"user","content":[` + result1 + `]}`, "messages.3.content.1: `tool_use` ids must be unique"},
		{"valid thinking before the reply", user + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"},{"type":"redacted_thinking","data":"enc"},{"type":"text","text":"done"}]},` + user, ""},
		{"thinking without its signature", user + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"done"}]},` + user, "messages.1.content.0.thinking.signature: Field required"},
		{"thinking-only reply", user + `,{"role":"assistant","content":[{"type":"thinking","thinking":"hm","signature":"sig"}]},` + user, "messages.1.content.0: The final block in an assistant message cannot be `thinking`."},
		{"reply ending in redacted thinking", user + `,{"role":"assistant","content":[{"type":"text","text":"done"},{"type":"redacted_thinking","data":"enc"}]},` + user, "messages.1.content.1: The final block in an assistant message cannot be `redacted_thinking`."},
		{"result without its call", user + "," + reply + `,{"role":"user","content":[` + result1 + `]}`, "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_1."},
	}
	for _, tt := range anthropic {
		t.Run("anthropic/"+tt.name, func(t *testing.T) {
			s := NewAnthropic(t)
			if tt.want == "" {
				s.Script(Text("ok"))
			}
			status, body := postMessages(t, s, `{"model":"m","max_tokens":10,"messages":[`+tt.msgs+`]}`)
			checkRefusal(t, s, status, body, tt.want, []any{"error", "message"}, []any{"error", "type"})
			if tt.want != "" && At(body, "type") != "error" {
				t.Errorf("body type = %v, want error", At(body, "type"))
			}
		})
	}

	const (
		sys       = `{"role":"system","content":"be brief"}`
		ouser     = `{"role":"user","content":"hi"}`
		ocalls    = `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"Read","arguments":"{}"}},{"id":"call_2","type":"function","function":{"name":"Read","arguments":"{}"}}]}`
		tool1     = `{"role":"tool","tool_call_id":"call_1","content":"ok"}`
		tool2     = `{"role":"tool","tool_call_id":"call_2","content":"ok"}`
		oreply    = `{"role":"assistant","content":"done"}`
		oNoReply  = `{"role":"assistant","content":null}`
		emptyUser = `{"role":"user","content":""}`
	)
	openai := []struct {
		name, msgs, want string
	}{
		{"valid", sys + "," + ouser, ""},
		{"valid tool round", sys + "," + ouser + "," + ocalls + "," + tool2 + "," + tool1 + "," + ouser, ""},
		{"consecutive user messages are fine", ouser + "," + ouser, ""},
		{"first message the assistant's", sys + "," + oreply + "," + ouser, "the first message after the system prompt must have role 'user'"},
		{"unanswered tool call", ouser + "," + ocalls + "," + tool1 + "," + ouser, "The following tool_call_ids did not have response messages: call_2"},
		{"unanswered tool call at the end", ouser + "," + ocalls, "did not have response messages: call_1, call_2"},
		{"tool message without its call", ouser + "," + oreply + "," + tool1, "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{"tool message after another message", ouser + "," + ocalls + "," + tool1 + "," + tool2 + "," + ouser + "," + tool1, "must be a response to a preceeding message"},
		{"empty user content", ouser + "," + oreply + "," + emptyUser, "Invalid 'messages[2].content': string too short"},
		{"assistant without content or calls", ouser + "," + oNoReply + "," + ouser, "Invalid value for 'content': expected a string, got null."},
	}
	for _, tt := range openai {
		t.Run("openai/"+tt.name, func(t *testing.T) {
			s := NewOpenAI(t)
			if tt.want == "" {
				s.Script(Text("ok"))
			}
			status, body := postMessages(t, s, `{"model":"m","messages":[`+tt.msgs+`]}`)
			checkRefusal(t, s, status, body, tt.want, []any{"error", "message"}, []any{"error", "type"})
			if tt.want != "" && At(body, "error", "param") == nil {
				t.Errorf("no param in %v", body)
			}
		})
	}
}

func postMessages(t *testing.T, s *Server, body string) (int, map[string]any) {
	t.Helper()
	path, h := "/v1/messages", map[string]string{"x-api-key": Key, "anthropic-version": "2023-06-01"}
	if s.Format == OpenAI {
		path, h = "/chat/completions", map[string]string{"Authorization": "Bearer " + Key}
	}
	resp := post(t, s.URL+path, body, h)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, data)
	}
	return resp.StatusCode, out
}

func checkRefusal(t *testing.T, s *Server, status int, body map[string]any, want string, msgPath, typePath []any) {
	t.Helper()
	if want == "" {
		if status != http.StatusOK || len(s.Refused()) != 0 {
			t.Fatalf("valid request: status %d, refused %v, body %v", status, s.Refused(), body)
		}
		return
	}
	if status != http.StatusBadRequest {
		t.Fatalf("status = %d, want 400 (body %v)", status, body)
	}
	msg, _ := At(body, msgPath...).(string)
	if !strings.Contains(msg, want) {
		t.Errorf("error message = %q, want it to contain %q", msg, want)
	}
	if typ := At(body, typePath...); typ != "invalid_request_error" {
		t.Errorf("error type = %v, want invalid_request_error", typ)
	}
	if r := s.Refused(); len(r) != 1 || r[0].Call != 1 || r[0].Message != msg {
		t.Errorf("Refused() = %v, want the one refusal", r)
	}
}

// TestRefusalLeavesTheReplyScripted: a refused call consumes no reply, and the test is told
// at cleanup why its reply went unused.
func TestRefusalLeavesTheReplyScripted(t *testing.T) {
	rec := &recTB{TB: t}
	s := NewAnthropic(rec)
	s.Script(Text("never sent"))
	resp := post(t, s.URL+"/v1/messages", `{"model":"m","messages":[{"role":"assistant","content":"x"}]}`,
		map[string]string{"x-api-key": Key, "anthropic-version": "2023-06-01"})
	resp.Body.Close()
	if s.Pending() != 1 {
		t.Errorf("pending = %d, want the reply still scripted", s.Pending())
	}
	rec.finish()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "refused with 400") || !strings.Contains(rec.errs[0], `"user" role`) {
		t.Errorf("errors = %q, want one naming the refusal", rec.errs)
	}
}
