package compact

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/tokens"
)

// When the session notes are written (DESIGN.md, Layer 4).
const (
	NotesInitTokens      = 10_000 // the first notes are written once the context reaches this
	NotesUpdateTokens    = 5_000  // then an update needs this much growth since the last one ...
	NotesUpdateToolCalls = 3      // ... and this many tool calls since, or a turn without tool calls
)

// Caps on the notes, in estimated tokens (package tokens, so a Chinese character counts as
// about one token). A section's cap counts its body, not its heading and description lines.
const (
	NotesSectionTokens = 2_000
	NotesTotalTokens   = 12_000
)

// NotesPath returns the notes file of the session whose transcript is transcriptPath:
// <transcript without .jsonl>/session-memory/summary.md.
func NotesPath(transcriptPath string) string {
	return filepath.Join(strings.TrimSuffix(transcriptPath, ".jsonl"), "session-memory", "summary.md")
}

// NotesTracker decides when the notes are due. The zero value is ready: no notes yet. Safe
// for one goroutine (the agent's turn loop).
type NotesTracker struct {
	started   bool // an update has begun at least once
	base      int  // the context size the growth is measured from
	toolCalls int  // tool calls since the last update began
}

// Due reports whether an update should start after a turn: ctxTokens is the context's size
// now, toolCalls the tool calls of the turn that just ended (they accumulate inside the
// tracker until Started). Before the first update it is due once ctxTokens reaches
// NotesInitTokens; afterwards it needs NotesUpdateTokens of growth since the last update and
// either NotesUpdateToolCalls tool calls since then or a turn that made none (a natural pause).
// When the context shrinks (a compaction), growth is measured from the smaller size.
func (t *NotesTracker) Due(ctxTokens, toolCalls int) bool {
	t.toolCalls += max(toolCalls, 0)
	if !t.started {
		return ctxTokens >= NotesInitTokens
	}
	if ctxTokens < t.base {
		t.base = ctxTokens
	}
	if ctxTokens-t.base < NotesUpdateTokens {
		return false
	}
	return t.toolCalls >= NotesUpdateToolCalls || toolCalls <= 0
}

// Started records that an update began at ctxTokens: growth is measured from there and the
// tool-call count starts again from zero.
func (t *NotesTracker) Started(ctxTokens int) {
	t.started, t.base, t.toolCalls = true, ctxTokens, 0
}

// NotesTemplate is the sectioned template a new notes file starts from. Every "## " heading
// and the italic line below it must stay (CheckNotes); the notes go under the descriptions.
const NotesTemplate = `# Session notes

## Current state
_What is being done right now, what was just finished, and the very next step._

## Task
_What the user asked for, in their own terms: goals, constraints, decisions they made, what counts as done._

## Files and functions
_The files, functions and symbols that matter to the task, each with a few words on why._

## Workflow
_The commands that build, test or run the work, in the order they are used, and how to read their output._

## Errors and fixes
_Errors met, their causes and fixes; approaches that failed and must not be tried again._

## Learnings
_What was learned about the code, the tools or the user's preferences that will help later._

## Key results
_Exact results the user asked for: figures, answers, tables, final wordings._

## Worklog
_One short line per step taken, oldest first; condense old lines when space runs out._
`

const notesTitle = "# Session notes"

// notesSection is a heading of the template with the description line that must follow it.
type notesSection struct{ heading, desc string }

// notesSections are the template's sections, in order.
var notesSections = parseTemplate(NotesTemplate)

func parseTemplate(t string) []notesSection {
	var out []notesSection
	lines := strings.Split(t, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") && i+1 < len(lines) {
			out = append(out, notesSection{heading: l, desc: lines[i+1]})
		}
	}
	return out
}

// problem is one finding of checkNotes. key identifies what is wrong independent of
// size; size is the token count of an over-cap finding (0 for structural ones).
type problem struct {
	key  string
	size int
	msg  string
}

// parsedNotes is a notes text cut at its level-2 headings (outside code fences).
type parsedNotes struct {
	title    bool
	sections []parsedSection
}

