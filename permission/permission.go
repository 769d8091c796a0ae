// Package permission decides the model's tool calls: allow and deny rules as Claude Code
// writes them, the permission modes, and the "don't ask again" rule offered for a yes.
package permission

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"

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
	return "", fmt.Errorf("permission: unknown permission mode %q (use ask, accept-edits or bypass)", s)
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
	// chosen: for a shell command a prefix rule (AlwaysRule: "echo one" → "Bash(echo:*)"),
	// which the agent saves to the project's .claude/settings.local.json and the user's
	// approvals, so it holds in later sessions too (AlwaysSaved); for Edit and Write "Edit":
	// every edit, for the rest of this session. "" when no rule is safe to offer (a command
	// with redirections, substitutions, pipes, or one that runs other programs): the user can
	// still say yes once.
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
	if !strings.HasSuffix(s, ")") || open == 0 {
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

// inside reports whether s's path, as named and as resolved, lies in Cwd or one of Dirs.
func (p *Set) inside(s Subject) bool {
	in := func(path string) bool {
		for _, d := range append([]string{p.Cwd, p.realCwd}, p.Dirs...) {
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

// Suggest returns a pattern that would allow calls like this one: for a shell command the
// "don't ask again" rule (AlwaysRule) when it has one, else suggestBash's.
func Suggest(tool string, s Subject, cwd string) string {
	switch {
	case tool == "Bash":
		if r, _ := AlwaysRule(tool, s.Command); r != "" {
			return r
		}
		return suggestBash(s.Command)
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
// matches command; both are read by the one shell analyser, internal/shell.
//
// An allow rule matches only a command that is exactly one simple command and nothing else
// (shell.Script.Simple: no redirection, here-document, ;, &&, ||, |, &, newline, substitution,
// expansion, subshell, group, compound command or environment assignment): "prefix:*" when
// the command's words start with the prefix's words — whole words, none of them a glob —
// and the prefix covers every word that holds a command it runs (so "Bash(find:*)" does not
// allow find -exec rm, nor "Bash(xargs:*)" xargs rm); an exact rule when the words are the
// rule's words. A rule that is not itself one simple command allows nothing.
//
// A deny rule matches eagerly: any simple command anywhere in the command — chained, piped,
// backgrounded, substituted, in a subshell or group, or run through xargs, find -exec, env,
// command, builtin, sudo, sh -c, eval … — whose words start with the rule's words (the last
// one as a string prefix: "Bash(rm:*)" denies rmdir too; a program given by path matches
// its base name). When the command or the rule cannot be read, or the command holds a
// program that runs what its arguments say in a way the analyser does not read (ssh, flock,
// ionice, awk … : runsAnything but not shell.ReadsRuns), the deny rule falls back to matching
// the crude shell.Pieces of the command as text, so it is never weaker than that.
func bashMatches(spec, command string, deny bool) bool {
	cmd := strings.TrimSpace(command)
	prefix, isPrefix := strings.CutSuffix(spec, ":*")
	want, wantOK := specWords(prefix)
	script, err := shell.Parse(cmd)
	if deny && (!wantOK || err != nil) {
		for _, part := range shell.Pieces(cmd) {
			if isPrefix && strings.HasPrefix(part, prefix) || part == spec || wordsWithin(part, prefix, isPrefix) {
				return true
			}
		}
		return false
	}
	if !wantOK || err != nil {
		return false
	}
	if deny {
		if isPrefix && len(want) == 0 {
			return true
		}
		for _, c := range script.Commands {
			if denyExpanded(c.Words, want, prefix, isPrefix) {
				return true
			}
		}
		// A program that runs what its arguments say in a way the analyser does not read
		// (ionice rm, ssh host rm, awk's system()), a shell given no script it reads
		// (echo rm x | sh, sh <<< 'rm x'), or a word holding a substitution's text, which
		// bash may evaluate later (let 'a[$(rm x)]', [[ 'a[$(rm x)]' -eq 0 ]], read, printf
		// -v, test -v): look through the words as for a command that cannot be read.
		for _, c := range script.Commands {
			if runsUnread(c.Words) || len(c.Runs) == 0 && len(c.Words) > 0 && shell.IsShell(c.Words[0].Text) || c.SubstitutionText() {
				for _, part := range shell.Pieces(cmd) {
					if wordsWithin(part, prefix, isPrefix) {
						return true
					}
				}
				break
			}
		}
		return false
	}
	c, ok := script.Simple()
	if !ok || len(c.Words) < len(want) || !isPrefix && len(c.Words) != len(want) || c.SubstitutionText() {
		return false // SubstitutionText: printf -v 'a[$(rm x)]' and test -v run the quoted text
	}
	for i, w := range want {
		got := c.Words[i]
		if got.Text != w.Text || got.Glob != w.Glob || isPrefix && got.Glob {
			return false
		}
	}
	for _, at := range slices.Concat(c.Runs, shell.Writes(c.Words), shell.Hidden(c.Words)) {
		if at >= len(want) {
			return false // a command it runs, a file it writes, or a word that may be either, beyond the rule's words
		}
	}
	return true
}

// specWords reads a rule's command (or prefix) as the words of one simple command; "" is no
// words. ok is false when it is not one simple command.
func specWords(spec string) (words []shell.Word, ok bool) {
	s, err := shell.Parse(strings.TrimSpace(spec))
	if err != nil {
		return nil, false
	}
	if len(s.Commands) == 0 && len(s.Constructs) == 0 {
		return nil, true
	}
	c, ok := s.Simple()
	return c.Words, ok
}

// wordsWithin is the crude fallback's look through wrappers: whether the rule's words occur
// anywhere among the words of a piece of an unreadable command, quotes, backslashes and
// braces dropped, a program given by path matching its base name (so "f() { \rm x; }" and
// "case … command rm x;; esac" meet "Bash(rm:*)"). It sees too much, which is safe only for
// a deny rule.
func wordsWithin(piece, rule string, prefix bool) bool {
	want := strings.Fields(rule)
	if len(want) == 0 {
		return false
	}
	words := strings.Fields(strings.Map(func(r rune) rune {
		switch r {
		case '\\', '\'', '"':
			return -1
		case '{', '}', '(', ')', ';', '=', '!':
			return ' ' // alias.x=!rm, --eval=all:;rm, --rsh=rm: the command after the sign
		}
		return r
	}, piece))
	for i := range words {
		if len(words)-i < len(want) {
			return false
		}
		ok := true
		for j, w := range want {
			got := words[i+j]
			if j == 0 && !strings.Contains(w, "/") {
				got = path.Base(got)
			}
			if got != w && !(prefix && j == len(want)-1 && strings.HasPrefix(got, w)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// denyExpanded reports whether a deny rule whose words are want (rule as written) matches
// a command with words ws as the shell runs it: its brace expansions made (shell.Expand:
// "{rm,x}" is rm x, "git {push,}" is git push) and, when there are any, its words looked
// through as for a command that cannot be read (wordsWithin: "{sudo,rm,x}"); a command too
// large to expand matches.
func denyExpanded(ws, want []shell.Word, rule string, prefix bool) bool {
	if !slices.ContainsFunc(ws, func(w shell.Word) bool { return w.Glob }) {
		return denyWords(ws, want, prefix)
	}
	exp, ok := shell.Expand(ws)
	if !ok {
		return true
	}
	if denyWords(exp, want, prefix) {
		return true
	}
	texts := make([]string, len(exp))
	for i, w := range exp {
		texts[i] = w.Text
	}
	return wordsWithin(strings.Join(texts, " "), rule, prefix)
}

// denyWords reports whether the words of a command start with want (prefix) or are want; a
// glob may match what its literal start allows (shell.MayMatch: "/bin/r? x" may be rm).
func denyWords(ws, want []shell.Word, prefix bool) bool {
	if bare := withoutGitGlobals(ws); len(bare) < len(ws) && denyWords(bare, want, prefix) {
		return true // git -c k=v -C dir push is git push
	}
	if len(ws) < len(want) || !prefix && len(ws) != len(want) || len(ws) == 0 {
		return false
	}
	for i, w := range want {
		got := ws[i].Text
		if i == 0 && got != w.Text && !strings.Contains(w.Text, "/") {
			got = path.Base(got) // /bin/rm is rm
		}
		if ws[i].Glob && shell.MayMatch(got, w.Text) || strings.ContainsAny(ws[i].Text, "$`") {
			continue // a glob, or a word a substitution or expansion makes, may be the rule's word
		}
		if got != w.Text && !(prefix && i == len(want)-1 && strings.HasPrefix(got, w.Text)) {
			return false
		}
	}
	return true
}

// gitValueOptions are git's global options that may take their value as the next word.
var gitValueOptions = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"}

// withoutGitGlobals returns the words of a git command with the global options before its
// subcommand left out (git -c k=v -C dir --no-pager push → git push), so that a deny rule
// naming a subcommand meets it however it is spelled; any other command is returned as it is.
func withoutGitGlobals(ws []shell.Word) []shell.Word {
	if len(ws) < 2 || strings.TrimSuffix(strings.ToLower(path.Base(ws[0].Text)), ".exe") != "git" {
		return ws
	}
	i := 1
	for i < len(ws) && strings.HasPrefix(ws[i].Text, "-") {
		if slices.Contains(gitValueOptions, ws[i].Text) {
			i++ // the value
		}
		i++
	}
	if i == 1 {
		return ws
	}
	return append([]shell.Word{ws[0]}, ws[min(i, len(ws)):]...)
}

// AlwaysRule is the one function that derives the rule a "yes, and don't ask again" answer
// allows for a call of tool whose shell command (Bash) is command; saved reports whether it is
// saved for later sessions. For one simple command (read by internal/shell, as the permission
// matcher reads it) that runs no other program, it is the command's first word, and the
// subcommand too for tools made of subcommands: "echo one" → "Bash(echo:*)", "git commit -m
// x" → "Bash(git commit:*)", "go test ./..." → "Bash(go test:*)". Nothing ("") for a command
// with a redirection, substitution, expansion, pipe or list, a glob or an assignment in its
// first words, one that runs another program (sh -c, xargs, sudo, env, find -exec …) or an
// interpreter (python, node …), where a prefix would allow anything, under any name it goes
// by (runsAnything), or whose rule words a terminal would not show as written (shown). For
// Edit and Write it is "Edit" (every edit) for this session only.
func AlwaysRule(tool, command string) (rule string, saved bool) {
	switch tool {
	case "Edit", "Write":
		return "Edit", false
	case "Bash":
	default:
		return "", false
	}
	s, err := shell.Parse(strings.TrimSpace(command))
	if err != nil {
		return "", false
	}
	c, ok := s.Simple()
	if !ok || len(c.Words) == 0 || len(c.Runs) > 0 || len(shell.Writes(c.Words)) > 0 || len(shell.Hidden(c.Words)) > 0 {
		return "", false
	}
	first := c.Words[0]
	if first.Glob || strings.ContainsAny(first.Text, "=$`") || runsAnything(first.Text) || !shown(first.Text) {
		return "", false
	}
	words := []string{shell.Quote(first.Text)}
	if subcommandTools()[path.Base(first.Text)] && len(c.Words) > 1 {
		sub := c.Words[1]
		if sub.Glob || sub.Text == "" || strings.ContainsAny(sub.Text[:1], "-./~") || strings.ContainsAny(sub.Text, "=/$`") {
			return "", false // "git -C dir status": a prefix of "git" alone would allow every git command
		}
		if noPrefixSubcommand(path.Base(first.Text), sub.Text) || !shown(sub.Text) {
			return "", false
		}
		words = append(words, shell.Quote(sub.Text))
	}
	return "Bash(" + strings.Join(words, " ") + ":*)", true
}

// subcommandTools are programs whose second word names what they do ("git commit", "go
// test"): their "don't ask again" rule keeps it.
var subcommandTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"git": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "npx": true,
		"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
		"gh": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "brew": true, "apt": true,
		"apt-get": true, "dnf": true, "terraform": true, "dotnet": true, "mvn": true, "gradle": true,
		"deno": true, "mix": true, "swift": true, "bazel": true, "nix": true, "systemctl": true,
		"bundle": true, "pipenv": true, "pdm": true, "hatch": true,
	}
})

// noPrefixRule are programs a prefix rule would give away everything with: shells,
// interpreters, programs that run other programs or scripts given in their arguments (awk's
// system(), GNU sed's e command, tar --checkpoint-action, ssh's remote command), and package
// runners that fetch and run any package.
var noPrefixRule = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "eval": true,
		"exec": true, "source": true, ".": true, "sudo": true, "doas": true, "su": true, "env": true,
		"xargs": true, "nohup": true, "timeout": true, "time": true, "nice": true, "command": true,
		"builtin": true, "watch": true, "python": true, "python3": true, "node": true, "ruby": true,
		"perl": true, "php": true, "lua": true, "osascript": true, "pwsh": true, "powershell": true,
		"ash": true, "mksh": true, "csh": true, "tcsh": true, "busybox": true, "cmd": true,
		"nodejs": true, "pypy": true, "ipython": true, "irb": true, "jshell": true, "java": true,
		"rscript": true, "tclsh": true, "wish": true, "expect": true, "luajit": true, "julia": true,
		"awk": true, "gawk": true, "mawk": true, "nawk": true, "sed": true, "gsed": true, "tar": true,
		"gtar": true, "ssh": true, "script": true, "flock": true, "chroot": true, "unshare": true,
		"nsenter": true, "ionice": true, "taskset": true, "chrt": true, "setsid": true, "stdbuf": true,
		"strace": true, "ltrace": true, "gdb": true, "lldb": true, "valgrind": true, "parallel": true,
		"tmux": true, "screen": true, "systemd-run": true, "dbus-run-session": true, "run0": true,
		"pkexec": true, "runuser": true, "at": true, "batch": true, "vim": true, "vi": true,
		"nvim": true, "emacs": true, "npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true,
		"setpriv": true, "sg": true, "firejail": true, "bwrap": true, "fakeroot": true, "proot": true,
		"caffeinate": true, "catchsegv": true, "torsocks": true, "proxychains": true, "chpst": true,
		// find's actions delete and write files (-delete, -fprint, -fls): "find . -name x" approved
		// must not become every find.
		"find": true,
	}
})

// runsUnread reports whether a command with words ws runs what its arguments say in a way the
// analyser does not read: a program of noPrefixRule that shell.ReadsRuns does not cover
// (ionice, ssh, awk …), an alias definition (which bash runs for a later line once
// expand_aliases is set), a hash -p entry or a trap, git given configuration on its command line (-c alias.x='!cmd',
// -c core.pager=cmd, --config-env), make given a makefile's text (--eval, -E), and a
// subcommand of runSubcommands (npm exec, poetry run, bundle exec, docker run, git submodule
// …), which runs the words after it, here or elsewhere.
func runsUnread(ws []shell.Word) bool {
	if len(ws) == 0 {
		return false
	}
	name := ws[0].Text
	if runsAnything(name) && !shell.ReadsRuns(name) {
		return true
	}
	base := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(name, `\`, "/"))), ".exe")
	has := func(match func(string) bool) bool {
		return slices.ContainsFunc(ws[1:], func(w shell.Word) bool { return match(w.Text) })
	}
	if subs := runSubcommands()[base]; subs != nil && has(func(w string) bool { return slices.Contains(subs, w) }) {
		return true
	}
	switch base {
	case "alias", "hash", "trap":
		// shopt -s expand_aliases, then alias ls='rm' on one line runs rm on the next;
		// hash -p /bin/rm ls makes ls run rm; trap 'rm x' EXIT runs rm at the end.
		return true
	case "git":
		return has(func(w string) bool {
			return strings.HasPrefix(w, "-c") || strings.HasPrefix(w, "--config-env") || strings.HasPrefix(w, "--exec-path")
		})
	case "make", "gmake", "remake":
		return has(func(w string) bool {
			return strings.HasPrefix(w, "--eval") || strings.HasPrefix(w, "-E")
		})
	}
	return false
}

// runSubcommands are, per program, the subcommands that run a command, a package or code
// given in their arguments: package runners (npm exec, pnpm dlx, poetry run, uv run, bundle
// exec, nix run, go run pkg@version …), git's that run a command (submodule foreach, bisect
// run …), and a container's exec and run. A deny rule looks through their words
// (runsUnread), and no prefix rule is offered for them (noPrefixSubcommand).
var runSubcommands = sync.OnceValue(func() map[string][]string {
	containers := []string{"exec", "run", "debug", "compose"}
	return map[string][]string{
		"npm": {"exec", "x"}, "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"},
		"deno": {"eval", "run"}, "poetry": {"run"}, "uv": {"run", "tool"}, "pipenv": {"run"},
		"pdm": {"run"}, "hatch": {"run"}, "bundle": {"exec"}, "nix": {"run", "shell", "develop"},
		"mix": {"run"}, "go": {"run"},
		"git":    {"submodule", "bisect", "filter-branch", "difftool", "mergetool"},
		"docker": containers, "podman": containers, "nerdctl": containers, "kubectl": containers,
		"oc": containers, "lxc": containers, "incus": containers, "crictl": containers, "ctr": containers,
	}
})

// noPrefixSubcommand reports whether "program sub" gets no prefix rule: a subcommand of
// runSubcommands, or git config, which sets programs every later git command runs
// (core.fsmonitor, core.pager, aliases with !).
func noPrefixSubcommand(program, sub string) bool {
	return slices.Contains(runSubcommands()[program], sub) || program == "git" && sub == "config"
}

// shown reports whether a terminal shows word as written: every character visible, none a
// space, a control or an invisible format character (a zero-width space, a bidi override) that
// would make the rule offered read as another.
func shown(word string) bool {
	for _, r := range word {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// runsAnything reports whether the program named (as a command's first word) is one of
// noPrefixRule, under any of the names it goes by: a path, another case (a case-insensitive
// file system runs SH as sh), a .exe suffix, a version suffix (python3.12, node18, pypy3).
func runsAnything(program string) bool {
	n := strings.ToLower(path.Base(strings.ReplaceAll(program, `\`, "/")))
	n = strings.TrimSuffix(n, ".exe")
	if noPrefixRule()[n] {
		return true
	}
	n = strings.TrimRight(n, "0123456789.-_")
	return n != "" && noPrefixRule()[n]
}

// suggestBash returns a rule that would allow commands like command: for one simple
// command, its first word (two when the second is a subcommand rather than an option or a
// path), extended over every word that holds a command it runs ("Bash(xargs grep:*)"); for
// anything else the same for its first command, which allows that command alone; "Bash" when
// the command cannot be read.
func suggestBash(command string) string {
	s, err := shell.Parse(strings.TrimSpace(command))
	if err != nil || len(s.Commands) == 0 {
		return "Bash"
	}
	c, ok := s.Simple()
	if !ok {
		c = s.Commands[0]
		for _, o := range s.Commands {
			if o.RunBy < 0 && len(o.Words) > 0 {
				c = o
				break
			}
		}
		if len(c.Words) == 0 {
			return "Bash"
		}
	}
	n := 1
	if len(c.Words) > 1 && !strings.HasPrefix(c.Words[1].Text, "-") && !strings.ContainsAny(c.Words[1].Text, "/.") {
		n = 2
	}
	for _, at := range c.Runs {
		n = max(n, at+1)
	}
	words := make([]string, 0, n)
	for _, w := range c.Words[:n] {
		words = append(words, shell.Quote(w.Text))
	}
	return "Bash(" + strings.Join(words, " ") + ":*)"
}
