package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/strata-mem/strata/agent"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
)

// The chat's actions besides slash commands — "#" (save a memory), "@path" (attach a file),
// /init, /model, /memory's editor — as functions the line mode and a terminal UI share.

// MemoryTypes are the types "#" offers, in order, with the key that picks each.
var MemoryTypes = []struct {
	Key  string
	Type memdir.Type
	Help string
}{
	{"u", memdir.TypeUser, "who you are: role, preferences, knowledge"},
	{"f", memdir.TypeFeedback, "how to work: corrections and confirmed approaches"},
	{"p", memdir.TypeProject, "facts about this project not in the repository"},
	{"r", memdir.TypeReference, "where to find things outside the repository"},
}

// ParseMemoryType reads an answer to "which type?": a key (u, f, p, r) or a type name.
func ParseMemoryType(s string) (memdir.Type, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, t := range MemoryTypes {
		if s == t.Key || s == string(t.Type) {
			return t.Type, true
		}
	}
	return "", false
}

// SaveMemory saves text (what followed "#") as a memory of type typ in the session's project
// store through memdir (atomic, locked, indexed, refused when it looks like a secret): the name
// is the text's first words, made unique so no existing memory is replaced; the description is
// its first line. It returns what memdir did.
func SaveMemory(ctx context.Context, a *agent.Agent, typ memdir.Type, text string) (memdir.Result, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return memdir.Result{}, errors.New("nothing to save: write the memory after #")
	}
	if a.MemoryDir() == "" {
		return memdir.Result{}, errors.New("auto-memory is off for this session (setting autoMemoryEnabled)")
	}
	st, err := a.Workspace().Store()
	if err != nil {
		return memdir.Result{}, err
	}
	base := memoryName(text)
	name := base
	for i := 2; ; i++ {
		if _, err := st.Get(ctx, name); err != nil {
			break // no memory of that name (or none readable): a new file
		}
		name = fmt.Sprintf("%s %d", base, i)
	}
	desc, _, _ := strings.Cut(text, "\n")
	return st.Add(ctx, memdir.Input{Name: name, Description: cutRunes(desc, 150), Type: typ, Body: text + "\n"})
}

// memoryName is a memory's name from its text: the first six words of the first line, at most
// 50 characters, without what a name may not hold (path separators, "..", control characters).
func memoryName(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	line = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, line)
	words := strings.Fields(strings.ReplaceAll(line, "..", " "))
	name := strings.Join(words[:min(len(words), 6)], " ")
	name = strings.Trim(cutRunes(name, 50), " .")
	if name == "" {
		return "note"
	}
	return name
}

func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// Mentions returns the "@path" mentions of a message, in order, once each: an "@" at the start
// or after a space, then the path up to the next space, trailing punctuation (.,:;)!?) left
// out; "\ " keeps a space in a path.
func Mentions(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || i > 0 && !isSpace(text[i-1]) {
			continue
		}
		var b strings.Builder
		j := i + 1
		for j < len(text) && !isSpace(text[j]) {
			if text[j] == '\\' && j+1 < len(text) && text[j+1] == ' ' {
				b.WriteByte(' ')
				j += 2
				continue
			}
			b.WriteByte(text[j])
			j++
		}
		p := strings.TrimRight(b.String(), ".,:;)!?")
		if p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
		i = j
	}
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// AttachMentions returns the message to send for in: in itself, then, as parts of origin
// conversation.Attached, each "@path" that names an existing file attached as the Read tool
// reads it for the model (the same limits, deny rules and read cache: agent.ReadFile), in an
// <attached-file> block. Mentions that name nothing (an e-mail address, a missing file) stay
// plain text; attached lists the paths attached; a file that exists but cannot be read is an
// error naming it, and nothing is sent.
func AttachMentions(ctx context.Context, a *agent.Agent, in conversation.Input) (msg conversation.Input, attached []string, err error) {
	msg = conversation.Input{Parts: slices.Clone(in.Parts), Pinned: in.Pinned}
	for _, p := range Mentions(in.Text()) {
		abs := p
		if strings.HasPrefix(p, "~/") {
			abs = filepath.Join(a.Workspace().Env().UserHome, p[2:])
		} else if !filepath.IsAbs(p) {
			abs = filepath.Join(a.Cwd(), p)
		}
		if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
			continue
		}
		out, err := a.ReadFile(ctx, abs)
		if err != nil {
			return conversation.Input{}, nil, fmt.Errorf("@%s: %w", p, err)
		}
		msg.Parts = append(msg.Parts, conversation.Part{Origin: conversation.Attached,
			Text: fmt.Sprintf("\n\n<attached-file path=%q>\n%s\n</attached-file>", p, strings.TrimRight(out, "\n"))})
		attached = append(attached, p)
	}
	return msg, attached, nil
}

