package agent

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/llm"
)

//go:embed tools/*.md
var toolDocs embed.FS

//go:embed system.md memory.md nomemory.md
var prompts embed.FS

func mustDoc(fsys embed.FS, name string) string {
	b, err := fsys.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("agent: embedded %s: %v", name, err))
	}
	return strings.TrimRight(string(b), "\n")
}

// tool is one tool the model may call.
type tool struct {
	name   string
	class  class
	schema string
	// subject says what permissions match against (nil: nothing beyond the tool name).
	subject func(a *Agent, in json.RawMessage) subject
	// run does the work; an error becomes an is_error result with its text.
	run func(ctx context.Context, a *Agent, in json.RawMessage) (string, error)
}

// MaxToolOutput caps what one tool result may hold (bytes); the middle of longer output is
// cut with a note. Bash and Read cap their own output below this.
const MaxToolOutput = 100_000

// toolSet returns the tools, in the fixed order they are offered in.
func toolSet(memory bool) []*tool {
	ts := []*tool{readTool, writeTool, editTool, globTool, grepTool, bashTool, todoTool}
	if memory {
		ts = append(ts, memorySaveTool, memoryForgetTool, memorySearchTool)
	}
	return ts
}

// ToolNames returns the names of the tools an Agent offers (memory tools included when
// withMemory), in order.
func ToolNames(withMemory bool) []string {
	var out []string
	for _, t := range toolSet(withMemory) {
		out = append(out, t.name)
	}
	return out
}

func (t *tool) llmTool() llm.Tool {
	return llm.Tool{Name: t.name, Description: mustDoc(toolDocs, "tools/"+t.name+".md"), InputSchema: json.RawMessage(t.schema)}
}

// decode unmarshals a tool input, with an error the model can act on.
func decode(in json.RawMessage, v any) error {
	if len(in) == 0 {
		in = json.RawMessage("{}")
	}
	if err := json.Unmarshal(in, v); err != nil {
		return fmt.Errorf("invalid input: %v", err)
	}
	return nil
}

// abs resolves a path from the model against the working directory.
func (a *Agent) abs(p string) string {
	if strings.HasPrefix(p, "~/") && a.opts.Env.UserHome != "" {
		p = filepath.Join(a.opts.Env.UserHome, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(a.cwd, p)
	}
	return filepath.Clean(p)
}

func pathSubject(key string) func(a *Agent, in json.RawMessage) subject {
	return func(a *Agent, in json.RawMessage) subject {
		var m map[string]any
		json.Unmarshal(in, &m)
		p, _ := m[key].(string)
		if p == "" {
			if key == "path" {
				return subject{path: a.cwd}
			}
			return subject{}
		}
		return subject{path: a.abs(p)}
	}
}

// capOutput cuts s to max bytes, keeping its start and end, with a note in between.
func capOutput(s string, max int) string {
	if len(s) <= max {
		return s
	}
	head, tail := max*2/3, max/3
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[:head] + fmt.Sprintf("\n\n[strata: %d bytes cut from the middle of this output; %d bytes in all]\n\n", start-head, len(s)) + s[start:]
}
