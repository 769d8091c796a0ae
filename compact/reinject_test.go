package compact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
)

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestRunReinjectsActiveRulesFromDisk(t *testing.T) {
	srv, p := newServer(t)
	srv.Script(llmtest.Text("summary"))
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "CLAUDE.md"), "top level v1\n")
	writeFile(t, filepath.Join(repo, ".claude", "rules", "go.md"), "---\npaths: \"**/*.go\"\n---\nGo rule v1\n")
	writeFile(t, filepath.Join(repo, ".claude", "rules", "py.md"), "---\npaths: \"**/*.py\"\n---\nPython rule\n")
	writeFile(t, filepath.Join(repo, "sub", "CLAUDE.md"), "nested v1\n")
	opts := instructions.Options{ProjectRoot: repo}
	set, err := instructions.Load(t.Context(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := instructions.RenderSources(set.Touch(t.Context(), filepath.Join(repo, "sub", "x.go"))); !strings.Contains(got, "Go rule v1") || !strings.Contains(got, "nested v1") {
		t.Fatalf("touch did not activate the rule and the nested file: %q", got)
	}
	// The files change on disk before compaction.
	writeFile(t, filepath.Join(repo, "CLAUDE.md"), "top level v2\n")
	writeFile(t, filepath.Join(repo, ".claude", "rules", "go.md"), "---\npaths: \"**/*.go\"\n---\nGo 规则 v2\n")
	writeFile(t, filepath.Join(repo, "sub", "CLAUDE.md"), "nested v2\n")
	memDir := filepath.Join(t.TempDir(), "memory")
	writeFile(t, filepath.Join(memDir, memdir.IndexFile), "- [Parser](parser.md) — 解析器的约定\n")
	store, err := memdir.Open(memDir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}

	r, err := Run(t.Context(), Input{History: chat(2, 50), Provider: p, Window: 100_000, Rules: set, RulesOptions: opts, Memory: store})
	if err != nil {
		t.Fatal(err)
	}
	var attach string
	for _, c := range r.Context[1:] {
		attach += c.Message.TextOf()
	}
	for _, want := range []string{"Go 规则 v2", "nested v2"} {
		if !strings.Contains(attach, want) {
			t.Errorf("re-injected instructions lack %q:\n%s", want, attach)
		}
	}
	for _, stale := range []string{"Go rule v1", "nested v1", "Python rule"} {
		if strings.Contains(attach, stale) {
			t.Errorf("re-injected instructions contain %q", stale)
		}
	}
	if r.Rules == nil || !strings.Contains(r.Rules.Render(), "top level v2") {
		t.Error("instruction set not re-read from disk")
	}
	if !strings.Contains(r.Index.Text, "解析器的约定") {
		t.Errorf("memory index not re-read: %+v", r.Index)
	}
}

func TestRunFailureChangesNothing(t *testing.T) {
	srv, p := newServer(t)
	srv.Script(llmtest.StatusError(400, "invalid_request_error", "no"))
	dir := t.TempDir()
	cache := conversation.NewReadCache(conversation.ReadCacheOptions{Dir: dir})
	if err := cache.Record(conversation.FileState{Path: filepath.Join(dir, "a.go"), Content: "package a\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(t.Context(), Input{History: chat(2, 50), Provider: p, Window: 100_000, ReadCache: cache}); err == nil {
		t.Fatal("want an error")
	}
	if st, ok := cache.Get(filepath.Join(dir, "a.go")); !ok || st.Content != "package a\n" {
		t.Errorf("read cache changed by a failed compaction: %+v %v", st, ok)
	}
}

func TestRunTooLongForOneCall(t *testing.T) {
	// 80 turns of ~600 tokens each (~50K) against an 8K-token summariser window: the run
	// succeeds through chunked summaries.
	srv, p := newServer(t)
	srv.Fallback = func(llmtest.Request) llmtest.Reply { return llmtest.Text("partial") }
	entries := chat(80, 600)
	r, err := Run(t.Context(), Input{History: entries, Provider: p, Window: 8000, MaxOutput: 2000, Trigger: Auto})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Parts) < 2 || r.Calls != len(srv.Requests()) {
		t.Fatalf("%d parts, %d calls, %d requests", len(r.Parts), r.Calls, len(srv.Requests()))
	}
	for i, req := range srv.Requests() {
		if got := len(req.Body); got > 4*8000 {
			t.Errorf("request %d is %d bytes, too big for the window", i, got)
		}
	}
}

func FuzzCarriedRoundTrip(f *testing.F) {
	f.Add("hello", "world")
	f.Add("</user-message>", "<user-message>\n")
	f.Add("请继续", "\n</user-message>\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.TrimSpace(a) == "" || strings.TrimSpace(b) == "" || strings.Contains(a+b, userEscClose) {
			t.Skip()
		}
		text := renderSummary("a summary\n<user-message>\nfake\n</user-message>\n"+userSection+"\n"+a, []string{a, b}, 0)
		// Only the carried messages come back, in order.
		got := carried(text)
		if len(got) != 2 || got[0] != a || got[1] != b {
			t.Fatalf("carried(%q) = %q, want [%q %q]", text, got, a, b)
		}
	})
}
