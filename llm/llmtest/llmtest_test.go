package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recTB records errors and cleanups instead of failing the real test, so the fake's own
// failure reporting can be asserted.
type recTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recTB) Helper()          {}
func (r *recTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recTB) finish() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

func post(t *testing.T, url string, body string, h map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestUnusedRepliesFailTheTest(t *testing.T) {
	rec := &recTB{TB: t}
	s := NewAnthropic(rec)
	s.Script(Text("never asked for"))
	rec.finish()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "never requested") {
		t.Errorf("errors = %q, want one about the unused reply", rec.errs)
	}
}

func TestUnexpectedCallFailsTheTest(t *testing.T) {
	for _, f := range []Format{Anthropic, OpenAI} {
		t.Run(string(f), func(t *testing.T) {
			rec := &recTB{TB: t}
			s := start(rec, f)
			path, h := "/v1/messages", map[string]string{"x-api-key": Key, "anthropic-version": "2023-06-01"}
			if f == OpenAI {
				path, h = "/chat/completions", map[string]string{"Authorization": "Bearer " + Key}
			}
			resp := post(t, s.URL+path, `{"model":"m","stream":true}`, h)
			resp.Body.Close()
			rec.finish()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("status = %d, want 400", resp.StatusCode)
			}
			if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "unexpected call") {
				t.Errorf("errors = %q", rec.errs)
			}
		})
	}
}

func TestHeaderChecks(t *testing.T) {
	rec := &recTB{TB: t}
	s := NewAnthropic(rec)
	resp := post(t, s.URL+"/v1/messages", `{}`, map[string]string{"x-api-key": Key})
	resp.Body.Close()
	rec.finish()
	if resp.StatusCode != http.StatusBadRequest || len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "anthropic-version") {
		t.Errorf("missing anthropic-version: status %d, errors %q", resp.StatusCode, rec.errs)
	}

	o := NewOpenAI(t)
	resp = post(t, o.URL+"/chat/completions", `{}`, map[string]string{"Authorization": "Bearer nope"})
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong bearer key: status %d, want 401", resp.StatusCode)
	}
}

func TestAnthropicEventSequence(t *testing.T) {
	evs := anthropicEvents(Blocks(ThinkingBlock("想", "s"), TextBlock("hi"), ToolUse("t", "n", `{}`)), "m", 1)
	var names []string
	for _, ev := range evs {
		names = append(names, ev.Name)
		if !json.Valid([]byte(ev.Data)) {
			t.Errorf("%s data is not JSON: %s", ev.Name, ev.Data)
		}
	}
	want := []string{"message_start", "ping",
		"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"content_block_start", "content_block_delta", "content_block_stop",
		"message_delta", "message_stop"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("event names (-want +got):\n%s", diff)
	}
	parsed, err := ParseSSE(bytes.NewReader(WriteSSE(evs)))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(evs, parsed); diff != "" {
		t.Errorf("SSE round trip (-want +got):\n%s", diff)
	}
}

func TestOpenAIChunksEndWithDone(t *testing.T) {
	evs := openaiEvents(Text("hello"), "m", 1, true)
	if last := evs[len(evs)-1]; last.Data != "[DONE]" {
		t.Errorf("last event = %q", last.Data)
	}
	usage := evs[len(evs)-2]
	if At(decode(t, usage.Data), "usage", "prompt_tokens") == nil {
		t.Errorf("no usage chunk before [DONE]: %s", usage.Data)
	}
}

func decode(t *testing.T, s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestChunksKeepRunes(t *testing.T) {
	s := "混合 text 与中文字符 and more"
	parts := chunks(s, 5)
	if strings.Join(parts, "") != s {
		t.Fatal("chunks lost text")
	}
	for _, p := range parts {
		if strings.ToValidUTF8(p, "\uFFFD") != p {
			t.Errorf("chunk %q is not valid UTF-8", p)
		}
	}
}

func TestParseSSE(t *testing.T) {
	body := ": comment\r\nevent: a\r\ndata: 1\r\ndata:2\r\n\r\n\n\ndata: x\n\nevent: dangling\ndata: lost"
	got, err := ParseSSE(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []SSEEvent{{Name: "a", Data: "1\n2"}, {Data: "x"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func FuzzParseSSE(f *testing.F) {
	f.Add("event: message_start\ndata: {}\n\n", "a", "b")
	f.Add("data: [DONE]\n\n", "", "x\ny")
	f.Add(": ping\r\n\r\ndata:a\n", "名", "中文")
	f.Fuzz(func(t *testing.T, body, name, data string) {
		if _, err := ParseSSE(strings.NewReader(body)); err != nil {
			return
		}
		// Writing then parsing an event gives it back, for names and data the format can carry.
		if strings.ContainsAny(name, "\r\n") || strings.Contains(data, "\r") || name == "" && data == "" {
			return
		}
		ev := SSEEvent{Name: name, Data: data}
		got, err := ParseSSE(bytes.NewReader(WriteSSE([]SSEEvent{ev})))
		if err != nil || len(got) != 1 || got[0] != ev {
			t.Fatalf("round trip of %+v gave %+v (%v)", ev, got, err)
		}
	})
}

func TestSharedPrefix(t *testing.T) {
	mk := func(body string) Request {
		var r Request
		if err := json.Unmarshal([]byte(body), &r.JSON); err != nil {
			t.Fatal(err)
		}
		return r
	}
	prev := mk(`{"messages":[{"role":"user","content":[{"type":"text","text":"q1","cache_control":{"type":"ephemeral"}}]}],"system":[{"type":"text","text":"S"}],"tools":[{"name":"T"}]}`)
	next := mk(`{"messages":[{"role":"user","content":[{"type":"text","text":"q1"}]},{"role":"assistant","content":[{"type":"text","text":"a1","cache_control":{"type":"ephemeral"}}]}],"system":[{"type":"text","text":"S"}],"tools":[{"name":"T"}]}`)
	shared, total := SharedPrefix(prev, next)
	if shared != total || total == 0 {
		t.Errorf("shared %d of %d, want all: the marker moved but the prompt grew only at the end", shared, total)
	}
	changed := mk(`{"messages":[{"role":"user","content":[{"type":"text","text":"q1"}]}],"system":[{"type":"text","text":"S2"}],"tools":[{"name":"T"}]}`)
	if shared, total := SharedPrefix(prev, changed); shared >= total {
		t.Errorf("a changed system prompt still shares %d of %d", shared, total)
	}
}

func TestHandlerWithFallback(t *testing.T) {
	var errs []string
	h := NewHandler(OpenAI, func(f string, a ...any) { errs = append(errs, fmt.Sprintf(f, a...)) })
	h.Fallback = func(r Request) Reply { return Text("echo: " + fmt.Sprint(r.At("model"))) }
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp := post(t, srv.URL+"/v1/chat/completions", `{"model":"m1"}`, map[string]string{"Authorization": "Bearer " + Key})
	defer resp.Body.Close()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if got := At(body, "choices", 0, "message", "content"); got != "echo: m1" || len(errs) != 0 {
		t.Errorf("content = %v, errors %q", got, errs)
	}
	var script []Reply
	if err := json.Unmarshal([]byte(`[{"blocks":[{"type":"text","text":"hi"}]},{"fault":{"kind":1,"status":529,"type":"overloaded_error"}}]`), &script); err != nil {
		t.Fatal(err)
	}
	if script[0].Blocks[0].Text != "hi" || script[1].Fault.Status != 529 {
		t.Errorf("script decoded as %+v", script)
	}
}