// CompletePaths completes an "@" mention: the paths under root (relative, slash-separated,
// directories ending in "/") whose name starts with prefix's last element, in prefix's
// directory, sorted, at most max (0: all). .git and what ignored (the project's .gitignore:
// agent.Gitignored) leaves out are skipped, as are hidden names unless prefix's element starts
// with ".". Names in any script complete (the match is on bytes of the typed prefix).
func CompletePaths(root, prefix string, ignored func(abs string, isDir bool) bool, max int) []string {
	dir, part := "", prefix
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dir, part = prefix[:i+1], prefix[i+1:]
	}
	absDir := filepath.Join(root, filepath.FromSlash(dir))
	if rel, err := filepath.Rel(root, absDir); err != nil || strings.HasPrefix(rel, "..") {
		return nil
	}
	ents, err := os.ReadDir(absDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, part) || name == ".git" || strings.HasPrefix(name, ".") && !strings.HasPrefix(part, ".") {
			continue
		}
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(absDir, name)); err == nil {
				isDir = fi.IsDir()
			}
		}
		if ignored != nil && ignored(filepath.Join(absDir, name), isDir) {
			continue
		}
		p := dir + name
		if isDir {
			p += "/"
		}
		out = append(out, p)
	}
	slices.Sort(out)
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// initPrompt is what /init asks the model.
const initPrompt = `Please analyse this project and write a CLAUDE.md file at %s, to be read by AI coding agents that work in this repository.

What to put in it:
1. The commands that are used often: how to build, lint, test, and run a single test.
2. The high-level architecture: what the main parts are and how they fit together, what is not obvious from reading one file. Skip what anyone can see from a directory listing.
3. Conventions that a newcomer would get wrong (style, naming, error handling), when the code or its docs state them.

Read the README, the build files (Makefile, go.mod, package.json, pyproject.toml, Cargo.toml …), CI configuration and existing agent instruction files (.cursorrules, .github/copilot-instructions.md, AGENTS.md) first and include what matters from them. Do not invent facts, do not list every file, do not give generic advice ("write tests", "handle errors"). Keep it short: a page, not a manual.
%s
Write the file with the Write tool, then say in two lines what you put in it.`

// InitPrompt returns the message /init sends for the project at root, and whether a CLAUDE.md
// exists there already: then the caller must ask before sending (the prompt then asks the
// model to improve the existing file, keeping what is right, rather than replace it).
func InitPrompt(root string) (prompt string, exists bool) {
	path := filepath.Join(root, "CLAUDE.md")
	extra := ""
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		exists = true
		extra = "\nA CLAUDE.md exists already: read it first, keep what is still right, correct what is wrong and add what is missing.\n"
	}
	return fmt.Sprintf(initPrompt, path, extra), exists
}

// ModelWindow is the context window a switch to model gets: the setting contextWindow when
// set, else the model family's default (llm.DefaultContextWindow), and where it came from.
func ModelWindow(s config.Settings, model string) (int, string) {
	if s.ContextWindow > 0 {
		return s.ContextWindow, "setting contextWindow"
	}
	return llm.DefaultContextWindow(model)
}

// EditableFile is a file /memory offers to open in the editor.
type EditableFile struct {
	Label string // what it is: "project instructions", "memory index", "memory: build tool" …
	Path  string
	// Exists is false for an instruction file that would be created (the project's and the
	// user's CLAUDE.md).
	Exists bool
}

// MemoryFiles lists what /memory offers to edit: the project's and the user's CLAUDE.md (even
// when missing: the editor creates them), every other instruction file loaded, then the
// memory index and each topic file of the project's memory.
func MemoryFiles(ctx context.Context, a *agent.Agent) []EditableFile {
	ws := a.Workspace()
	var out []EditableFile
	seen := map[string]bool{}
	add := func(label, path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		_, err := os.Stat(path)
		out = append(out, EditableFile{Label: label, Path: path, Exists: err == nil})
	}
	add("project instructions", filepath.Join(ws.Tree(), "CLAUDE.md"))
	add("user instructions", filepath.Join(ws.Env().Home, "CLAUDE.md"))
	for _, s := range a.Context().Sources {
		if filepath.Base(s.Path) == "MEMORY.md" {
			continue
		}
		add(fmt.Sprintf("%s instructions", s.Layer), s.Path)
	}
	if dir := a.MemoryDir(); dir != "" {
		add("memory index", filepath.Join(dir, "MEMORY.md"))
		if st, err := ws.Store(); err == nil {
			if mems, _, err := st.List(ctx); err == nil {
				for _, m := range mems {
					add("memory: "+m.Name, m.Path)
				}
			}
		}
	}
	return out
}

// EditorCommand returns the command that opens path in the user's editor: $VISUAL, else
// $EDITOR (either may carry arguments, such as "code -w"), else vi.
func EditorCommand(env config.Env, path string) *exec.Cmd {
	ed := strings.TrimSpace(env.Var("VISUAL"))
	if ed == "" {
		ed = strings.TrimSpace(env.Var("EDITOR"))
	}
	if ed == "" {
		ed = "vi"
	}
	f := strings.Fields(ed)
	return exec.Command(f[0], append(f[1:], path)...)
}
