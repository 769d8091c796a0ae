package mcpserver

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type nopWriter struct{ io.Writer }

func (nopWriter) Close() error { return nil }

// TestRunStdioAnswersBeforeExit feeds requests and then the end of input: every call read is
// answered, and its write is done, before RunStdio returns.
func TestRunStdioAnswersBeforeExit(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_save","arguments":{"name":"late","type":"user","description":"d","body":"b"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"anything"}}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := s.RunStdio(t.Context(), io.NopCloser(strings.NewReader(in)), nopWriter{&out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":3,"result"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %s:\n%s", want, out.String())
		}
	}
	if _, err := os.Stat(filepath.Join(s.MemoryDir(), "late.md")); err != nil {
		t.Errorf("the save was not done: %v", err)
	}
}

// TestStdioBinary runs the real strata binary as an MCP server over stdio.
func TestStdioBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the strata binary")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		t.Skipf("no go command to build strata: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "strata")
	build := exec.Command(gobin, "build", "-o", bin, "../cmd/strata")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f := newFixture(t)
	cmd := exec.Command(bin, "mcp", "--project", f.project)
	cmd.Env = append(os.Environ(), "HOME="+f.env.UserHome, "STRATA_HOME="+f.home, "STRATA_MANAGED_DIR="+f.managed, "STRATA_MEMORY_DIR=")
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-test"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil || len(tools.Tools) != 7 {
		t.Fatalf("tools/list: %d tools, %v", len(tools.Tools), err)
	}
	mustCall(t, cs, "memory_save", SaveInput{Name: "二进制", Type: "reference", Description: "saved through the real binary", Body: "over stdio\n"}, nil)
	var res SearchOutput
	mustCall(t, cs, "memory_search", SearchInput{Query: "real binary"}, &res)
	if len(res.Results) != 1 || res.Results[0].Memory.Name != "二进制" {
		t.Errorf("memory_search: %+v", res)
	}
	if msg := call(t, cs, "memory_get", GetInput{Name: "../../etc/passwd"}, nil); msg == "" {
		t.Error("memory_get of a path succeeded")
	}
	mustCall(t, cs, "memory_forget", ForgetInput{Name: "二进制", Archive: true}, nil)
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.home, "projects")); err != nil {
		t.Errorf("the binary did not use STRATA_HOME: %v", err)
	}
}
