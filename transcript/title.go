package transcript

import (
	"bytes"
	"cmp"
	"io"
	"strings"

	"github.com/strata-mem/strata/conversation"
)

// Title is the one rule for a session's title, the one Claude Code's resume list shows: the
// user's custom title, else the AI-generated title, else the latest summary whose leafUuid is an
// entry of the file (a summary of another session, as a resumed 1.x session starts with, is not
// this one's), else the first real prompt (see Session.FirstPrompt), else any summary the file
// holds (a file of summaries only: 2.1.328 shows the latest, measured). Listing (Info.Title),
// show, export, chat's /resume and the MCP session_search all call it. The title is on one
// line (runs of spaces and newlines become one space) and cut to maxTitle.
func Title(customTitle, aiTitle, summary, firstPrompt, anySummary string) string {
	for _, s := range []string{customTitle, aiTitle, summary, firstPrompt, anySummary} {
		if strings.TrimSpace(s) != "" {
			return titleText(s)
		}
	}
	return ""
}

// titleText is s as a title: on one line, cut to maxTitle.
func titleText(s string) string { return cutTitle(strings.Join(strings.Fields(s), " ")) }

// maxTitle is how long a title may be, in UTF-16 code units as Claude Code counts (200), before
// it is cut and ends in "…" (measured in 2.1.328's resume list: 200 characters, then "…").
const maxTitle = 200

// builtinCommands are Claude Code's built-in slash commands (2.1). A session opened with one of
// them (/init, /model, /clear …) is named after it only when no real prompt follows: its
// arguments say little about the session. A custom command typed with arguments
// (/orchestrator create TODO app) is a prompt of its own.
var builtinCommands = map[string]bool{
	"add-dir": true, "agents": true, "bashes": true, "bug": true, "clear": true, "compact": true, "config": true,
	"context": true, "cost": true, "doctor": true, "exit": true, "export": true, "feedback": true, "help": true,
	"hooks": true, "ide": true, "init": true, "install-github-app": true, "login": true, "logout": true, "mcp": true,
	"memory": true, "migrate-installer": true, "model": true, "output-style": true, "permissions": true, "plugin": true,
	"pr-comments": true, "privacy-settings": true, "release-notes": true, "rename": true, "resume": true, "review": true,
	"rewind": true, "sandbox": true, "security-review": true, "skills": true, "stats": true, "status": true,
	"statusline": true, "tag": true, "tasks": true, "terminal-setup": true, "theme": true, "todos": true, "upgrade": true,
	"usage": true, "vim": true, "plan": true, "fork": true, "copy": true, "keybindings": true,
}

// promptScan finds a session's first real prompt as Claude Code does for its resume list: user
// entries in file order, skipping sidechains, meta entries, compact summaries and tool results,
// and text that opens with a tag (command output, reminders, hook output …), an interruption
// note or a caveat. Shell-mode input is "! command". A custom slash command with arguments is
// the prompt "/name arguments"; a built-in command, or one without arguments, names the
// session only when nothing else does.
type promptScan struct {
	prompt, command string
}

// found reports whether a real prompt was found (a command fallback does not end the scan).
func (p *promptScan) found() bool { return p.prompt != "" }

// result is the prompt, else the first command, else "".
func (p *promptScan) result() string {
	if p.prompt != "" {
		return p.prompt
	}
	return p.command
}

// entry considers a user entry; it reports whether a real prompt was found.
func (p *promptScan) entry(e *Entry) bool {
	if p.found() {
		return true
	}
	if e.Type != TypeUser || e.IsMeta || e.IsCompactSummary || e.IsSidechain || len(e.Message) == 0 {
		return false
	}
	m, ok, err := e.DecodeMessage()
	if err != nil || !ok {
		return false
	}
	for _, b := range m.Content {
		if b.Type == conversation.ToolResult {
			return false
		}
	}
	for _, b := range m.Content {
		if b.Type == conversation.Text && p.text(b.Text) {
			return true
		}
	}
	return false
}

// text considers one text block of a user entry.
func (p *promptScan) text(t string) bool {
	t = strings.TrimSpace(strings.ReplaceAll(t, "\n", " "))
	if t == "" {
		return false
	}
	if name, ok := tagText(t, "command-name"); ok {
		args, _ := tagText(t, "command-args")
		args = strings.TrimSpace(args)
		if builtinCommands[strings.TrimPrefix(name, "/")] || args == "" {
			if p.command == "" {
				p.command = name
			}
			return false
		}
		p.prompt = titleText(name + " " + args)
		return true
	}
	if in, ok := tagText(t, "bash-input"); ok {
		p.prompt = titleText("! " + in)
		return true
	}
	if opensWithTag(t) || strings.HasPrefix(t, "[Request interrupted by user") || strings.HasPrefix(t, "Caveat:") {
		return false
	}
	p.prompt = titleText(t)
	return true
}

