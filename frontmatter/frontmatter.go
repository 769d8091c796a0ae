// Package frontmatter splits a markdown file into its YAML frontmatter and its body.
//
// A file has frontmatter when its first line (after an optional UTF-8 byte-order mark) is
// exactly "---" and a later line is exactly "---" (or "..."). CRLF line endings are accepted.
// Parsing never fails the caller: Parse always returns a usable body, and reports a malformed
// or unclosed block as an *Error carrying the 1-based line number in the file.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// Doc is a parsed file.
type Doc struct {
	// Fields is the decoded YAML mapping; nil when the file has no (valid) frontmatter.
	Fields map[string]any
	// Raw is the frontmatter text between the fences, without them ("" when absent).
	Raw string
	// Body is the text after the closing fence (or the whole text when there is no frontmatter),
	// with a leading BOM removed and CRLF normalised to LF.
	Body string
	// BodyLine is the 1-based line in the file at which Body starts.
	BodyLine int
	// Present reports whether a fenced frontmatter block was found (even if its YAML is bad).
	Present bool
}

// Error is a frontmatter problem at a line of the file.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ErrNotMapping is wrapped by the Error returned when the frontmatter is YAML but not a mapping.
var ErrNotMapping = errors.New("frontmatter is not a key: value mapping")

// Normalize removes a UTF-8 BOM and converts CRLF (and lone CR) line endings to LF.
func Normalize(data []byte) []byte {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if bytes.IndexByte(data, '\r') < 0 {
		return data
	}
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	return bytes.ReplaceAll(data, []byte("\r"), []byte("\n"))
}

var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

// Parse splits data. The returned error, if any, is an *Error; the Doc is valid either way.
func Parse(data []byte) (Doc, error) {
	text := string(Normalize(data))
	doc := Doc{Body: text, BodyLine: 1}
	if !(text == "---" || len(text) >= 4 && text[:4] == "---\n") {
		return doc, nil
	}
	// Find the closing fence.
	line := 1
	pos := len("---\n")
	if len(text) < pos {
		pos = len(text)
	}
	for pos < len(text) {
		line++
		end := pos
		for end < len(text) && text[end] != '\n' {
			end++
		}
		l := text[pos:end]
		if l == "---" || l == "..." {
			raw := text[4:pos]
			doc.Present = true
			doc.Raw = raw
			next := end + 1
			if next > len(text) {
				next = len(text)
			}
			doc.Body = text[next:]
			doc.BodyLine = line + 1
			return doc, decode(&doc)
		}
		pos = end + 1
	}
	return doc, &Error{Line: 1, Msg: "frontmatter opened with --- but never closed; treating the whole file as body"}
}

func decode(doc *Doc) error {
	if strings.TrimSpace(doc.Raw) == "" {
		doc.Fields = map[string]any{}
		return nil
	}
	var v any
	if err := yaml.Unmarshal([]byte(doc.Raw), &v); err != nil {
		line := 2
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			if n, _ := strconv.Atoi(m[1]); n > 0 {
				line = n + 1 // +1 for the opening fence
			}
		}
		return &Error{Line: line, Msg: "malformed YAML frontmatter: " + yamlMessage(err)}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return &Error{Line: 2, Msg: ErrNotMapping.Error()}
	}
	doc.Fields = m
	return nil
}

var yamlPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^yaml: (line \d+: )?`) })

func yamlMessage(err error) string { return yamlPrefix().ReplaceAllString(err.Error(), "") }

// String returns the field as a string: strings as is, scalars formatted, anything else "".
func (d Doc) String(key string) string {
	switch v := d.Fields[key].(type) {
	case string:
		return v
	case nil:
		return ""
	case int, int64, float64, bool:
		return fmt.Sprint(v)
	case time.Time: // a value tagged !!timestamp
		return v.Format(time.RFC3339Nano)
	}
	return ""
}