type parsedSection struct {
	heading string
	lines   []string // the body, without the heading line
}

func parseNotes(text string) parsedNotes {
	var p parsedNotes
	var cur *parsedSection
	fence := ""
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if f := fenceOf(l); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
		} else if fence == "" {
			if l == notesTitle {
				p.title = true
				continue
			}
			if strings.HasPrefix(l, "## ") {
				p.sections = append(p.sections, parsedSection{heading: l})
				cur = &p.sections[len(p.sections)-1]
				continue
			}
		}
		if cur != nil {
			cur.lines = append(cur.lines, l)
		}
	}
	return p
}

// fenceOf returns the fence marker (``` or ~~~, any length ≥ 3) a line opens or closes, or "".
func fenceOf(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 {
		return ""
	}
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(t) && t[n] == c {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// body returns the section's text without the template description line.
func (s parsedSection) body(desc string) string {
	var b strings.Builder
	for _, l := range s.lines {
		if strings.TrimSpace(l) == desc {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSpace(b.String())
}

func hasLine(lines []string, want string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) == want {
			return true
		}
	}
	return false
}

func checkNotes(text string) []problem {
	if !utf8.ValidString(text) {
		return []problem{{key: "utf8", msg: "the text is not valid UTF-8; write plain text"}}
	}
	p := parseNotes(text)
	var out []problem
	if !p.title {
		out = append(out, problem{key: "title", msg: fmt.Sprintf("the title line %q is missing; put it back as the first line", notesTitle)})
	}
	byHeading := map[string][]parsedSection{}
	for _, s := range p.sections {
		byHeading[s.heading] = append(byHeading[s.heading], s)
	}
	known := map[string]bool{}
	var long []string
	for _, ts := range notesSections {
		known[ts.heading] = true
		got := byHeading[ts.heading]
		switch {
		case len(got) == 0:
			out = append(out, problem{key: "missing " + ts.heading,
				msg: fmt.Sprintf("heading %q is missing; put it back with its description line %q below it", ts.heading, ts.desc)})
			continue
		case len(got) > 1:
			out = append(out, problem{key: "twice " + ts.heading,
				msg: fmt.Sprintf("heading %q appears %d times; merge those parts into one section", ts.heading, len(got))})
		}
		if !hasLine(got[0].lines, ts.desc) {
			out = append(out, problem{key: "desc " + ts.heading,
				msg: fmt.Sprintf("section %q lost its description line; put %q back right below the heading", ts.heading, ts.desc)})
		}
		n := 0
		for _, s := range got {
			n += tokens.Estimate(s.body(ts.desc))
		}
		if n > NotesSectionTokens {
			long = append(long, ts.heading)
			out = append(out, problem{key: "cap " + ts.heading, size: n,
				msg: fmt.Sprintf("section %q is about %d tokens, over its cap of %d; condense it", ts.heading, n, NotesSectionTokens)})
		}
	}
	for _, s := range p.sections {
		if !known[s.heading] {
			known[s.heading] = true // report once
			out = append(out, problem{key: "unknown " + s.heading,
				msg: fmt.Sprintf("%q is not a section of the template; keep the template's sections and use ### for sub-headings", s.heading)})
		}
	}
	if n := tokens.Estimate(text); n > NotesTotalTokens {
		msg := fmt.Sprintf("the notes are about %d tokens, over the total cap of %d; condense them", n, NotesTotalTokens)
		if len(long) > 0 {
			msg += ", starting with " + strings.Join(long, ", ")
		}
		out = append(out, problem{key: "total", size: n, msg: msg})
	}
	return out
}

// CheckNotes validates a text the fork wants to write: the title and every template heading
// are present once with their description lines, no other level-2 heading is added, each
// section body is within NotesSectionTokens and the whole text within NotesTotalTokens. It
// returns one message per problem, saying what to fix; none means the text is fine.
// Headings inside fenced code blocks do not count. It never panics, whatever the input.
func CheckNotes(text string) []string {
	var msgs []string
	for _, p := range checkNotes(text) {
		msgs = append(msgs, p.msg)
	}
	return msgs
}

// worse returns the problems of after that before did not have, or that grew: a change is
// accepted when it leaves nothing worse, so that notes which were already off (hand edits, an
// older template) can be mended a step at a time.
func worse(before, after []problem) []problem {
	had := map[string]int{}
	for _, p := range before {
		had[p.key] = p.size
	}
	var out []problem
	for _, p := range after {
		if size, ok := had[p.key]; !ok || p.size > size {
			out = append(out, p)
		}
	}
	return out
}

// HasNotes reports whether text holds more than the bare template: some line that is not
// blank and not the title, a template heading or a template description. An untouched
// template is no summary.
func HasNotes(text string) bool {
	skip := map[string]bool{notesTitle: true}
	for _, s := range notesSections {
		skip[s.heading], skip[s.desc] = true, true
	}
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && !skip[l] {
			return true
		}
	}
	return false
}

// NotesPrompt is the user message of the restricted fork that updates the notes: it names the
// file, gives its current text (the template when new), the rules of the structure and the
// caps, and the sections currently over their caps.
func NotesPrompt(path, current string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Pause the task for a moment: this turn only updates the session notes file %s. "+
		"The notes let the work continue if the conversation is compacted, so they must let someone "+
		"who never saw the conversation take it over.\n\n", path)
	b.WriteString("Rules:\n")
	fmt.Fprintf(&b, "- Use only the Edit tool, and only on %s (its exact path). Call no other tool and touch no other file. "+
		"Make all the edits in this one reply, then stop; there is nothing to answer.\n", path)
	b.WriteString("- Keep the title, every \"## \" heading and the italic line under it exactly as they are; write under the italic line. " +
		"Add no other \"## \" heading (use ### inside a section).\n")
	fmt.Fprintf(&b, "- Keep each section under about %d tokens and the whole file under about %d "+
		"(a Chinese character counts as about one token). Condense older detail rather than dropping what the task still needs.\n",
		NotesSectionTokens, NotesTotalTokens)
	b.WriteString("- Update \"## Current state\" every time; it is what the work resumes from. Record file paths, " +
		"commands, error messages and figures exactly.\n")
	b.WriteString("- Write facts from the conversation so far, in the language the user writes in. Leave a section's " +
		"body empty when there is nothing for it. Don't mention these notes or this update in them.\n")
	if probs := checkNotes(current); len(probs) > 0 {
		b.WriteString("\nThe file needs fixing first:\n")
		for _, p := range probs {
			b.WriteString("- " + p.msg + "\n")
		}
	}
	fmt.Fprintf(&b, "\nCurrent content of %s:\n<notes>\n%s\n</notes>\n", path, strings.TrimRight(current, "\n"))
	return b.String()
}