// tagText returns the trimmed text between <tag> (or <tag attributes>) and </tag> in s.
func tagText(s, tag string) (string, bool) {
	i := strings.Index(s, "<"+tag)
	for i >= 0 {
		rest := s[i+1+len(tag):]
		if rest != "" && (rest[0] == '>' || rest[0] == ' ') {
			if gt := strings.IndexByte(rest, '>'); gt >= 0 {
				body := rest[gt+1:]
				if end := strings.Index(body, "</"+tag+">"); end >= 0 {
					return strings.TrimSpace(body[:end]), true
				}
			}
			return "", false
		}
		j := strings.Index(rest, "<"+tag)
		if j < 0 {
			break
		}
		i += 1 + len(tag) + j
	}
	return "", false
}

// opensWithTag reports whether s starts with a lowercase XML-like tag (<local-command-stdout>,
// <system-reminder> …): text strata or Claude Code wrote, not the user.
func opensWithTag(s string) bool {
	if len(s) < 3 || s[0] != '<' || s[1] < 'a' || s[1] > 'z' {
		return false
	}
	for i := 2; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '>' || c == ' ' || c == '\t' || c == '\n':
			return true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return false
}

// cutTitle cuts s to maxTitle UTF-16 code units (never inside a character), trims the end and
// adds "…", as Claude Code cuts a prompt it shows as a title.
func cutTitle(s string) string {
	n := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if n+w > maxTitle {
			return strings.TrimSpace(s[:i]) + "…"
		}
		n += w
	}
	return s
}

// FirstPrompt returns the first real prompt of the session (see Title): what a user typed
// first, or the slash command the session was opened with.
func (s *Session) FirstPrompt() string {
	var p promptScan
	for _, e := range s.File.Entries {
		if p.entry(e) {
			break
		}
	}
	if p.result() == "" && s.sidechainOnly() {
		// A subagent's transcript: its task is its first prompt.
		for _, e := range s.File.Entries {
			if e.IsSidechain && e.Type == TypeUser {
				c := *e
				c.IsSidechain = false
				if p.entry(&c) {
					break
				}
			}
		}
	}
	return p.result()
}

func (s *Session) sidechainOnly() bool {
	seen := false
	for _, e := range s.File.Entries {
		if e.IsConversation() {
			if !e.IsSidechain {
				return false
			}
			seen = true
		}
	}
	return seen
}

// Summary returns the latest summary whose leafUuid is an entry of the loaded file, or "".
func (s *Session) Summary() string {
	own, _ := s.summaries()
	return own
}

// summaries returns the latest summary whose leafUuid is an entry of the loaded file, and the
// latest summary of any leaf.
func (s *Session) summaries() (own, latest string) {
	uuids := map[string]bool{}
	for _, e := range s.File.Entries {
		if e.UUID != "" && e.Type != TypeSummary {
			uuids[e.UUID] = true
		}
	}
	all := append(append([]*Entry(nil), s.File.Earlier...), s.File.Entries...)
	for i := len(all) - 1; i >= 0 && own == ""; i-- {
		if e := all[i]; e.Type == TypeSummary && e.Summary != "" {
			latest = cmp.Or(latest, e.Summary)
			if uuids[e.LeafUUID] {
				own = e.Summary
			}
		}
	}
	return own, latest
}

// Title returns the session's title (see the package function Title).
func (s *Session) Title() string {
	own, latest := s.summaries()
	return Title(s.Meta.CustomTitle, s.Meta.AITitle, own, s.FirstPrompt(), latest)
}

// summaryLeaf is a summary found while listing, with the entry it names.
type summaryLeaf struct{ leaf, summary string }

// leavesInFile reports which of the summaries' leaves are the uuid of an entry in the file r
// (size bytes), reading it once in blocks. A summary line names its leaf too, so a hit counts
// only when the line holding it has that uuid.
func leavesInFile(r io.ReaderAt, size int64, sums []summaryLeaf) []bool {
	found := make([]bool, len(sums))
	pats := make([][]byte, len(sums))
	longest := 0
	for i, s := range sums {
		pats[i] = []byte(`"` + s.leaf + `"`)
		longest = max(longest, len(pats[i]))
	}
	const block = 256 << 10
	buf := make([]byte, block+longest)
	left := len(sums)
	for off := int64(0); off < size && left > 0; off += block {
		n := min(int64(len(buf)), size-off)
		b := buf[:n]
		if _, err := r.ReadAt(b, off); err != nil && err != io.EOF {
			return found
		}
		for i, p := range pats {
			if found[i] {
				continue
			}
			for from := 0; ; {
				k := bytes.Index(b[from:], p)
				if k < 0 {
					break
				}
				at := off + int64(from+k)
				if _, line, err := lineAround(r, size, at); err == nil && isEntryWithUUID(line, sums[i].leaf) {
					found[i] = true
					left--
					break
				}
				from += k + 1
			}
		}
	}
	return found
}

// isEntryWithUUID reports whether line is an entry whose own uuid is id.
func isEntryWithUUID(line []byte, id string) bool {
	if keyString(line, "uuid") == id {
		return true
	}
	e, _ := ParseEntry(line)
	return e != nil && e.UUID == id && e.Type != TypeSummary
}
