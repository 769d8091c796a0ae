package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/workspace"
)

// use is a tool_use block with input m.
func use(id, name string, m map[string]any) conversation.Block {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return llmtest.ToolUse(id, name, string(b))
}

// Paths are resolved, symlinks included, before a rule matches. With only Edit(src/**)
// allowed, a link inside src pointing outside the project does not carry the allowance out
// (the call needs approval, which a non-interactive session cannot give); with Read(.env)
// denied, neither an alias of .env nor a Grep or Glob of its directory shows it.
func TestPermissionsSeeThroughSymlinks(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	outside := filepath.Join(filepath.Dir(f.dir), "outside")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("victim\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.write("src/ok.txt", "ok\n")
	f.write(".env", "TOKEN=s3cr3t-value\n")
	f.write("config/prod.env", "PROD=s3cr3t-prod\n")
	f.write("notes.txt", "no secret here\n")
	for link, target := range map[string]string{"src/out": outside, "src/victim.txt": victim,
		"alias.txt": filepath.Join(f.dir, ".env"), "src/envlink": filepath.Join(f.dir, ".env"), "cfg": filepath.Join(f.dir, "config")} {
		if err := os.Symlink(target, filepath.Join(f.dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Script(
		llmtest.Blocks(
			use("w1", "Write", map[string]any{"file_path": "src/out/new.txt", "content": "pwned"}),
			use("w2", "Edit", map[string]any{"file_path": "src/victim.txt", "old_string": "victim", "new_string": "pwned"}),
			use("w3", "Write", map[string]any{"file_path": "src/fine.txt", "content": "fine"}),
			use("r1", "Read", map[string]any{"file_path": "alias.txt"}),
			use("r2", "Read", map[string]any{"file_path": "src/envlink"}),
			use("r3", "Read", map[string]any{"file_path": "cfg/prod.env"}),
			use("g1", "Grep", map[string]any{"pattern": "s3cr3t", "output_mode": "content"}),
			use("g2", "Grep", map[string]any{"pattern": "s3cr3t", "path": "config"}),
			use("l1", "Glob", map[string]any{"pattern": "**/*env*"}),
			use("r4", "Read", map[string]any{"file_path": "notes.txt"}),
		),
		llmtest.Text("done"),
	)
	a := f.agent(Options{Open: workspace.Options{Allow: []string{"Edit(src/**)"}, Deny: []string{"Read(.env)", "Read(config/**)"}}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	got := toolResults(f.srv.Requests()[1])
	for i, want := range []string{
		"needs the user's approval", // w1: src/out/new.txt is outside
		"needs the user's approval", // w2: src/victim.txt is outside
		"Created",                   // w3: inside src, no link
		`denied by the permission rule "Read(.env)"`,
		`denied by the permission rule "Read(.env)"`,
		`denied by the permission rule "Read(config/**)"`,
		"2 files that the permission rules deny reading were left out", // g1: .env, config (a directory)
		`denied by the permission rule "Read(config/**)"`,              // g2: the directory itself
		"left out", // l1
		"no secret here",
	} {
		if i >= len(got) || !strings.Contains(got[i], want) {
			t.Errorf("result %d = %q, want it to contain %q", i+1, at(got, i), want)
		}
	}
	for i, r := range got {
		if strings.Contains(r, "s3cr3t-") {
			t.Errorf("result %d shows a denied file: %q", i+1, r)
		}
	}
	for _, name := range []string{".env", "prod.env"} {
		if strings.Contains(at(got, 8), name+"\n") {
			t.Errorf("Glob listed %s: %q", name, at(got, 8))
		}
	}
	if data, _ := os.ReadFile(victim); string(data) != "victim\n" {
		t.Errorf("the file outside was edited: %q", data)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Errorf("a file was created outside the project through a link in src")
	}
}
