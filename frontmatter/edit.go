package frontmatter

import (
	"fmt"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// MetaKey is the key of the nested block in which current Claude Code writes a memory's type,
// modified time, originSessionId and node_type:
//
//	---
//	name: prefer-tabs
//	description: Indent with tabs
//	metadata:
//	  type: feedback
//	  modified: 2026-04-30T09:12:44.120Z
//	---
const MetaKey = "metadata"

// Meta returns the metadata block's mapping, or nil when there is none (or it is not a mapping).
func (d Doc) Meta() map[string]any {
	m, _ := d.Fields[MetaKey].(map[string]any)
	return m
}

// MetaString returns key's value as String does: at the top level, or, when absent there,
// under the metadata block. Both shapes of a memory file (flat, and Claude Code's nested one)
// thus read the same.
func (d Doc) MetaString(key string) string {
	if _, ok := d.Fields[key]; ok {
		return d.String(key)
	}
	return Doc{Fields: d.Meta()}.String(key)
}

// Locate says where key is: at the top level (parent ""), or under the metadata block
// (parent MetaKey). ok is false when it is in neither.
func (d Doc) Locate(key string) (parent string, ok bool) {
	if _, ok := d.Fields[key]; ok {
		return "", true
	}
	if _, ok := d.Meta()[key]; ok {
		return MetaKey, true
	}
	return "", false
}

// Set returns the frontmatter text raw (Doc.Raw) with key's value replaced by value — at the top
// level when parent is "", else in parent's indented block — and every other line kept byte
// for byte, comments and unknown keys included. A key that is not there is added at the end of
// its block (parent's block must exist). The value is written as a YAML scalar, quoted only
// when YAML needs it. Set fails, leaving the caller to write the file afresh, when raw is not
// the plain block style it can edit line by line (flow mappings, anchors, a key given twice)
// or when the result would not read back as value.
func Set(raw, parent, key, value string) (string, error) {
	lines := strings.SplitAfter(raw, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	start, end, indent := 0, len(lines), "" // the block to look in: [start, end)
	if parent != "" {
		p, pend, ok := findKey(lines, 0, len(lines), "", parent)
		if !ok {
			return "", fmt.Errorf("frontmatter: no %s block", parent)
		}
		if strings.TrimSpace(valueOf(lines[p], parent)) != "" {
			return "", fmt.Errorf("frontmatter: %s is not a block mapping", parent)
		}
		start, end = p+1, pend
		indent = "  "
		for _, l := range lines[start:end] {
			if t := strings.TrimLeft(l, " "); strings.TrimSpace(l) != "" && len(t) < len(l) {
				indent = l[:len(l)-len(t)]
				break
			}
		}
	}
	line, err := scalarLine(indent, key, value)
	if err != nil {
		return "", err
	}
	if _, err := time.Parse(time.RFC3339Nano, value); err == nil {
		line = indent + key + ": " + value + "\n" // a timestamp, written plain as Claude Code does
	}
	out := make([]string, 0, len(lines)+1)
	if i, iend, ok := findKey(lines, start, end, indent, key); ok {
		out = append(append(append(out, lines[:i]...), line), lines[iend:]...)
	} else {
		// After the block's last non-blank line.
		at := end
		for at > start && strings.TrimSpace(lines[at-1]) == "" {
			at--
		}
		if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
			lines[at-1] += "\n"
		}
		out = append(append(append(out, lines[:at]...), line), lines[at:]...)
	}
	next := strings.Join(out, "")
	doc := Doc{Raw: next}
	if err := decode(&doc); err != nil {
		return "", fmt.Errorf("frontmatter: set %s: %w", key, err)
	}
	fields := doc.Fields
	if parent != "" {
		fields = doc.Meta()
	}
	if got := fields[key]; !sameValue(got, value) {
		return "", fmt.Errorf("frontmatter: set %s: reads back as %v", key, got)
	}
	return next, nil
}

// sameValue reports whether a decoded YAML value is value: the string itself, or the time it
// names when YAML read a plain timestamp.
func sameValue(got any, value string) bool {
	switch v := got.(type) {
	case string:
		return v == value
	case time.Time:
		t, err := time.Parse(time.RFC3339Nano, value)
		return err == nil && t.Equal(v)
	}
	return false
}

// findKey finds the line "key:" at exactly indent within lines[start:end] and returns it with
// the end of its value (the lines indented deeper, or a sequence at the same indent, blank
// lines inside included but not trailing ones). ok is false when key is absent; a key given
// twice is reported absent too, so that Set refuses to guess.
func findKey(lines []string, start, end int, indent, key string) (at, valueEnd int, ok bool) {
	at = -1
	for i := start; i < end; i++ {
		l := lines[i]
		if !strings.HasPrefix(l, indent) {
			continue
		}
		rest := l[len(indent):]
		if !strings.HasPrefix(rest, key+":") || rest[len(key)+1:] != "" && !strings.ContainsAny(rest[len(key)+1:len(key)+2], " \t\n") {
			continue
		}
		if at >= 0 {
			return 0, 0, false
		}
		at = i
	}
	if at < 0 {
		return 0, 0, false
	}
	valueEnd = at + 1
	for j := at + 1; j < end; j++ {
		l := strings.TrimRight(lines[j], "\n")
		if strings.TrimSpace(l) == "" {
			continue
		}
		rest, deeper := strings.CutPrefix(l, indent)
		if !deeper || !(strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "\t") || rest == "-" || strings.HasPrefix(rest, "- ")) {
			break
		}
		valueEnd = j + 1
	}
	return at, valueEnd, true
}

// valueOf returns what follows "key:" on its line.
func valueOf(line, key string) string {
	_, v, _ := strings.Cut(line, key+":")
	return v
}

// scalarLine renders "indent key: value\n" as YAML would write the one-key mapping.
func scalarLine(indent, key, value string) (string, error) {
	y, err := yaml.Marshal(map[string]string{key: value})
	if err != nil {
		return "", fmt.Errorf("frontmatter: set %s: %w", key, err)
	}
	s := string(y)
	if strings.Count(s, "\n") != 1 {
		return "", fmt.Errorf("frontmatter: set %s: value does not fit one line", key)
	}
	return indent + s, nil
}
