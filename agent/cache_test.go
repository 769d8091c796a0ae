package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// cacheSession runs a scripted 30-turn session (reads, edits, shell commands, memory saves,
// searches, todos) against a fake server and returns the recorded requests.
func cacheSession(t testing.TB, f *fixture, turns int) []llmtest.Request {
	var body strings.Builder
	for i := range 60 {
		fmt.Fprintf(&body, "// line %d of the module: some code the agent works on, with enough text to matter.\n", i+1)
	}
	for i := range turns {
		f.write(fmt.Sprintf("pkg/file%02d.go", i), fmt.Sprintf("package pkg\n\nconst Name%02d = \"old\"\n%s", i, body.String()))
	}
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	tu := func(id, name, input string) conversation.Block { return llmtest.ToolUse(id, name, input) }
	for i := range turns {
		file := fmt.Sprintf("pkg/file%02d.go", i)
		var replies []llmtest.Reply
		switch i % 6 {
		case 0:
			replies = append(replies, llmtest.Blocks(llmtest.TextBlock("Reading it."), tu(fmt.Sprintf("r%d", i), "Read", fmt.Sprintf(`{"file_path":%q}`, file))))
		case 1:
			replies = append(replies, llmtest.Blocks(tu(fmt.Sprintf("r%d", i), "Read", fmt.Sprintf(`{"file_path":%q}`, file))),
				llmtest.Blocks(tu(fmt.Sprintf("e%d", i), "Edit", fmt.Sprintf(`{"file_path":%q,"old_string":"\"old\"","new_string":"\"new\""}`, file))))
		case 2:
			replies = append(replies, llmtest.Blocks(tu(fmt.Sprintf("b%d", i), "Bash", fmt.Sprintf(`{"command":"grep -c line %s"}`, file))))
		case 3:
			replies = append(replies, llmtest.Blocks(tu(fmt.Sprintf("m%d", i), "memory_save", fmt.Sprintf(`{"name":"fact %d","description":"A project fact number %d about the module files","type":"project","body":"Fact %d: file%02d.go holds Name%02d.\n**Why:** asked in turn %d.\n**How to apply:** when touching pkg."}`, i, i, i, i, i, i))))
		case 4:
			replies = append(replies, llmtest.Blocks(tu(fmt.Sprintf("g%d", i), "Grep", `{"pattern":"Name0[0-3]","output_mode":"content","head_limit":10}`)))
		case 5:
			replies = append(replies, llmtest.Blocks(tu(fmt.Sprintf("t%d", i), "TodoWrite", fmt.Sprintf(`{"todos":[{"content":"Check file %d","activeForm":"Checking file %d","status":"in_progress"}]}`, i, i))))
		}
		replies = append(replies, llmtest.Text(fmt.Sprintf("Turn %d is done: the module facts are in order.", i)))
		f.srv.Script(replies...)
		if _, err := a.Run(context.Background(), fmt.Sprintf("Turn %d: please look at %s and the module facts.", i, file), nil); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	return f.srv.Requests()
}

// canonical renders a recorded Anthropic request in the provider's cache order (tools, system,
// messages) without cache_control markers, which move with the tail by design.
func canonical(r llmtest.Request) []byte {
	var buf bytes.Buffer
	for _, k := range []string{"tools", "system", "messages"} {
		v := stripKey(r.At(k), "cache_control")
		b, _ := json.Marshal(v)
		buf.Write(b[:max(len(b)-1, 0)]) // leave the closing bracket off: a list that grows keeps its prefix
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func stripKey(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k != key {
				out[k] = stripKey(e, key)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripKey(e, key)
		}
		return out
	}
	return v
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// prefixShare returns, averaged over consecutive request pairs, the share of each request's
// bytes that is an exact prefix of the next request: canonical (cache order, markers left out)
// and raw (the body as sent).
func prefixShare(reqs []llmtest.Request) (canon, raw float64) {
	for i := 0; i+1 < len(reqs); i++ {
		a, b := canonical(reqs[i]), canonical(reqs[i+1])
		canon += float64(commonPrefix(a, b)) / float64(len(a))
		raw += float64(commonPrefix(reqs[i].Body, reqs[i+1].Body)) / float64(len(reqs[i].Body))
	}
	n := float64(len(reqs) - 1)
	return canon / n, raw / n
}

func TestCachePrefixOverThirtyTurnsOpenAI(t *testing.T) {
	f := newFixture(t, llmtest.OpenAI)
	reqs := cacheSession(t, f, 30)
	canon, raw := prefixShare(reqs)
	t.Logf("openai: %d requests: canonical prefix share %.4f, raw body prefix share %.4f", len(reqs), canon, raw)
	if canon < 0.95 {
		t.Errorf("canonical prefix share %.4f < 0.95", canon)
	}
	if raw < 0.95 {
		t.Errorf("raw body prefix share %.4f < 0.95 (are tools and system still sent before the messages?)", raw)
	}
}

func TestCachePrefixOverThirtyTurns(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	reqs := cacheSession(t, f, 30)
	canon, raw := prefixShare(reqs)
	t.Logf("anthropic: %d requests: canonical prefix share %.4f, raw body prefix share %.4f", len(reqs), canon, raw)
	if canon < 0.95 {
		t.Errorf("canonical prefix share %.4f < 0.95", canon)
	}
	if raw < 0.95 {
		t.Errorf("raw body prefix share %.4f < 0.95 (are tools and system still sent before the messages?)", raw)
	}
	// Markers: the last system block, and at most two messages.
	for i, r := range reqs {
		sys := r.At("system").([]any)
		if llmtest.At(sys[len(sys)-1], "cache_control", "type") != "ephemeral" {
			t.Errorf("request %d: no cache marker on the last system block", i)
		}
		if n := strings.Count(string(r.Body), `"cache_control"`); n > 3 {
			t.Errorf("request %d: %d cache markers", i, n)
		}
	}
	// System and tools are byte-identical in every request.
	for i := 1; i < len(reqs); i++ {
		for _, k := range []string{"system", "tools"} {
			a, _ := json.Marshal(stripKey(reqs[0].At(k), ""))
			b, _ := json.Marshal(stripKey(reqs[i].At(k), ""))
			if !bytes.Equal(a, b) {
				t.Errorf("request %d: %s differs from the first request's", i, k)
			}
		}
	}
}

// BenchmarkCachePrefix prints the prefix share of a scripted 30-turn session as metrics
// (canonical-prefix and raw-prefix, 1.0 = every request is a prefix of the next).
func BenchmarkCachePrefix(b *testing.B) {
	var canon, raw float64
	var n int
	for b.Loop() {
		f := newFixture(b, llmtest.Anthropic)
		reqs := cacheSession(b, f, 30)
		canon, raw = prefixShare(reqs)
		n = len(reqs)
	}
	b.ReportMetric(canon, "canonical-prefix")
	b.ReportMetric(raw, "raw-prefix")
	b.ReportMetric(float64(n), "requests")
}
