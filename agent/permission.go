package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Mode is a permission mode.
type Mode string

// Permission modes.
const (
	// ModeAsk (the default): file writes and shell commands need the Approver's yes.
	ModeAsk Mode = "ask"
	// ModeAcceptEdits: file writes are allowed; shell commands still need a yes.
	ModeAcceptEdits Mode = "accept-edits"
	// ModeBypass: every tool call is allowed, except what a deny pattern names.
	ModeBypass Mode = "bypass"
)

// ParseMode accepts a mode name ("" means ModeAsk; Claude Code's "default", "acceptEdits" and
// "bypassPermissions" are accepted too).
func ParseMode(s string) (Mode, error) {
	switch strings.TrimSpace(s) {
	case "", "ask", "default":
		return ModeAsk, nil
	case "accept-edits", "acceptEdits":
		return ModeAcceptEdits, nil
	case "bypass", "bypassPermissions":
		return ModeBypass, nil
	}
	return "", fmt.Errorf("agent: unknown permission mode %q (use ask, accept-edits or bypass)", s)
}

// class groups tools by what they can do.
type class int

const (
	classRead   class = iota // Read, Glob, Grep, memory_search
	classState               // TodoWrite: working memory only
	classMemory              // memory_save, memory_forget: strata's own store
	classEdit                // Write, Edit
	classExec                // Bash
)

// PermissionRequest is what an Approver is asked about.
type PermissionRequest struct {
	Tool  string
	Input json.RawMessage
	// Summary is one line for a prompt: the command, or the path and what would change.
	Summary string
	// Suggest is a pattern that would allow calls like this one without asking.
	Suggest string
}

// Approver decides a tool call that needs a yes. It may block (an interactive prompt); it must
// return when ctx is done.
type Approver func(ctx context.Context, req PermissionRequest) (bool, error)

// Rule is one parsed allow or deny pattern: a tool name and an optional specifier, as in
// "Bash(go test:*)", "Edit(src/**)" or "Read".
type Rule struct {
	Tool string
	Spec string // "" matches every call of the tool
}

// String formats the rule as it is written in settings.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// ParseRule parses a pattern. The tool name is matched exactly, except that "Edit" also covers
// Write and "Read" also covers Glob and Grep (their path), as in Claude Code.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Rule{}, fmt.Errorf("agent: empty permission pattern")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, ") ") {
			return Rule{}, fmt.Errorf("agent: permission pattern %q: want Tool or Tool(specifier)", s)
		}
		return Rule{Tool: s}, nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 {
		return Rule{}, fmt.Errorf("agent: permission pattern %q: want Tool or Tool(specifier)", s)
	}
	r := Rule{Tool: s[:open], Spec: strings.TrimSpace(s[open+1 : len(s)-1])}
	if r.Spec == "*" || r.Spec == "**" {
		r.Spec = ""
	}
	if r.Tool != "Bash" && r.Spec != "" && !doublestar.ValidatePattern(r.Spec) {
		return Rule{}, fmt.Errorf("agent: permission pattern %q: %q is not a valid glob", s, r.Spec)
	}
	return r, nil
}

// covers reports whether a rule written for tool name rule applies to tool.
func covers(rule, tool string) bool {
	switch {
	case rule == tool:
		return true
	case rule == "Edit":
		return tool == "Write"
	case rule == "Read":
		return tool == "Glob" || tool == "Grep"
	}
	return false
}

// Permissions decides tool calls: deny patterns first, then allow patterns, then the mode.
type Permissions struct {
	Mode  Mode
	Allow []Rule
	Deny  []Rule
	// Cwd resolves relative paths and anchors relative globs.
	Cwd string
	// Home expands "~/" in globs.
	Home string
}

// NewPermissions parses allow and deny patterns; a bad pattern is an error naming it.
func NewPermissions(mode Mode, allow, deny []string, cwd, home string) (*Permissions, error) {
	p := &Permissions{Mode: mode, Cwd: cwd, Home: home}
	for _, s := range allow {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		p.Allow = append(p.Allow, r)
	}
	for _, s := range deny {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		p.Deny = append(p.Deny, r)
	}
	return p, nil
}

// Decision is the outcome of Check.
type Decision int

