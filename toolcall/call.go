package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/strata-mem/strata/work"
)

// Call is the typed input of one tool call, as Decode returns it: one of *Read, *Write,
// *Edit, *Glob, *Grep, *Bash, *TodoWrite, *MemorySave, *MemoryForget, *MemorySearch.
type Call interface {
	// Tool returns the name of the tool the input is for.
	Tool() string
}

// Pather is a Call that names a file or directory: the one path that permissions match and
// that the tool acts on.
type Pather interface {
	Call
	// Target returns the path as Decode resolved it ("" when the call names none).
	Target() string
}

// Read is the input of Read.
type Read struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
}

// Write is the input of Write.
type Write struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// Edit is the input of Edit; Apply carries it out on a text.
type Edit struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// Glob is the input of Glob. Path is the directory to search (resolved, so never "" after
// Decode with a resolver).
type Glob struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// Grep is the input of Grep. Path is the file or directory to search (as for Glob).
type Grep struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	OutputMode string `json:"output_mode"`
	Insens     bool   `json:"-i"`
	Context    int    `json:"-C"`
	HeadLimit  int    `json:"head_limit"`
}

// Bash is the input of Bash. Timeout is in milliseconds (0: the default).
type Bash struct {
	Command     string `json:"command"`
	Timeout     int    `json:"timeout"`
	Description string `json:"description"`
}

// TodoWrite is the input of TodoWrite: the whole new list (checked by work.ValidateTodos
// when written).
type TodoWrite struct {
	Todos []work.Todo `json:"todos"`
}

// MemorySave is the input of memory_save.
type MemorySave struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Type        string `json:"type"`
	Body        string `json:"body"`
}

// MemoryForget is the input of memory_forget.
type MemoryForget struct {
	Name string `json:"name"`
}

// MemorySearch is the input of memory_search.
type MemorySearch struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

// Tool implements Call.
func (*Read) Tool() string { return "Read" }

// Tool implements Call.
func (*Write) Tool() string { return "Write" }

// Tool implements Call.
func (*Edit) Tool() string { return "Edit" }

// Tool implements Call.
func (*Glob) Tool() string { return "Glob" }

// Tool implements Call.
func (*Grep) Tool() string { return "Grep" }

// Tool implements Call.
func (*Bash) Tool() string { return "Bash" }

// Tool implements Call.
func (*TodoWrite) Tool() string { return "TodoWrite" }

// Tool implements Call.
func (*MemorySave) Tool() string { return "memory_save" }

// Tool implements Call.
func (*MemoryForget) Tool() string { return "memory_forget" }

// Tool implements Call.
func (*MemorySearch) Tool() string { return "memory_search" }

// Target implements Pather.
func (c *Read) Target() string { return c.FilePath }

// Target implements Pather.
func (c *Write) Target() string { return c.FilePath }

// Target implements Pather.
func (c *Edit) Target() string { return c.FilePath }

// Target implements Pather.
func (c *Glob) Target() string { return c.Path }

// Target implements Pather.
func (c *Grep) Target() string { return c.Path }

// spec is one tool's schema and typed input.
type spec struct {
	schema string
	new    func() Call
}

