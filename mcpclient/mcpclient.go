// Package mcpclient lets the agent use MCP servers as Claude Code does: the project's servers
// from its .mcp.json and the user's from ~/.claude.json ("mcpServers"), each server's tools
// offered to the model as mcp__SERVER__TOOL. A project's servers run commands that came with
// the repository, so each is used only once the user said yes to it for this project; the
// answer is kept on the user's side, under $STRATA_HOME (Consent), never in the repository.
// The user's own servers need no such yes. Calls of the tools are decided by the session's
// permission rules as shell commands are.
package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/internal/fsutil"
)

// Scopes of a server: where it was configured.
const (
	Project = "project" // the project's .mcp.json
	User    = "user"    // the user's ~/.claude.json
)

// Server is one configured MCP server.
type Server struct {
	Name string
	// Scope is Project or User; Path is the file it came from.
	Scope, Path string
	// Type is "stdio" (the default: Command with Args and Env) or "http" (URL, MCP's
	// streamable HTTP).
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
}

// maxConfigBytes caps what is read of a configuration file.
const maxConfigBytes = 4 << 20

// Load returns the servers of the project at root (.mcp.json) and of the user whose home is
// home (~/.claude.json), project first, each sorted by name; a user server named like a
// project one is left out. A missing file has none; a file that does not parse is an error
// naming it and the line.
func Load(root, home string) ([]Server, error) {
	proj, err := load(filepath.Join(root, ".mcp.json"), Project)
	if err != nil {
		return nil, err
	}
	user, err := load(filepath.Join(home, ".claude.json"), User)
	if err != nil {
		return nil, err
	}
	for _, s := range user {
		if !slices.ContainsFunc(proj, func(p Server) bool { return p.Name == s.Name }) {
			proj = append(proj, s)
		}
	}
	return proj, nil
}

