package transcript

import (
	"bytes"
	"encoding/json"
)

// The scanners listing uses to read a few fields of a line without parsing it: Claude Code
// writes compact JSON, other writers put spaces around the colons, and both are read.

// maybeMetadata is a cheap test for a metadata line: both Claude Code and strata write the
// type first in a metadata entry (conversation entries start with parentUuid), so a line is
// looked at only when it starts with {"type":" or is short.
func maybeMetadata(line []byte) bool {
	if bytes.HasPrefix(line, metaPrefix) {
		rest := line[len(metaPrefix):]
		j := bytes.IndexByte(rest[:min(len(rest), 40)], '"')
		return j >= 0 && metadataTypes[string(rest[:j])]
	}
	if len(line) > 512 {
		// A long line is a metadata entry only when it opens with its type, spaced or not.
		v := valueAfterKey(line[:min(len(line), 64)], "type")
		if len(v) == 0 || v[0] != '"' || !bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("{")) {
			return false
		}
		rest := v[1:]
		j := bytes.IndexByte(rest, '"')
		return j >= 0 && metadataTypes[string(rest[:j])]
	}
	for head := line; ; {
		v := valueAfterKey(head, "type")
		if v == nil {
			return false
		}
		if len(v) > 0 && v[0] == '"' {
			rest := v[1:]
			if j := bytes.IndexByte(rest, '"'); j >= 0 && metadataTypes[string(rest[:j])] {
				return true
			}
		}
		head = v
	}
}

var metaPrefix = []byte(`{"type":"`)

// valueAfterKey finds "key" used as a key in a JSON line (followed, after optional spaces,
// by a colon) and returns the line from the start of its value (spaces skipped), or nil.
// Strings inside values have their quotes escaped, so a bare "key" is a key or a whole value.
func valueAfterKey(line []byte, key string) []byte {
	for from := 0; from < len(line); {
		i := indexQuoted(line[from:], key)
		if i < 0 {
			return nil
		}
		rest := line[from+i+len(key)+2:]
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return bytes.TrimLeft(rest[1:], " \t\r\n")
		}
		from += i + 1
	}
	return nil
}

// indexQuoted is bytes.Index(line, "\"key\"") without building the pattern.
func indexQuoted(line []byte, key string) int {
	for from := 0; ; {
		i := bytes.Index(line[from:], []byte(key))
		if i < 0 {
			return -1
		}
		at := from + i
		if at > 0 && line[at-1] == '"' && at+len(key) < len(line) && line[at+len(key)] == '"' {
			return at - 1
		}
		from = at + 1
	}
}

// spaced reports whether a JSON line was written with spaces after its colons (or before
// them): its first key shows it. Compact lines, the usual case, skip the slower search.
func spaced(line []byte) bool {
	head := line[:min(len(line), 80)]
	return bytes.Contains(head, []byte(`": `)) || bytes.Contains(head, []byte(`" :`)) || bytes.Contains(head, []byte("\":\t"))
}

// mayBeUser is a cheap test for a user entry's line, compact or spaced, whatever its key order
// (the entry's type is checked again once it is parsed).
func mayBeUser(line []byte) bool {
	return bytes.Contains(line, []byte(`"type":"user"`)) || hasKeyValue(line, "type", TypeUser) ||
		spaced(line) && bytes.Contains(line, []byte(`"type": "user"`))
}

// hasKeyValue reports whether the line's first "key" holds the string value.
func hasKeyValue(line []byte, key, value string) bool {
	v := valueAfterKey(line, key)
	return len(v) > len(value)+1 && v[0] == '"' && string(v[1:1+len(value)]) == value && v[1+len(value)] == '"'
}

// keyString finds "key":"value" in a JSON line (spaces around the colon allowed) and returns
// the value unescaped. It looks for the first occurrence, which in Claude Code's key order is
// the top-level one; it is used only for listing, where reading a few fields must not cost a
// full parse of a large line.
func keyString(line []byte, key string) string {
	pat := make([]byte, 0, len(key)+4)
	pat = append(pat, '"')
	pat = append(pat, key...)
	pat = append(pat, '"', ':', '"')
	var rest []byte
	if i := bytes.Index(line, pat); i >= 0 {
		rest = line[i+len(pat)-1:]
	} else if !spaced(line) {
		return ""
	} else if v := valueAfterKey(line, key); len(v) > 0 && v[0] == '"' {
		rest = v
	} else {
		return ""
	}
	end := 1
	for end < len(rest) {
		c := rest[end]
		if c == '\\' {
			end += 2
			continue
		}
		if c == '"' {
			var s string
			if json.Unmarshal(rest[:end+1], &s) != nil {
				return ""
			}
			return s
		}
		end++
	}
	return ""
}
