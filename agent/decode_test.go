package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/workspace"
)

// A model that spells a key twice, once in another letter case, must not get past the
// permission check with one path and write another: encoding/json matches keys without regard
// to case and keeps the last, so the check saw src/ok.txt and the tool wrote the other file.
// Every such call is refused before any policy sees it, and nothing is written.
func TestDuplicateKeysCannotRedirectAWrite(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	outside := filepath.Join(filepath.Dir(f.dir), "outside.txt")
	if err := os.WriteFile(outside, []byte("old text\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.write("src/keep.txt", "old text\n")
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	f.srv.Script(
		llmtest.Blocks(
			llmtest.ToolUse("r1", "Read", `{"file_path":`+q(outside)+`}`), // reading is allowed: Edit's read-first rule is met
			llmtest.ToolUse("w1", "Write", `{"file_path":"src/ok.txt","FILE_PATH":`+q(outside)+`,"content":"pwned"}`),
			llmtest.ToolUse("w2", "Write", `{"file_path":"src/ok.txt","File_Path":`+q(outside)+`,"content":"pwned"}`),
			llmtest.ToolUse("w3", "Write", `{"file_path":"src/ok.txt","file_path":`+q(outside)+`,"content":"pwned"}`),
			llmtest.ToolUse("e1", "Edit", `{"file_path":"src/keep.txt","FILE_PATH":`+q(outside)+`,"old_string":"old","new_string":"pwned"}`),
			llmtest.ToolUse("e2", "Edit", `{"file_path":"src/keep.txt","old_string":"old","new_string":"x","NEW_STRING":"pwned"}`),
			llmtest.ToolUse("b1", "Write", `{"file_path":"src/ok.txt","content":"fine"}`), // the same rule still allows a clean call
		),
		llmtest.Text("done"),
	)
	a := f.agent(Options{Open: workspace.Options{Allow: []string{"Edit(src/**)"}}}) // ask mode, no approver: only the rule allows writes
	if _, err := a.Run(context.Background(), "write the file", nil); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "old text\n" {
		t.Errorf("the file outside src/ was written: %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(f.dir, "src", "keep.txt")); string(data) != "old text\n" {
		t.Errorf("src/keep.txt changed: %q", data)
	}
	if data, err := os.ReadFile(filepath.Join(f.dir, "src", "ok.txt")); err != nil || string(data) != "fine" {
		t.Errorf("src/ok.txt = %q, %v; want the clean call's content", data, err)
	}
	res := toolResults(f.srv.Requests()[1])
	if len(res) != 7 {
		t.Fatalf("%d results, want 7: %q", len(res), res)
	}
	for i, want := range []string{"same key in a different letter case", "same key in a different letter case", "appears twice",
		"same key in a different letter case", "same key in a different letter case"} {
		if got := res[i+1]; !strings.HasPrefix(got, "invalid input: ") || !strings.Contains(got, want) {
			t.Errorf("result %d = %q, want an invalid-input refusal saying %q", i+1, got, want)
		}
	}
}