func load(path, scope string) ([]Server, error) {
	data, err := fsutil.ReadRegular(path, maxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("MCP servers: %w", err)
	}
	var f struct {
		Servers map[string]Server `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("MCP servers: %s:%d: %v", path, errorLine(data, err), err)
	}
	var out []Server
	for name, s := range f.Servers {
		s.Name, s.Scope, s.Path = name, scope, path
		switch {
		case s.Type == "" && s.URL != "":
			s.Type = "http"
		case s.Type == "":
			s.Type = "stdio"
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("MCP servers: %s:%d: server %q: %v", path, lineOf(data, `"`+name+`"`), name, err)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func (s Server) check() error {
	switch {
	case strings.Contains(s.Name, "__") || s.Name == "":
		return errors.New(`a name must be non-empty and without "__" (tools are named mcp__SERVER__TOOL)`)
	case s.Type == "stdio" && s.Command == "":
		return errors.New("no command")
	case (s.Type == "http" || s.Type == "streamable-http") && s.URL == "":
		return errors.New("no url")
	case s.Type != "stdio" && s.Type != "http" && s.Type != "streamable-http":
		return fmt.Errorf("type %q is not supported (stdio or http)", s.Type)
	}
	return nil
}

// errorLine is the line of data a JSON decoding error points at (1 when it points nowhere).
func errorLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n")) + 1
	case errors.As(err, &te):
		return bytes.Count(data[:min(int(te.Offset), len(data))], []byte("\n")) + 1
	}
	return 1
}

// lineOf is the line where s first occurs in data (1 when it does not).
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// Consent is the user's answers about a project's servers, kept under $STRATA_HOME:
// projects/<slug>/mcp-servers.json, {"roots": {"/path/of/project": {"NAME": true|false}}}.
type Consent struct {
	Path, Root string
}

// ConsentFor is the consent file of the project at root.
func ConsentFor(env config.Env, root string) Consent {
	return Consent{Path: filepath.Join(env.ProjectsDir(), config.Slug(root), "mcp-servers.json"), Root: filepath.Clean(root)}
}

type consentFile struct {
	Roots map[string]map[string]bool `json:"roots"`
}

func (c Consent) read() (consentFile, error) {
	data, err := fsutil.ReadRegular(c.Path, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return consentFile{}, nil
	}
	if err != nil {
		return consentFile{}, err
	}
	var f consentFile
	if err := json.Unmarshal(data, &f); err != nil {
		return consentFile{}, fmt.Errorf("%s:%d: %v", c.Path, errorLine(data, err), err)
	}
	return f, nil
}

// Answer returns what the user said about the project's server name: asked is false when
// they were never asked.
func (c Consent) Answer(name string) (yes, asked bool, err error) {
	f, err := c.read()
	if err != nil {
		return false, false, err
	}
	yes, asked = f.Roots[c.Root][name]
	return yes, asked, nil
}

// Record keeps the user's answer about the project's server name.
func (c Consent) Record(name string, yes bool) error {
	f, err := c.read()
	if err != nil {
		return err
	}
	if f.Roots == nil {
		f.Roots = map[string]map[string]bool{}
	}
	if f.Roots[c.Root] == nil {
		f.Roots[c.Root] = map[string]bool{}
	}
	f.Roots[c.Root][name] = yes
	data, _ := json.MarshalIndent(f, "", "  ")
	if err := os.MkdirAll(filepath.Dir(c.Path), fsutil.DirMode); err != nil {
		return err
	}
	return fsutil.WriteFile(c.Path, append(data, '\n'), fsutil.FileMode)
}

// Tool is one tool of a connected server.
type Tool struct {
	// Name is mcp__SERVER__TOOL.
	Name, Description string
	Schema            json.RawMessage
	server            *mcp.ClientSession
	remote            string
}

// Call calls the tool with args (a JSON object) and returns its result's text and whether
// the server reported it as an error.
func (t Tool) Call(ctx context.Context, args json.RawMessage) (string, bool, error) {
	res, err := t.server.CallTool(ctx, &mcp.CallToolParams{Name: t.remote, Arguments: args})
	if err != nil {
		return "", true, err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		default:
			data, _ := json.Marshal(c)
			b.Write(data)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		b.Write(data)
	}
	return b.String(), res.IsError, nil
}

// Clients are the connected servers; Close ends them.
type Clients struct {
	sessions []*mcp.ClientSession
	Tools    []Tool
}

// Connect starts (stdio) or reaches (http) each server, in dir, and lists its tools. A
// server that cannot be reached is left out; its error is returned with the others, each
// naming the server.
func Connect(ctx context.Context, servers []Server, dir, version string) (*Clients, []error) {
	cs := &Clients{}
	var errs []error
	client := mcp.NewClient(&mcp.Implementation{Name: "strata", Version: version}, nil)
	for _, s := range servers {
		var t mcp.Transport
		if s.Type == "stdio" {
			cmd := exec.Command(s.Command, s.Args...)
			cmd.Dir = dir
			cmd.Env = os.Environ()
			for k, v := range s.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			t = &mcp.CommandTransport{Command: cmd}
		} else {
			t = &mcp.StreamableClientTransport{Endpoint: s.URL}
		}
		sess, err := client.Connect(ctx, t, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %s (%s): %v", s.Name, s.Path, err))
			continue
		}
		res, err := sess.ListTools(ctx, &mcp.ListToolsParams{})
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %s (%s): listing its tools: %v", s.Name, s.Path, err))
			sess.Close()
			continue
		}
		cs.sessions = append(cs.sessions, sess)
		for _, tl := range res.Tools {
			schema, _ := json.Marshal(tl.InputSchema)
			if len(schema) == 0 || string(schema) == "null" {
				schema = []byte(`{"type":"object"}`)
			}
			desc := tl.Description
			if desc == "" {
				desc = tl.Title
			}
			cs.Tools = append(cs.Tools, Tool{Name: "mcp__" + s.Name + "__" + tl.Name, Description: desc, Schema: schema, server: sess, remote: tl.Name})
		}
	}
	return cs, errs
}

// Close ends every server's session (a stdio server's process too).
func (c *Clients) Close() error {
	var errs []error
	for _, s := range c.sessions {
		errs = append(errs, s.Close())
	}
	c.sessions = nil
	return errors.Join(errs...)
}
