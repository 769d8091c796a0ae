// Package permission decides the model's tool calls: allow and deny rules as Claude Code
// writes them, the permission modes, and the "don't ask again" rule offered for a yes.
package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/shell"
	"github.com/strata-mem/strata/toolcall"
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
	// ModePlan: nothing changes: reads are decided as in ModeAsk, file writes, shell commands
	// and memory writes are denied, so that the model plans before anyone lets it act.
	ModePlan Mode = "plan"
)

// planWhy is why a call is denied in ModePlan.
const planWhy = "not allowed in plan mode, where nothing may change: finish the plan and present it; the user switches the mode (Shift-Tab) to carry it out"

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
	case "plan":
		return ModePlan, nil
	}
	return "", fmt.Errorf("permission: unknown permission mode %q (use ask, accept-edits, plan or bypass)", s)
}

// Class groups tools by what they can do.
type Class int

const (
	ClassRead   Class = iota // Read, Glob, Grep, memory_search
	ClassState               // TodoWrite: working memory only
	ClassMemory              // memory_save, memory_forget: strata's own store
	ClassEdit                // Write, Edit
	ClassExec                // Bash
)

// Request is what an Approver is asked about.
type Request struct {
	Tool  string
	Input json.RawMessage
	// Summary is one line for a prompt: the command, or the path and what would change.
	Summary string
	// Suggest is a pattern that would allow calls like this one without asking.
	Suggest string
	// Always is what the answer "yes, and don't ask again" allows, to be shown before it is
	// chosen: for a shell command a prefix rule where the table of programs knows it
	// (AlwaysRule: "echo one" → "Bash(echo:*)"), else the exact command, which the agent
	// saves to the project's .claude/settings.local.json and the user's approvals, so it
	// holds in later sessions too (AlwaysSaved); for Edit and Write "Edit": every edit, for
	// the rest of this session. "" when no rule is safe to offer (a command with
	// redirections, substitutions, pipes or globs): the user can still say yes once.
	Always      string
	AlwaysSaved bool
}

// Answer is the user's answer to a Request.
type Answer struct {
	// Allow runs the call.
	Allow bool
	// Always, with Allow, applies the request's Always rule (nothing when it is "").
	Always bool
	// Feedback, with a no, is what the user wants the model to do instead; it goes back to
	// the model in the tool result.
	Feedback string
}

// Approver decides a tool call that needs a yes. It may block (an interactive prompt); it must
// return when ctx is done.
type Approver func(ctx context.Context, req Request) (Answer, error)

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
		return Rule{}, fmt.Errorf("permission: empty permission pattern")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.ContainsAny(s, ") ") {
			return Rule{}, fmt.Errorf("permission: permission pattern %q: want Tool or Tool(specifier)", s)
		}
		return Rule{Tool: s}, nil
	}
	if !strings.HasSuffix(s, ")") || open == 0 || strings.ContainsAny(s[:open], ") \t") {
		return Rule{}, fmt.Errorf("permission: permission pattern %q: want Tool or Tool(specifier)", s)
	}
	r := Rule{Tool: s[:open], Spec: strings.TrimSpace(s[open+1 : len(s)-1])}
	if r.Spec == "*" || r.Spec == "**" {
		r.Spec = ""
	}
	if r.Tool != "Bash" && r.Spec != "" && !doublestar.ValidatePattern(r.Spec) {
		return Rule{}, fmt.Errorf("permission: permission pattern %q: %q is not a valid glob", s, r.Spec)
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
	case strings.HasPrefix(rule, "mcp__") && !strings.Contains(rule[len("mcp__"):], "__"):
		return strings.HasPrefix(tool, rule+"__") // mcp__server: every tool of the server, as in Claude Code
	}
	return false
}

// Set decides tool calls: deny patterns first, then allow patterns, then the mode.
type Set struct {
	Mode  Mode
	Allow []Rule
	Deny  []Rule
	// Cwd resolves relative paths and anchors relative globs.
	Cwd string
	// Home expands "~/" in globs.
	Home string
	// Dirs are the directories besides Cwd whose files Read, Grep and Glob reach without
	// asking, and Edit and Write in accept-edits mode: the project, the memory directory, the
	// directories the user added. Anywhere else they ask (bypass mode aside).
	Dirs []string
	// Protected says why a write to a path must always be asked about (config.Env.Protected),
	// "" when it need not; nil protects nothing.
	Protected func(path string) string
	// realCwd and realHome are Cwd and Home with their symlinks resolved (New).
	realCwd, realHome string
}

