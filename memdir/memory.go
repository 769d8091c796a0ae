package memdir

import (
	"fmt"
	"strings"
	"time"

	"github.com/strata-mem/strata/frontmatter"
)

// Type is a memory's kind. Unknown types are kept as written and tolerated.
type Type string

// The memory types the prompts and tools know.
const (
	TypeUser      Type = "user"      // who the user is: role, preferences, knowledge
	TypeFeedback  Type = "feedback"  // how to work: corrections and confirmed approaches
	TypeProject   Type = "project"   // facts about the work not derivable from the repo
	TypeReference Type = "reference" // where to find things outside the repo
)

// Known reports whether t is one of the four standard types.
func (t Type) Known() bool {
	switch t {
	case TypeUser, TypeFeedback, TypeProject, TypeReference:
		return true
	}
	return false
}

// Memory is one topic file as read from disk.
type Memory struct {
	Name        string    // frontmatter name; the file name without .md when missing
	Description string    // frontmatter description: one line, what it is and when it matters
	Type        Type      // frontmatter type (top level, or under Claude Code's metadata: block)
	Modified    time.Time // frontmatter modified (either place), zero when absent or unparsable
	Author      string    // frontmatter author (either place): who wrote it last, when known
	Body        string    // markdown after the frontmatter (BOM removed, CRLF normalised)

	File    string    // file name relative to the memory dir, e.g. "prefer-tabs.md"
	Path    string    // absolute path
	ModTime time.Time // file mtime
	Size    int64     // file size in bytes
	// Hash is the ContentHash of the bytes read (the first MaxFileBytes of a larger file): what
	// a change planned on this memory expects to find (Store.ArchiveFile).
	Hash string
}

// Severity of a Diagnostic.
type Severity string

// Severities.
const (
	SevError   Severity = "error"
	SevWarning Severity = "warning"
)

// Diagnostic is a problem found in a memory file or the index, with its place.
type Diagnostic struct {
	Path     string   `json:"path"`
	Line     int      `json:"line,omitempty"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.Path, d.Severity, d.Message)
}

// ParseModified reads a frontmatter modified value: an ISO 8601 / RFC 3339 time (Claude Code
// writes JavaScript's toISOString form, 2026-04-30T09:12:44.120Z), a local date-time, or a
// date. It returns the zero time when s is none of these.
func ParseModified(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

// ParseFile parses a topic file's content. file is its name relative to the memory dir (used
// for the default name and in diagnostics together with path). It never fails: a file with
// missing or broken frontmatter still yields a Memory whose body counts, plus diagnostics.
func ParseFile(path, file string, data []byte) (Memory, []Diagnostic) {
	m := Memory{File: file, Path: path, Size: int64(len(data))}
	var diags []Diagnostic
	doc, err := frontmatter.Parse(data)
	if err != nil {
		line := 1
		if fe, ok := err.(*frontmatter.Error); ok {
			line = fe.Line
		}
		diags = append(diags, Diagnostic{Path: path, Line: line, Severity: SevError, Message: err.Error()})
	}
	m.Body = doc.Body
	m.Name = strings.TrimSpace(doc.String("name"))
	m.Description = strings.TrimSpace(doc.String("description"))
	// Current Claude Code nests type and modified under a metadata: block.
	m.Type = Type(strings.TrimSpace(doc.MetaString("type")))
	m.Modified = ParseModified(doc.MetaString("modified"))
	m.Author = strings.TrimSpace(doc.MetaString("author"))
	if !doc.Present && err == nil {
		diags = append(diags, Diagnostic{Path: path, Line: 1, Severity: SevWarning, Message: "no frontmatter (name, description, type); the body is still used"})
	}
	if m.Name == "" {
		m.Name = strings.TrimSuffix(file, ".md")
	}
	return m, diags
}
