package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/workspace"
)

// A given workspace is the session's: its settings decide, its store is the agent's, and its
// settings problems are left to whoever opened it.
func TestNewUsesTheGivenWorkspace(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("../home/.strata/settings.json", `{"permissions": {"defaultMode": "acceptEdits"}, "autoMemoryDirectory": "mem"}`) // the user's: a project may set neither
	f.write(".claude/settings.local.json", `{"broken`)
	ws, err := workspace.Open(t.Context(), workspace.Options{Cwd: f.dir, Env: f.env})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(t.Context(), Options{Provider: f.prov, Workspace: ws, NoTranscript: true, NoBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if a.Workspace() != ws || a.PermissionMode() != permission.ModeAcceptEdits || a.MemoryDir() != filepath.Join(ws.Root(), "mem") {
		t.Errorf("workspace %v, mode %s, memory dir %s", a.Workspace() == ws, a.PermissionMode(), a.MemoryDir())
	}
	if store, _ := ws.Store(); a.store != store {
		t.Errorf("the agent opened its own store")
	}
	if w := a.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q: the settings problem belongs to whoever opened the workspace", w)
	}

	// Without one, New opens it and reports the settings problem once.
	b, err := New(t.Context(), Options{Provider: f.prov, NoTranscript: true, NoBackground: true, Open: workspace.Options{Cwd: f.dir, Env: f.env}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	n := 0
	for _, w := range b.Warnings() {
		if strings.Contains(w, "settings.local.json") {
			n++
		}
	}
	if n != 1 || b.PermissionMode() != permission.ModeAcceptEdits {
		t.Errorf("warnings %q (want the settings problem once), mode %s", b.Warnings(), b.PermissionMode())
	}

	if _, err := New(t.Context(), Options{Provider: f.prov, Workspace: ws, NoTranscript: true, Open: workspace.Options{NoMemory: true}}); err == nil {
		t.Errorf("Open with a Workspace (NoMemory that would not apply): no error")
	}
	off, _ := workspace.Open(t.Context(), workspace.Options{Cwd: f.dir, Env: f.env, NoMemory: true})
	c, err := New(t.Context(), Options{Provider: f.prov, Workspace: off, NoTranscript: true, NoBackground: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	if c.MemoryDir() != "" {
		t.Errorf("memory off: MemoryDir = %s", c.MemoryDir())
	}
}
