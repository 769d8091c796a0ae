package agent

import (
	"context"
	"errors"
	"github.com/strata-mem/strata/workspace"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
)

// TestShell: the user's "!" command obeys the deny rules like a model's call but is not asked
// about (the user typed it), and a command that ran reaches the next request with its output.
func TestShell(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	asked := 0
	a := f.agent(Options{Open: workspace.Options{Deny: []string{"Bash(rm:*)"}}, Approver: func(context.Context, permission.Request) (permission.Answer, error) {
		asked++
		return permission.Answer{Allow: true}, nil
	}})
	var denied *Denied
	if _, _, err := a.Shell(t.Context(), "rm -rf x", nil); !errors.Is(err, ErrDenied) || !errors.As(err, &denied) || denied.Reason == "" || strings.Contains(denied.Reason, "agent:") {
		t.Errorf("denied command: err = %v", err)
	}
	out, isErr, err := a.Shell(t.Context(), "echo 你好", nil)
	if err != nil || isErr || out != "你好\n" || asked != 0 {
		t.Fatalf("echo: %q, %v, %v (asked %d)", out, isErr, err, asked)
	}
	if _, isErr, _ := a.Shell(t.Context(), "exit 3", nil); !isErr {
		t.Error("a failing command is not reported as failed")
	}
	f.srv.Script(llmtest.Text("seen"))
	if _, err := a.Run(t.Context(), "what did it print?", nil); err != nil {
		t.Fatal(err)
	}
	body := string(f.srv.Requests()[0].Body)
	if !strings.Contains(body, `echo 你好\u003c/bash-input\u003e`) || !strings.Contains(body, `\u003cbash-stdout\u003e你好\u003c/bash-stdout\u003e`) || strings.Contains(body, "rm -rf") {
		t.Errorf("request does not carry the command and output (or carries the denied one):\n%s", body)
	}
}

// TestReadFileAndSetModel: ReadFile gives what the Read tool gives, deny rules included;
// SetModel sends the next request to the new model and prices its calls at its price.
func TestReadFileAndSetModel(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("notes.md", "line one\n")
	f.write("secret.env", "K=V\n")
	a := f.agent(Options{Model: "my-local-model", Open: workspace.Options{Deny: []string{"Read(*.env)"}}})
	out, err := a.ReadFile(t.Context(), "notes.md")
	if err != nil || !strings.Contains(out, "1\tline one") {
		t.Errorf("ReadFile = %q, %v", out, err)
	}
	if _, err := a.ReadFile(t.Context(), "secret.env"); !errors.Is(err, ErrDenied) {
		t.Errorf("denied read: %v", err)
	}
	a.SetModel("claude-haiku-4-5", 0)
	f.srv.Script(llmtest.Text("ok").WithUsage(llm.Usage{InputTokens: 1000, OutputTokens: 100}))
	if _, err := a.Run(t.Context(), "hi", nil); err != nil {
		t.Fatal(err)
	}
	if m := f.srv.Requests()[0].At("model"); m != "claude-haiku-4-5" || a.Model() != "claude-haiku-4-5" {
		t.Errorf("request model %v, Model() %q", m, a.Model())
	}
	if r := a.Usage(); !r.Total.Priced || r.Total.Cost <= 0 {
		t.Errorf("usage after the switch is not priced: %+v", r.Total)
	}
}
