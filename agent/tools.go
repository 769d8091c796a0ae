package agent

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/toolcall"
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

// tool is one tool the model may call. Its input is decoded once, by toolcall.Decode, into
// the typed value that the permission check sees and run runs.
type tool struct {
	name  string
	class class
	// run does the work on the decoded input; an error becomes an is_error result with its
	// text.
	run func(ctx context.Context, e env, c toolcall.Call) (string, error)
}

// newTool makes a tool whose run takes its own input type.
func newTool[T toolcall.Call](name string, cl class, run func(ctx context.Context, e env, in T) (string, error)) *tool {
	return &tool{name: name, class: cl, run: func(ctx context.Context, e env, c toolcall.Call) (string, error) {
		in, ok := c.(T)
		if !ok {
			return "", fmt.Errorf("%s cannot run a %s input", name, c.Tool())
		}
		return run(ctx, e, in)
	}}
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
	schema, err := toolcall.Schema(t.name)
	if err != nil {
		panic(fmt.Sprintf("agent: tool %s: %v", t.name, err))
	}
	return llm.Tool{Name: t.name, Description: mustDoc(toolDocs, "tools/"+t.name+".md"), InputSchema: schema}
}

// decode validates and decodes a tool input once, with its paths resolved against e's
// working directory: what the permission check or a fork's policy sees is what the tool runs.
func decode(e env, name string, in json.RawMessage) (toolcall.Call, error) {
	return toolcall.Decode(name, in, e.abs)
}

// subjectOf is what permissions match a decoded call against: its command or its path.
func subjectOf(c toolcall.Call) subject {
	switch c := c.(type) {
	case *toolcall.Bash:
		return subject{command: c.Command}
	case toolcall.Pather:
		return pathSubject(c.Target())
	}
	return subject{}
}

// checkedKey keys the subject the permission check decided on in the context its tool runs
// with (withChecked).
type checkedKey struct{}

// withChecked returns ctx carrying s, the subject the permission check decided on, to the tool
// that runs the call: the tool then works on the file the check saw (asChecked).
func withChecked(ctx context.Context, s subject) context.Context {
	return context.WithValue(ctx, checkedKey{}, s)
}

// asChecked returns path with its symlinks resolved, and an error when that is not what the
// permission check resolved it to (a link made or swapped since).
func asChecked(ctx context.Context, path string) (string, error) {
	real := fsutil.RealPath(path)
	if s, ok := ctx.Value(checkedKey{}).(subject); ok && s.path == path {
		if want := cmp.Or(s.real, s.path); real != want {
			return "", changed(path, real)
		}
	}
	return real, nil
}

// changed is the refusal of a call whose path resolves elsewhere than when it was checked.
func changed(path, now string) error {
	return fmt.Errorf("refused: %s now leads to %s, not to the file the permission check saw; call the tool again", path, now)
}

// abs resolves a path from the model against the working directory.
func (a *Agent) abs(p string) string { return resolvePath(a.cwd, a.opts.Env.UserHome, p) }

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