var specs = map[string]*spec{
	"Read": {schema: `{"type":"object","properties":{` +
		`"file_path":{"type":"string","description":"The file to read, absolute or relative to the working directory"},` +
		`"offset":{"type":"integer","minimum":1,"description":"The 1-based line to start at"},` +
		`"limit":{"type":"integer","minimum":1,"description":"How many lines to read"}},` +
		`"required":["file_path"],"additionalProperties":false}`, new: func() Call { return new(Read) }},
	"Write": {schema: `{"type":"object","properties":{` +
		`"file_path":{"type":"string","description":"The file to write, absolute or relative to the working directory"},` +
		`"content":{"type":"string","description":"The whole new content of the file"}},` +
		`"required":["file_path","content"],"additionalProperties":false}`, new: func() Call { return new(Write) }},
	"Edit": {schema: `{"type":"object","properties":{` +
		`"file_path":{"type":"string","description":"The file to change, absolute or relative to the working directory"},` +
		`"old_string":{"type":"string","description":"The exact text to replace"},` +
		`"new_string":{"type":"string","description":"The text to put in its place"},` +
		`"replace_all":{"type":"boolean","description":"Replace every occurrence (default false: old_string must be unique)"}},` +
		`"required":["file_path","old_string","new_string"],"additionalProperties":false}`, new: func() Call { return new(Edit) }},
	"Glob": {schema: `{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"The glob pattern, e.g. **/*.go"},` +
		`"path":{"type":"string","description":"The directory to search (default: the working directory)"}},` +
		`"required":["pattern"],"additionalProperties":false}`, new: func() Call { return new(Glob) }},
	"Grep": {schema: `{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"The regular expression (Go RE2 syntax)"},` +
		`"path":{"type":"string","description":"A file or directory to search (default: the working directory)"},` +
		`"glob":{"type":"string","description":"Only files whose path matches this glob, e.g. *.go"},` +
		`"output_mode":{"type":"string","enum":["files_with_matches","content","count"],"description":"What to return (default files_with_matches)"},` +
		`"-i":{"type":"boolean","description":"Case-insensitive"},` +
		`"-C":{"type":"integer","minimum":0,"description":"Lines of context around each match (content mode)"},` +
		`"head_limit":{"type":"integer","minimum":1,"description":"At most this many lines of output (default 250)"}},` +
		`"required":["pattern"],"additionalProperties":false}`, new: func() Call { return new(Grep) }},
	"Bash": {schema: `{"type":"object","properties":{` +
		`"command":{"type":"string","description":"The command to run"},` +
		`"timeout":{"type":"integer","minimum":1,"maximum":600000,"description":"Timeout in milliseconds (default 120000)"},` +
		`"description":{"type":"string","description":"What the command does, in a few words"}},` +
		`"required":["command"],"additionalProperties":false}`, new: func() Call { return new(Bash) }},
	"TodoWrite": {schema: `{"type":"object","properties":{"todos":{"type":"array","description":"The whole new list","items":{"type":"object","properties":{` +
		`"content":{"type":"string","minLength":1},` +
		`"activeForm":{"type":"string","minLength":1},` +
		`"status":{"type":"string","enum":["pending","in_progress","completed"]}},` +
		`"required":["content","activeForm","status"],"additionalProperties":false}}},` +
		`"required":["todos"],"additionalProperties":false}`, new: func() Call { return new(TodoWrite) }},
	"memory_save": {schema: `{"type":"object","properties":{` +
		`"name":{"type":"string","description":"Short name of the memory; saving under an existing name replaces it"},` +
		`"description":{"type":"string","description":"One line: what it is and when it matters"},` +
		`"type":{"type":"string","enum":["user","feedback","project","reference"]},` +
		`"body":{"type":"string","description":"The memory, in markdown"}},` +
		`"required":["name","description","type","body"],"additionalProperties":false}`, new: func() Call { return new(MemorySave) }},
	"memory_forget": {schema: `{"type":"object","properties":{"name":{"type":"string","description":"The memory's name or file name"}},` +
		`"required":["name"],"additionalProperties":false}`, new: func() Call { return new(MemoryForget) }},
	"memory_search": {schema: `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"What to look for"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":20,"description":"At most this many results (default 5)"}},` +
		`"required":["query"],"additionalProperties":false}`, new: func() Call { return new(MemorySearch) }},
}

// parsedSchemas are the tools' schemas parsed, by tool name: on first use, not in an
// initialiser that every strata process would pay for.
var parsedSchemas = sync.OnceValue(func() map[string]*schema {
	m := make(map[string]*schema, len(specs))
	for name, s := range specs {
		m[name] = mustSchema(s.schema)
	}
	return m
})

// ErrUnknownTool is returned (wrapped) by Decode and Schema for a name that is no tool.
var ErrUnknownTool = errors.New("toolcall: unknown tool")

// Schema returns the JSON schema of the named tool's input.
func Schema(tool string) (json.RawMessage, error) {
	s := specs[tool]
	if s == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, tool)
	}
	return json.RawMessage(s.schema), nil
}

// Decode validates raw against the named tool's schema and decodes it into the tool's typed
// input (an empty raw is the empty object). A refusal is an error whose text, after
// "invalid input: ", tells the model what to fix: not JSON, not an object, a missing required
// key, a value of the wrong type, a key the schema does not have (keys are case-sensitive), or
// a key given twice in any letter case.
//
// resolve, when not nil, makes the paths absolute: a non-empty file_path of Read, Write and
// Edit, and the path of Glob and Grep (resolve("") names the working directory, their
// default). The permission check and the tool then see the same absolute path.
func Decode(tool string, raw []byte, resolve func(string) string) (Call, error) {
	s := specs[tool]
	if s == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, tool)
	}
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	if err := validate(raw, parsedSchemas()[tool]); err != nil {
		return nil, fmt.Errorf("invalid input: %w", err)
	}
	c := s.new()
	if err := json.Unmarshal(raw, c); err != nil {
		return nil, fmt.Errorf("invalid input: %v", err)
	}
	if resolve != nil {
		switch c := c.(type) {
		case *Read:
			c.FilePath = resolveFile(c.FilePath, resolve)
		case *Write:
			c.FilePath = resolveFile(c.FilePath, resolve)
		case *Edit:
			c.FilePath = resolveFile(c.FilePath, resolve)
		case *Glob:
			c.Path = resolve(c.Path)
		case *Grep:
			c.Path = resolve(c.Path)
		}
	}
	return c, nil
}

func resolveFile(p string, resolve func(string) string) string {
	if p == "" {
		return ""
	}
	return resolve(p)
}

// Summary is a short one-line rendering of a tool input for reports: its first path, command,
// name, pattern or query, quoted and cut at 120 bytes.
func Summary(in json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil {
		return "(input not a JSON object)"
	}
	for _, k := range []string{"file_path", "command", "path", "name", "pattern", "query"} {
		if v, ok := m[k].(string); ok {
			if len(v) > 120 {
				v = v[:120] + "…"
			}
			return fmt.Sprintf("%s=%q", k, strings.ToValidUTF8(v, "?"))
		}
	}
	return ""
}
