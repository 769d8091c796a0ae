package mcpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-mem/strata/config"
)

func TestLoad(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte(`{"mcpServers": {
  "notes": {"command": "notes-server", "args": ["--ro"], "env": {"K": "v"}},
  "web": {"type": "http", "url": "http://127.0.0.1:9/mcp"}
}}`), 0o600)
	os.WriteFile(filepath.Join(home, ".claude.json"), []byte(`{"numStartups": 3, "mcpServers": {"notes": {"command": "other"}, "mine": {"command": "my-server"}}}`), 0o600)
	got, err := Load(root, home)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Scope+":"+s.Name+":"+s.Type+":"+s.Command+s.URL)
	}
	want := []string{"project:notes:stdio:notes-server", "project:web:http:http://127.0.0.1:9/mcp", "user:mine:stdio:my-server"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// A file that does not parse, or a server without a command, is an error naming the file
	// and the line.
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte("{\"mcpServers\": {\n  \"a\": {\"command\": \"x\"},\n  \"b\": {}\n}}"), 0o600)
	if _, err := Load(root, home); err == nil || !strings.Contains(err.Error(), ".mcp.json:3: server \"b\": no command") {
		t.Errorf("err = %v", err)
	}
	os.WriteFile(filepath.Join(root, ".mcp.json"), []byte("{\"mcpServers\": {\n  \"a\": {\"command\": x}\n}}"), 0o600)
	if _, err := Load(root, home); err == nil || !strings.Contains(err.Error(), ".mcp.json:2:") {
		t.Errorf("err = %v", err)
	}
}

func TestConsent(t *testing.T) {
	env := config.Env{Home: t.TempDir()}
	c := ConsentFor(env, "/src/proj")
	if _, asked, err := c.Answer("notes"); asked || err != nil {
		t.Fatalf("asked before any answer (%v)", err)
	}
	if err := c.Record("notes", true); err != nil {
		t.Fatal(err)
	}
	if err := c.Record("web", false); err != nil {
		t.Fatal(err)
	}
	if yes, asked, _ := c.Answer("notes"); !yes || !asked {
		t.Error("the yes was not kept")
	}
	if yes, asked, _ := c.Answer("web"); yes || !asked {
		t.Error("the no was not kept")
	}
	// Another project (with the same slug) has its own answers.
	if _, asked, _ := ConsentFor(env, "/src-proj").Answer("notes"); asked {
		t.Error("an answer leaked to another project")
	}
}

// TestConnectAndCall connects to an MCP server over streamable HTTP on loopback, lists its
// tool as mcp__SERVER__TOOL with its schema, and calls it; an unreachable server is reported.
func TestConnectAndCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	type in struct {
		Word string `json:"word"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "shout", Description: "says it loud"}, func(ctx context.Context, r *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(a.Word) + "!"}}}, nil, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()
	cs, errs := Connect(t.Context(), []Server{{Name: "loud", Type: "http", URL: hs.URL}, {Name: "gone", Type: "stdio", Command: filepath.Join(t.TempDir(), "no-such-server")}}, t.TempDir(), "test")
	defer cs.Close()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "MCP server gone") {
		t.Errorf("errors: %v", errs)
	}
	if len(cs.Tools) != 1 || cs.Tools[0].Name != "mcp__loud__shout" || cs.Tools[0].Description != "says it loud" || !strings.Contains(string(cs.Tools[0].Schema), `"word"`) {
		t.Fatalf("tools: %+v", cs.Tools)
	}
	out, isErr, err := cs.Tools[0].Call(t.Context(), json.RawMessage(`{"word":"hi"}`))
	if err != nil || isErr || out != "HI!" {
		t.Errorf("call: %q, %v, %v", out, isErr, err)
	}
}