// Decisions.
const (
	Allow Decision = iota
	Deny
	AskUser
)

// subject is what a pattern's specifier is matched against: a command or a path.
type subject struct {
	command string
	path    string // absolute
}

// Check decides a call of tool (of class c) with subject s; why explains a denial.
func (p *Permissions) check(tool string, c class, s subject) (d Decision, why string) {
	for _, r := range p.Deny {
		if covers(r.Tool, tool) && p.matches(r, s, true) {
			return Deny, fmt.Sprintf("denied by the permission rule %q", r.String())
		}
	}
	for _, r := range p.Allow {
		if covers(r.Tool, tool) && p.matches(r, s, false) {
			return Allow, ""
		}
	}
	switch c {
	case classRead, classState, classMemory:
		return Allow, ""
	case classEdit:
		if p.Mode == ModeAcceptEdits || p.Mode == ModeBypass {
			return Allow, ""
		}
	case classExec:
		if p.Mode == ModeBypass {
			return Allow, ""
		}
	}
	return AskUser, ""
}

// matches reports whether r's specifier matches s. Deny rules match more eagerly than allow
// rules: a command prefix matches any part of a chained command, without a word boundary.
func (p *Permissions) matches(r Rule, s subject, deny bool) bool {
	if r.Spec == "" {
		return true
	}
	if r.Tool == "Bash" {
		cmd := strings.TrimSpace(s.command)
		if deny {
			prefix, isPrefix := strings.CutSuffix(r.Spec, ":*")
			for _, part := range commandParts(cmd) {
				if isPrefix && strings.HasPrefix(part, prefix) || part == r.Spec {
					return true
				}
			}
			return false
		}
		if prefix, ok := strings.CutSuffix(r.Spec, ":*"); ok {
			// A prefix rule never allows a second command chained after the first.
			if strings.ContainsAny(cmd, ";&|`\n") || strings.Contains(cmd, "$(") {
				return false
			}
			return cmd == prefix || strings.HasPrefix(cmd, prefix+" ")
		}
		return cmd == r.Spec
	}
	if s.path == "" {
		return false
	}
	glob := r.Spec
	switch {
	case strings.HasPrefix(glob, "~/") && p.Home != "":
		glob = filepath.ToSlash(filepath.Join(p.Home, glob[2:]))
	case strings.HasPrefix(glob, "//"):
		glob = glob[1:]
	case !strings.HasPrefix(glob, "/"):
		glob = filepath.ToSlash(filepath.Join(p.Cwd, glob))
	}
	ok, _ := doublestar.Match(glob, filepath.ToSlash(s.path))
	if !ok {
		// "src/**" also names the directory src itself (a Grep or Glob over it).
		ok, _ = doublestar.Match(strings.TrimSuffix(glob, "/**"), filepath.ToSlash(s.path))
	}
	return ok
}

// suggest returns a pattern that would allow calls like this one.
func suggest(tool string, s subject, cwd string) string {
	switch {
	case tool == "Bash":
		f := strings.Fields(s.command)
		if len(f) == 0 {
			return "Bash"
		}
		n := 1
		if len(f) > 1 && !strings.HasPrefix(f[1], "-") && !strings.ContainsAny(f[1], "/.;&|") {
			n = 2
		}
		return "Bash(" + strings.Join(f[:n], " ") + ":*)"
	case s.path != "":
		rel, err := filepath.Rel(cwd, s.path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "Edit(" + filepath.ToSlash(s.path) + ")"
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "." {
			return "Edit(" + filepath.ToSlash(rel) + ")"
		}
		return "Edit(" + dir + "/**)"
	}
	return tool
}

// commandParts splits a shell command at ;, &, |, newlines and $( into trimmed parts, and
// keeps the whole command as the first part.
func commandParts(cmd string) []string {
	parts := []string{cmd}
	for _, f := range strings.FieldsFunc(strings.ReplaceAll(cmd, "$(", ";"), func(r rune) bool {
		return r == ';' || r == '&' || r == '|' || r == '\n' || r == '`' || r == '('
	}) {
		if f = strings.TrimSpace(f); f != "" {
			parts = append(parts, f)
		}
	}
	return parts
}
