package webui

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/transcript"
)

// writeSubagent writes a Claude Code 2.1 subagent of the fixture's session, started by its
// tool call t1, with its .meta.json.
func writeSubagent(t testing.TB, f *fixture, agent string) string {
	t.Helper()
	p := transcript.SubagentPath(filepath.Join(f.ws.TranscriptDir(), sessionID+".jsonl"), agent)
	must(t, os.MkdirAll(filepath.Dir(p), 0o700))
	line := func(typ, uuid, parent, msg string) string {
		par := "null"
		if parent != "" {
			par = `"` + parent + `"`
		}
		return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + par + `,"isSidechain":true,"agentId":"` + agent + `","sessionId":"` + sessionID + `","timestamp":"2026-03-01T10:00:03Z","message":` + msg + "}\n"
	}
	data := line("user", "s1", "", `{"role":"user","content":"Find where the widget ticker is created."}`) +
		line("assistant", "s2", "s1", `{"role":"assistant","id":"msg_s1","model":"claude-haiku-4-5","usage":{"input_tokens":400,"output_tokens":100},"content":[{"type":"text","text":"The ticker is created in newWidget, widget.go:12."}]}`)
	must(t, os.WriteFile(p, []byte(data), 0o600))
	must(t, os.WriteFile(transcript.SubagentMetaPath(p), []byte(`{"agentId":"`+agent+`","agentType":"Explore","description":"find the ticker","parentToolUseId":"t1"}`), 0o600))
	return p
}

func TestSubagents(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	writeSubagent(t, f, "a7e1")

	code, body := f.get(t, "/session?id="+sessionID)
	if code != http.StatusOK {
		t.Fatalf("session page: %d\n%s", code, body)
	}
	link := `href="/session?id=` + sessionID + `&amp;agent=a7e1"`
	for _, want := range []string{"1 subagent</h2>", link + `>a7e1</a> <span class="tag">Explore</span> find the ticker`, "500 tokens",
		// the Read call t1 started it
		`</details><p class="spawned">→ <a class="agent" ` + link + `>subagent a7e1</a>`} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatal(body)
	}

	code, body = f.get(t, "/session?id="+sessionID+"&agent=a7e1")
	if code != http.StatusOK {
		t.Fatalf("subagent page: %d\n%s", code, body)
	}
	for _, want := range []string{"Subagent a7e1", "The ticker is created in newWidget", `id="parent" href="/session?id=` + sessionID + `"`, "1 model replies"} {
		if !strings.Contains(body, want) {
			t.Errorf("subagent page lacks %q", want)
		}
	}
	if strings.Contains(body, "a race with the ticker") || strings.Contains(body, "claude --resume") {
		t.Errorf("the subagent page shows the parent's conversation or its resume command")
	}
	if t.Failed() {
		t.Fatal(body)
	}

	// A search hit in the subagent opens the subagent.
	_, body = f.get(t, "/sessions?q=newWidget")
	if !strings.Contains(body, `agent=a7e1&amp;q=newWidget#L2"`) {
		t.Fatalf("the hit in the subagent does not link to it:\n%s", body)
	}

	for _, bad := range []string{"nosuch", "../" + sessionID, ".hidden"} {
		if code, _ := f.get(t, "/session?id="+sessionID+"&agent="+bad); code != http.StatusNotFound {
			t.Errorf("agent %q: %d, want 404", bad, code)
		}
	}
}