// New parses allow and deny patterns; a bad pattern is an error naming it.
func New(mode Mode, allow, deny []string, cwd, home string) (*Set, error) {
	p := &Set{Mode: mode, Cwd: cwd, Home: home, realCwd: fsutil.RealPath(cwd), realHome: fsutil.RealPath(home)}
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

// Subject is what a pattern's specifier is matched against: a command or a path.
type Subject struct {
	Command string
	Path    string // absolute, as the model named it
	// Real is Path with every symlink resolved (fsutil.RealPath); "" means the same as Path. A deny
	// rule matches when either matches, an allow rule only when both do: an alias cannot
	// beat a deny rule, and a link inside an allowed directory cannot carry its allowance
	// outside.
	Real string
}

// PathSubject is the subject of a call on path: the path and what it resolves to.
func PathSubject(path string) Subject {
	s := Subject{Path: path}
	if r := fsutil.RealPath(path); r != path {
		s.Real = r
	}
	return s
}

// SubjectOf is what permissions match a decoded call against: its command or its path.
func SubjectOf(c toolcall.Call) Subject {
	switch c := c.(type) {
	case *toolcall.Bash:
		return Subject{Command: c.Command}
	case toolcall.Pather:
		return PathSubject(c.Target())
	}
	return Subject{}
}

// Check decides a call of tool (of class c) with subject s; why explains a denial.
func (p *Set) Check(tool string, c Class, s Subject) (d Decision, why string) {
	for _, r := range p.Deny {
		if covers(r.Tool, tool) && p.matches(r, s, true) {
			return Deny, fmt.Sprintf("denied by the permission rule %q", r.String())
		}
	}
	if p.Mode == ModePlan && (c == ClassEdit || c == ClassExec || c == ClassMemory) {
		return Deny, planWhy // whatever the allow rules say
	}
	if c == ClassEdit {
		if why := p.Protects(s); why != "" {
			return AskUser, why // whatever the mode or the allow rules say
		}
	}
	for _, r := range p.Allow {
		if covers(r.Tool, tool) && p.matches(r, s, false) {
			return Allow, ""
		}
	}
	switch c {
	case ClassState, ClassMemory:
		return Allow, ""
	case ClassRead:
		if s.Path == "" || p.Mode == ModeBypass || p.inside(s) {
			return Allow, ""
		}
		return AskUser, outsideWhy
	case ClassEdit:
		if p.Mode == ModeBypass || p.Mode == ModeAcceptEdits && p.inside(s) {
			return Allow, ""
		}
		if p.Mode == ModeAcceptEdits {
			return AskUser, outsideWhy
		}
	case ClassExec:
		if p.Mode == ModeBypass {
			return Allow, ""
		}
	}
	return AskUser, ""
}

// outsideWhy is why a file tool's call outside the project's directories is asked about.
const outsideWhy = "it is outside the project and the directories added to the session"

// Protects reports why a write to s must always be asked about (Protected on the path as named
// and as resolved), or "".
func (p *Set) Protects(s Subject) string {
	if p.Protected == nil || s.Path == "" {
		return ""
	}
	if why := p.Protected(s.Path); why != "" {
		return why
	}
	if s.Real != "" {
		return p.Protected(s.Real)
	}
	return ""
}

// inside reports whether s's path, as named and as resolved, lies in Cwd, one of Dirs or one
// of extra.
func (p *Set) inside(s Subject, extra ...string) bool {
	in := func(path string) bool {
		for _, d := range slices.Concat([]string{p.Cwd, p.realCwd}, p.Dirs, extra) {
			if d == "" {
				continue
			}
			if within(d, path) || within(fsutil.RealPath(d), path) {
				return true
			}
		}
		return false
	}
	return in(s.Path) && (s.Real == "" || in(s.Real))
}

// within reports whether path is dir or lies under it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// matches reports whether r's specifier matches s. Deny rules match more eagerly than allow
// rules: a command anywhere in a Bash command (bashMatches), a path as named or as resolved;
// an allow rule needs both the path and its resolution to match.
func (p *Set) matches(r Rule, s Subject, deny bool) bool {
	if r.Spec == "" {
		return true
	}
	if r.Tool == "Bash" {
		return bashMatches(r.Spec, s.Command, deny)
	}
	if s.Path == "" {
		return false
	}
	if s.Real == "" || s.Real == s.Path {
		return p.pathMatches(r.Spec, s.Path)
	}
	if deny {
		return p.pathMatches(r.Spec, s.Path) || p.pathMatches(r.Spec, s.Real)
	}
	return p.pathMatches(r.Spec, s.Path) && p.pathMatches(r.Spec, s.Real)
}

// pathMatches reports whether the absolute path matches a rule's glob: "~/" is the home
// directory, "//" the root, a relative glob is anchored at the working directory (as named,
// or with its own symlinks resolved, so that a resolved path matches too).
func (p *Set) pathMatches(spec, path string) bool {
	var globs []string
	switch {
	case strings.HasPrefix(spec, "~/") && p.Home != "":
		globs = anchored(p.Home, p.realHome, spec[2:])
	case strings.HasPrefix(spec, "//"):
		globs = []string{spec[1:]}
	case !strings.HasPrefix(spec, "/"):
		globs = anchored(p.Cwd, p.realCwd, spec)
	default:
		globs = []string{spec}
	}
	for _, glob := range globs {
		ok, _ := doublestar.Match(glob, filepath.ToSlash(path))
		if !ok {
			// "src/**" also names the directory src itself (a Grep or Glob over it).
			ok, _ = doublestar.Match(strings.TrimSuffix(glob, "/**"), filepath.ToSlash(path))
		}
		if ok {
			return true
		}
	}
	return false
}

// anchored returns glob joined to dir, and to real (dir with its symlinks resolved) when
// that differs.
func anchored(dir, real, glob string) []string {
	out := []string{filepath.ToSlash(filepath.Join(dir, glob))}
	if real != "" && real != dir {
		out = append(out, filepath.ToSlash(filepath.Join(real, glob)))
	}
	return out
}

// Hides reports whether a deny rule for tool (Read also covers Grep and Glob) matches path
// as named or as resolved: Grep and Glob leave such files out of what they search and list.
// It reads only Deny, which never changes after New (AllowAlways appends to
// Allow), so it needs no lock.
func (p *Set) Hides(tool, path string) bool {
	var s *Subject
	for _, r := range p.Deny {
		if r.Tool == "Bash" || !covers(r.Tool, tool) {
			continue
		}
		if s == nil {
			ps := PathSubject(path)
			s = &ps
		}
		if p.matches(r, *s, true) {
			return true
		}
	}
	return false
}

// Suggest returns a pattern that would allow calls like this one: for a shell command
// shell.Suggest's (the "don't ask again" rule when there is one).
func Suggest(tool string, s Subject, cwd string) string {
	switch {
	case tool == "Bash":
		if r := shell.Suggest(s.Command); r != "" {
			return "Bash(" + r + ")"
		}
		return "Bash"
	case s.Path != "":
		name := "Edit"
		if covers("Read", tool) {
			name = "Read"
		}
		rel, err := filepath.Rel(cwd, s.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			return name + "(" + filepath.ToSlash(s.Path) + ")"
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		if dir == "." {
			return name + "(" + filepath.ToSlash(rel) + ")"
		}
		return name + "(" + dir + "/**)"
	}
	return tool
}

// bashMatches reports whether a Bash rule's specifier ("prefix:*" or an exact command)
// matches command, as an allow rule (shell.Rule.Allows) or a deny rule (shell.Rule.Denies).
func bashMatches(spec, command string, deny bool) bool {
	if deny {
		return shell.ParseRule(spec).Denies(command)
	}
	return shell.ParseRule(spec).Allows(command)
}

// AlwaysRule is the one function that derives the rule a "yes, and don't ask again" answer
// allows for a call of tool whose shell command (Bash) is command; saved reports whether it is
// saved for later sessions. For Bash it is shell.AlwaysRule's: a prefix rule where the one
// table of programs knows the program and the command's options ("git commit -m x" →
// "Bash(git commit:*)"), else the exact command; "" when none is safe to offer. For Edit and
// Write it is "Edit" (every edit) for this session only.
func AlwaysRule(tool, command string) (rule string, saved bool) {
	switch tool {
	case "Edit", "Write":
		return "Edit", false
	case "Bash":
		if r := shell.AlwaysRule(command); r != "" {
			return "Bash(" + r + ")", true
		}
	}
	return "", false
}
