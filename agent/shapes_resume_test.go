package agent

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/transcript"
)

// claudeLine is one line of a Claude Code 2.1 transcript: a user or assistant entry whose
// parent is the line before, with the fields Claude Code writes around the message.
func claudeLine(n int, typ, msgID, content string, extra string) string {
	parent := "null"
	if n > 1 {
		parent = fmt.Sprintf(`"c0de0000-0000-4000-8000-%012d"`, n-1)
	}
	msg := fmt.Sprintf(`{"role":%q,"content":%s}`, typ, content)
	if typ == "assistant" {
		msg = fmt.Sprintf(`{"model":"claude-opus-4-6","id":%q,"type":"message","role":"assistant","content":%s,"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":9}}`, msgID, content)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":"CWD","sessionId":"SID","version":"2.1.42","gitBranch":"main","type":%q,"message":%s,"uuid":"c0de0000-0000-4000-8000-%012d","timestamp":"2026-03-01T10:00:%02d.000Z"%s}`,
		parent, typ, msg, n, n, extra) + "\n"
}

// TestResumeClaudeCodeShapes resumes a Claude Code 2.1 session holding what real sessions
// hold and the repair used not to know: a web search Claude ran on the provider's side
// (server_tool_use, web_search_tool_result), a PDF the user attached (a document block), and a
// reply cut off after its thinking. The resumed request is one the API accepts, on both wire
// formats; the document reaches the model (Anthropic) or is named as omitted (OpenAI); the
// answer the search gave stays.
func TestResumeClaudeCodeShapes(t *testing.T) {
	lines := []string{
		claudeLine(1, "user", "", `"search the web for the Go 1.26 release notes"`, ""),
		claudeLine(2, "assistant", "msg_01", `[{"type":"thinking","thinking":"search","signature":"sig1"},{"type":"server_tool_use","id":"srvtoolu_01","name":"web_search","input":{"query":"go 1.26"}},{"type":"web_search_tool_result","tool_use_id":"srvtoolu_01","content":[{"type":"web_search_result","url":"https://go.dev/doc/go1.26","title":"Go 1.26","encrypted_content":"EnC","page_age":null}]},{"type":"text","text":"Go 1.26 is out.","citations":[{"type":"web_search_result_location","url":"https://go.dev/doc/go1.26","title":"Go 1.26","encrypted_index":"Eg","cited_text":"Go 1.26"}]}]`, ""),
		claudeLine(3, "user", "", `[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}},{"type":"text","text":"总结这份 PDF"}]`, ""),
		claudeLine(4, "assistant", "msg_02", `[{"type":"thinking","thinking":"the pdf says","signature":"sig2"}]`, ""),
		claudeLine(5, "user", "", `[{"type":"text","text":"[Request interrupted by user]"}]`, ""),
	}
	for _, format := range []llmtest.Format{llmtest.Anthropic, llmtest.OpenAI} {
		t.Run(string(format), func(t *testing.T) {
			f := newFixture(t, format)
			id := "c0de0000-0000-4000-8000-00000000c0de"
			data := strings.NewReplacer("CWD", f.dir, "SID", id).Replace(strings.Join(lines, ""))
			p := f.installSession(id, []byte(data))
			before, err := transcript.Load(t.Context(), p, transcript.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			resumeOnce(t, f, id, before)
			reqs := f.srv.Requests()
			body := string(reqs[len(reqs)-1].Body)
			for _, gone := range []string{"server_tool_use", "web_search_tool_result", "the pdf says"} {
				if strings.Contains(body, gone) {
					t.Errorf("the request still carries %q", gone)
				}
			}
			for _, kept := range []string{"Go 1.26 is out.", "总结这份 PDF", "[Request interrupted by user]"} {
				if !strings.Contains(body, kept) {
					t.Errorf("the request lost %q", kept)
				}
			}
			if format == llmtest.Anthropic {
				if got := reqs[len(reqs)-1].At("messages", 2, "content", 0, "type"); got != "document" {
					t.Errorf("messages.2.content.0.type = %v, want the user's document", got)
				}
				var sent struct{ Messages []json.RawMessage }
				if err := json.Unmarshal(reqs[len(reqs)-1].Body, &sent); err != nil || len(sent.Messages) != 3 {
					t.Errorf("request has %d messages (%v), want 3: the prompt, the reply, the PDF with the interruption and the new prompt", len(sent.Messages), err)
				}
			} else if !strings.Contains(body, "[document omitted") {
				t.Errorf("the OpenAI request does not say the document was omitted")
			}
		})
	}
}
