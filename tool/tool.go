// Package tool holds the tools the model may call (Read, Write, Edit, Glob, Grep, Bash,
// TodoWrite and the memory tools) and Env, the narrow view of a session they run in.
package tool

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/toolcall"
)

//go:embed docs/*.md
var toolDocs embed.FS

func mustDoc(fsys embed.FS, name string) string {
	b, err := fsys.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("tool: embedded %s: %v", name, err))
	}
	return strings.TrimRight(string(b), "\n")
}

// Tool is one tool the model may call. Its input is decoded once, by toolcall.Decode, into
// the typed value that the permission check sees and Run runs.
type Tool struct {
	Name  string
	Class permission.Class
	// run does the work on the decoded input; an error becomes an is_error result with its
	// text.
	run func(ctx context.Context, e Env, c toolcall.Call) (string, error)
	// check, when set, is what run would refuse the call for before it changes anything.
	check func(e Env, c toolcall.Call) error
	// spec, when set, is an external tool's description and schema (External).
	spec *llm.Tool
}

// External is a tool served by someone else, an MCP server's: its input is any JSON object,
// passed on as it is (the server validates it), and it is decided as a shell command is, so
// that it asks unless a rule (its name, or mcp__server for all of a server's) allows it.
// call returns the result's text and whether it is an error.
func External(name, description string, schema json.RawMessage, call func(ctx context.Context, args json.RawMessage) (string, bool, error)) *Tool {
	return &Tool{Name: name, Class: permission.ClassExec, spec: &llm.Tool{Name: name, Description: description, InputSchema: schema},
		run: func(ctx context.Context, _ Env, c toolcall.Call) (string, error) {
			in, ok := c.(*toolcall.External)
			if !ok {
				return "", fmt.Errorf("%s cannot run a %s input", name, c.Tool())
			}
			out, isErr, err := call(ctx, in.Args)
			if err == nil && isErr {
				err = errors.New(out)
			}
			return out, err
		}}
}

// Decode validates and decodes a call's input for this tool (see the package's Decode).
func (t *Tool) Decode(e Env, in json.RawMessage) (toolcall.Call, error) {
	if t.spec != nil {
		return toolcall.DecodeExternal(t.Name, in)
	}
	return Decode(e, t.Name, in)
}

// With returns the box with ts added after its own tools (a name it has already is skipped).
func (b Box) With(ts ...*Tool) Box {
	out := Box{list: slices.Clone(b.list), byName: maps.Clone(b.byName)}
	for _, t := range ts {
		if out.byName[t.Name] == nil {
			out.list = append(out.list, t)
			out.byName[t.Name] = t
		}
	}
	return out
}

// Run runs the tool on its decoded input c.
func (t *Tool) Run(ctx context.Context, e Env, c toolcall.Call) (string, error) {
	return t.run(ctx, e, c)
}

// Precheck returns the refusal Run would give c as things stand — an Edit or Write of a file
// the model has not read, an Edit whose old text is not in the file — or nil. The agent calls
// it before asking the user, so that no one approves a call that cannot run; Run checks
// again, as the file may change while the question is open.
func (t *Tool) Precheck(e Env, c toolcall.Call) error {
	if t.check == nil {
		return nil
	}
	return t.check(e, c)
}

// withCheck sets a tool's Precheck.
func withCheck[T toolcall.Call](t *Tool, check func(e Env, in T) error) *Tool {
	t.check = func(e Env, c toolcall.Call) error {
		in, ok := c.(T)
		if !ok {
			return fmt.Errorf("%s cannot check a %s input", t.Name, c.Tool())
		}
		return check(e, in)
	}
	return t
}

// newTool makes a tool whose run takes its own input type.
func newTool[T toolcall.Call](name string, cl permission.Class, run func(ctx context.Context, e Env, in T) (string, error)) *Tool {
	return &Tool{Name: name, Class: cl, run: func(ctx context.Context, e Env, c toolcall.Call) (string, error) {
		in, ok := c.(T)
		if !ok {
			return "", fmt.Errorf("%s cannot run a %s input", name, c.Tool())
		}
		return run(ctx, e, in)
	}}
}

// MaxOutput caps what one tool result may hold (bytes); the middle of longer output is
// cut with a note. Bash and Read cap their own output below this.
const MaxOutput = 100_000

// Set returns the tools, in the fixed order they are offered in.
func Set(memory bool) []*Tool {
	ts := []*Tool{readTool, writeTool, editTool, globTool, grepTool, bashTool, todoTool}
	if memory {
		ts = append(ts, memorySaveTool, memoryForgetTool, memorySearchTool)
	}
	return ts
}

// Names returns the names of the tools an agent offers (memory tools included when
// withMemory), in order.
func Names(withMemory bool) []string { return NewBox(withMemory).Names() }

// Box is a session's tools, by name and in the order they are offered.
type Box struct {
	list   []*Tool
	byName map[string]*Tool
}

// NewBox returns Set(memory) as a Box.
func NewBox(memory bool) Box {
	b := Box{list: Set(memory), byName: map[string]*Tool{}}
	for _, t := range b.list {
		b.byName[t.Name] = t
	}
	return b
}

// Get returns the tool called name (nil when there is none).
func (b Box) Get(name string) *Tool { return b.byName[name] }

// Names returns the tools' names, in order.
func (b Box) Names() []string {
	out := make([]string, len(b.list))
	for i, t := range b.list {
		out[i] = t.Name
	}
	return out
}

// LLM returns the tools as the model is told of them, in order.
func (b Box) LLM() []llm.Tool {
	out := make([]llm.Tool, len(b.list))
	for i, t := range b.list {
		out[i] = t.LLM()
	}
	return out
}

// LLM is the tool as the model is told of it: name, description and input schema.
func (t *Tool) LLM() llm.Tool {
	if t.spec != nil {
		return *t.spec
	}
	schema, err := toolcall.Schema(t.Name)
	if err != nil {
		panic(fmt.Sprintf("tool: %s: %v", t.Name, err))
	}
	return llm.Tool{Name: t.Name, Description: mustDoc(toolDocs, "docs/"+t.Name+".md"), InputSchema: schema}
}

// Decode validates and decodes a tool input once, with its paths resolved against e's
// working directory: what the permission check or a fork's policy sees is what the tool runs.
func Decode(e Env, name string, in json.RawMessage) (toolcall.Call, error) {
	return toolcall.Decode(name, in, e.Abs)
}

// CapOutput cuts s to max bytes, keeping its start and end, with a note in between.
func CapOutput(s string, max int) string {
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
