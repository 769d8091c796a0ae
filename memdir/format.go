package memdir

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/internal/termtext"
)

// jsISOLayout is JavaScript's Date.prototype.toISOString form, which Claude Code writes in
// modified: milliseconds and a Z.
const jsISOLayout = "2006-01-02T15:04:05.000Z"

// msModified matches a modified value written with fractional seconds, as Claude Code does.
var msModified = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*modified:\s*["']?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d`)
})

// renderOver returns the new content of an existing topic file old that is replaced by in: the
// old frontmatter edited in place — name, description, type and modified set where they are
// (at the top level or under Claude Code's metadata: block), author when in gives one, every
// other line and key kept byte for byte — and the body, kept as it was when in.Body says the same. ok is false when old
// cannot be edited that way (no frontmatter, broken YAML, CRLF, a BOM, a style that Set cannot
// edit line by line); the caller then writes Render's output, as for a new file.
func renderOver(old []byte, in Input, modified time.Time) (content []byte, ok bool) {
	if !bytes.Equal(frontmatter.Normalize(old), old) {
		return nil, false
	}
	doc, err := frontmatter.Parse(old)
	if err != nil || !doc.Present {
		return nil, false
	}
	if !bytes.HasPrefix(old[len("---\n")+len(doc.Raw):], []byte("---\n")) {
		return nil, false // closed by "..." or at the end of the file: rewrite
	}
	// Claude Code's current shape keeps type (and modified) under metadata:; new keys join it.
	parent, found := doc.Locate("type")
	nested := found && parent != "" || !found && doc.Meta() != nil
	raw := doc.Raw
	set := func(key, value string) bool {
		parent, found := doc.Locate(key)
		if !found && nested && (key == "type" || key == "modified") {
			parent = frontmatter.MetaKey // beside the type Claude Code nested
		}
		if found && doc.MetaString(key) == value {
			return true
		}
		next, err := frontmatter.Set(raw, parent, key, value)
		if err != nil {
			return false
		}
		raw = next
		return true
	}
	stamp := ""
	if !modified.IsZero() {
		stamp = modified.UTC().Format(time.RFC3339)
		if msModified().MatchString(doc.Raw) {
			stamp = modified.UTC().Format(jsISOLayout)
		}
	}
	if !set("name", in.Name) || !set("description", termtext.OneLine(in.Description)) || !set("type", string(in.Type)) ||
		in.Author != "" && !set("author", in.Author) || stamp != "" && !set("modified", stamp) {
		return nil, false
	}
	body := doc.Body
	if strings.TrimSpace(body) != strings.TrimSpace(strings.ReplaceAll(in.Body, "\r\n", "\n")) {
		body = renderBody(in.Body)
	}
	out := []byte("---\n" + raw + "---\n" + body)
	// The edit must read back as what was asked for; anything else is written afresh.
	m, _ := ParseFile("", "", out)
	if m.Name != in.Name || m.Description != termtext.OneLine(in.Description) || m.Type != in.Type || in.Author != "" && m.Author != in.Author {
		return nil, false
	}
	return out, true
}
