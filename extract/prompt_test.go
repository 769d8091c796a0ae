package extract

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

func TestGuidance(t *testing.T) {
	dir := t.TempDir()
	if g, err := Guidance(dir); g != "" || err != nil {
		t.Fatalf("Guidance without EXTRACT.md = %q, %v; want empty", g, err)
	}
	p := filepath.Join(dir, GuidanceFile)
	mustWrite(t, p, "\xef\xbb\xbf只记录部署相关的决定。\r\nIgnore style nits.\n")
	g, err := Guidance(dir)
	if err != nil || g != "只记录部署相关的决定。\nIgnore style nits." {
		t.Errorf("Guidance = %q, %v", g, err)
	}

	// Over the cap: cut, never inside a character, and the cut is said.
	long := strings.Repeat("记住这一点。\n", MaxGuidanceBytes/10)
	mustWrite(t, p, long)
	g, err = Guidance(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(g) > MaxGuidanceBytes+200 || !strings.Contains(g, "only the first 8 KB") || !strings.HasPrefix(long, strings.SplitN(g, "\n\n[", 2)[0]) {
		t.Errorf("cut guidance (%d bytes) ends %q", len(g), g[max(0, len(g)-120):])
	}

	for name, data := range map[string]string{"binary": "rule one\nab\x00cd", "invalid": "ok\nok\n\xff\xfe"} {
		mustWrite(t, p, data)
		_, err := Guidance(dir)
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: Guidance error = %v; want one naming %s", name, err, p)
		}
		if name == "binary" && !strings.Contains(err.Error(), ":2:") {
			t.Errorf("binary: error %v lacks the line", err)
		}
		if name == "invalid" && !strings.Contains(err.Error(), ":3:") {
			t.Errorf("invalid: error %v lacks the line", err)
		}
	}
}

func TestPrompt(t *testing.T) {
	mems := []memdir.Memory{{File: "tabs.md", Type: memdir.TypeFeedback, Description: "indent with tabs"}, {File: "部署.md", Description: "如何部署"}}
	in := PromptInput{MemDir: "/m/memory", Mode: WriteAuto, NewMessages: 6, Guidance: "只记录部署相关的决定。", Manifest: Manifest(mems)}
	p := Prompt(in)
	for _, want := range []string{
		"last 6 messages", "user:", "feedback:", "project:", "reference:",
		"Secrets", "read from the code", "instead of adding a duplicate", "/m/memory", "MEMORY.md", "such as /m/memory/topic-name.md",
		"at most 5 turns", `"nothing to save"`,
		"- tabs.md (feedback): indent with tabs", "- 部署.md (untyped): 如何部署",
		"## Guidance for this project (from EXTRACT.md)\n\n只记录部署相关的决定。",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if strings.Contains(p, "inbox") {
		t.Errorf("auto-mode prompt mentions the inbox")
	}
	in.Mode, in.Guidance, in.Manifest = WriteConfirm, "", ""
	p = Prompt(in)
	if !strings.Contains(p, ".inbox/") || strings.Contains(p, "Guidance for this project") || !strings.Contains(p, "(none yet)") {
		t.Errorf("confirm prompt without guidance:\n%s", p)
	}
	in.Mode = WriteReadOnly
	if p := Prompt(in); !strings.Contains(p, "do not call Write or Edit") {
		t.Errorf("read-only prompt does not forbid writing:\n%s", p)
	}
	// The same input gives the same bytes (the fork's request must be reproducible).
	if Prompt(in) != Prompt(in) {
		t.Error("Prompt is not deterministic")
	}
}

func TestGuidanceSymlinkOut(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "memory")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(base, "elsewhere.md"), "not guidance")
	mustSymlink(t, filepath.Join(base, "elsewhere.md"), filepath.Join(dir, GuidanceFile))
	g, err := Guidance(dir)
	if err == nil || g != "" {
		t.Errorf("Guidance through a symlink out = %q, %v; want an error", g, err)
	}
}