// keepUncovered extends kept, the tail of history that keepRecent chose, back to the first
// message after covered (the last message the notes cover, see Notes.MarkCovered), so that
// session-memory compaction drops nothing the notes miss. The extended tail starts on a
// user message, as keepRecent's does. ok is false when that tail exceeds maxTokens: the
// notes are too far behind and a model summary is needed. An empty or unknown covered uuid
// (written before an earlier compaction, say) leaves kept as it is.
func keepUncovered(history, kept []conversation.Entry, covered string, maxTokens int) (_ []conversation.Entry, ok bool) {
	if covered == "" {
		return kept, true
	}
	at := slices.IndexFunc(history, func(e conversation.Entry) bool { return e.UUID == covered })
	if at < 0 {
		return kept, true
	}
	start := at + 1
	if len(kept) > 0 {
		if k := slices.IndexFunc(history, func(e conversation.Entry) bool { return e.UUID == kept[0].UUID }); k >= 0 && k <= start {
			return kept, true
		}
	}
	if start >= len(history) {
		return kept, true
	}
	for start > 0 && (startsWithToolResult(history[start].Message) || history[start].Message.Role != conversation.User) {
		start--
	}
	var out []conversation.Entry
	for _, e := range history[start:] {
		if !e.IsMeta {
			out = append(out, e)
		}
	}
	if conversation.EstimateEntries(out) > maxTokens {
		return nil, false
	}
	return out, true
}
