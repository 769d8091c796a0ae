package recall

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/strata-mem/strata/memdir"
)

// parseMemory is memdir.ParseFile with a fast path for the plain frontmatter strata writes
// ("key: value" lines with simple strings). Anything else — other YAML, quoting with escapes,
// values YAML would read as numbers, booleans or dates, CRLF, a BOM — goes to ParseFile, so
// the result is always the same as ParseFile's (a fuzz test checks it). Decoding YAML is
// most of the cost of reading a small memory, which matters for a cold index of thousands.
func parseMemory(path, file string, data []byte) (memdir.Memory, []memdir.Diagnostic) {
	if m, ok := parseSimple(path, file, data); ok {
		return m, nil
	}
	return memdir.ParseFile(path, file, data)
}

func parseSimple(path, file string, data []byte) (memdir.Memory, bool) {
	if !bytes.HasPrefix(data, []byte("---\n")) || bytes.IndexByte(data, '\r') >= 0 {
		return memdir.Memory{}, false
	}
	text := string(data)
	fields := map[string]string{}
	pos := len("---\n")
	for {
		if pos >= len(text) {
			return memdir.Memory{}, false // never closed
		}
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += pos
		}
		line := text[pos:end]
		if line == "---" {
			pos = min(end+1, len(text))
			break
		}
		if !yamlPrintable(line) {
			return memdir.Memory{}, false
		}
		key, value, ok := simpleField(line)
		if !ok {
			return memdir.Memory{}, false
		}
		if _, dup := fields[key]; dup {
			return memdir.Memory{}, false
		}
		fields[key] = value
		pos = end + 1
	}
	m := memdir.Memory{File: file, Path: path, Size: int64(len(data)), Body: text[pos:]}
	m.Name = strings.TrimSpace(fields["name"])
	m.Description = strings.TrimSpace(fields["description"])
	m.Type = memdir.Type(strings.TrimSpace(fields["type"]))
	m.Modified = memdir.ParseModified(fields["modified"])
	if m.Name == "" {
		m.Name = strings.TrimSuffix(file, ".md")
	}
	return m, true
}

// simpleField parses "key: value" when YAML would read value as exactly that string.
func simpleField(line string) (key, value string, ok bool) {
	i := strings.Index(line, ": ")
	if i <= 0 {
		return "", "", false
	}
	key, value = line[:i], line[i+2:]
	for j := 0; j < len(key); j++ {
		c := key[j]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || j > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return "", "", false
		}
	}
	if value == "" || strings.TrimSpace(value) != value || !yamlPrintable(value) {
		return "", "", false
	}
	switch q := value[0]; q {
	case '"', '\'':
		if len(value) < 2 || value[len(value)-1] != q {
			return "", "", false
		}
		inner := value[1 : len(value)-1]
		if strings.ContainsAny(inner, "\"'\\") {
			return "", "", false
		}
		return key, inner, true
	}
	if strings.ContainsRune("-?:,[]{}#&*!|>%@`+.~0123456789", rune(value[0])) ||
		strings.Contains(value, ": ") || strings.Contains(value, " #") || strings.HasSuffix(value, ":") ||
		strings.ContainsAny(value, "\"'\\") {
		return "", "", false
	}
	switch strings.ToLower(value) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf":
		return "", "", false
	}
	return key, value, true
}

// yamlPrintable reports whether every rune of s is one YAML accepts in a plain document
// (printable, valid UTF-8, no byte-order mark).
func yamlPrintable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd && r != 0xfeff, r >= 0x10000:
		default:
			return false // includes utf8.RuneError for invalid bytes
		}
	}
	return true
}
