package mcpserver

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/memdir"
)

// withhold is the middleware that keeps credentials out of what the server returns: every
// string of a tool's result (its structured content and its text), the text of every resource
// read and the name, title and description of every resource listed go through
// memdir.WithholdSecrets, so a line that looks like a secret — in a memory written by hand, an
// instruction file, a transcript — reaches the client as a marker naming the kind, never as
// the secret. Files on disk are not changed.
func (s *Server) withhold(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		n := 0
		switch r := res.(type) {
		case *mcp.CallToolResult:
			n = withholdTool(r)
		case *mcp.ReadResourceResult:
			for _, c := range r.Contents {
				n += withheld(&c.Text)
			}
		case *mcp.ListResourcesResult: // a memory's name and description are its frontmatter's
			for _, x := range r.Resources {
				n += withheld(&x.Name) + withheld(&x.Title) + withheld(&x.Description)
			}
		}
		if n > 0 {
			s.log.Warn("mcpserver: withheld lines that look like secrets", "method", method, "lines", n)
		}
		return res, nil
	}
}

// withheld withholds the secrets in *s and returns how many lines it withheld.
func withheld(s *string) int {
	var found []memdir.SecretFinding
	*s, found = memdir.WithholdSecrets(*s)
	return len(found)
}

// withholdTool withholds secrets in r's structured content and text content and returns how
// many lines it withheld. A text that is the JSON of the structured content (what the SDK
// sends beside it) is not scanned again: it is rewritten from the cleaned value, and its lines
// are counted once.
func withholdTool(r *mcp.CallToolResult) int {
	n := 0
	var structured string // the structured content's JSON before withholding
	if r.StructuredContent != nil {
		if v, js, k, ok := withholdJSON(r.StructuredContent); ok {
			structured = js
			if k > 0 {
				r.StructuredContent, n = v, k
			}
		}
	}
	for _, c := range r.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			continue
		}
		if structured != "" && tc.Text == structured {
			if n == 0 {
				continue // the same strings, scanned above
			}
			if data, err := json.Marshal(r.StructuredContent); err == nil {
				tc.Text = string(data)
				continue
			}
		}
		var v any
		if json.Unmarshal([]byte(tc.Text), &v) == nil {
			if clean, _, k, ok := withholdJSON(v); ok && k > 0 {
				if data, err := json.Marshal(clean); err == nil {
					tc.Text = string(data)
					n += k
					continue
				}
			}
			if _, isString := v.(string); !isString {
				continue // JSON without secrets in its strings
			}
		}
		var found []memdir.SecretFinding
		tc.Text, found = memdir.WithholdSecrets(tc.Text)
		n += len(found)
	}
	return n
}

// withholdJSON returns v as generic JSON with secrets withheld in each string, v's JSON as it
// was, and how many lines it withheld; ok is false when v does not marshal. A value without a
// secret (the usual case) is returned as it is.
func withholdJSON(v any) (any, string, int, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, "", 0, false
	}
	js := string(data)
	if !anySecret(js) {
		return v, js, 0, true
	}
	g, n, ok := withheldValue(data)
	if !ok {
		return nil, "", 0, false
	}
	return g, js, n, true
}

// withheldValue decodes data as generic JSON and withholds secrets in each string value,
// returning the value and how many lines it withheld.
func withheldValue(data []byte) (any, int, bool) {
	var g any
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, 0, false
	}
	n := 0
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			clean, found := memdir.WithholdSecrets(t)
			n += len(found)
			return clean
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	return walk(g), n, true
}

// anySecret reports whether a string value of data (well-formed JSON, as json.Marshal gives)
// has a line that looks like a secret: the strings withholdJSON would withhold in, found
// where they lie, so that a result without a secret costs one pass over its JSON and no
// generic value. Object keys are not values, as in withheldValue's walk.
func anySecret(data string) bool {
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		end, escaped := i+1, false
		for ; end < len(data) && data[end] != '"'; end++ {
			if data[end] == '\\' {
				escaped = true
				end++
			}
		}
		if end >= len(data) {
			return true // unterminated: not what json.Marshal gives; the full walk decides
		}
		lit := data[i : end+1]
		i = end
		next := end + 1
		for next < len(data) && isJSONSpace(data[next]) {
			next++
		}
		if next < len(data) && data[next] == ':' {
			continue // a key
		}
		s := lit[1 : len(lit)-1]
		if escaped {
			var ok bool
			if s, ok = unescapeJSON(s); !ok {
				return true // likewise
			}
		}
		if len(memdir.ScanSecrets(s)) > 0 {
			return true
		}
	}
	return false
}

// unescapeJSON returns the text of the body of a JSON string literal (between its quotes) as
// encoding/json decodes it, a lone or broken surrogate escape included (U+FFFD); ok is false
// for an escape json.Marshal never writes.
func unescapeJSON(s string) (string, bool) {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		i := strings.IndexByte(s, '\\')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		if len(s) < 2 {
			return "", false
		}
		switch c := s[1]; c {
		case '"', '\\', '/':
			b.WriteByte(c)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r := hex4(s)
			if r < 0 {
				return "", false
			}
			s = s[6:]
			if utf16.IsSurrogate(r) {
				if d := utf16.DecodeRune(r, hex4(s)); d != unicode.ReplacementChar {
					r = d
					s = s[6:]
				} else {
					r = unicode.ReplacementChar
				}
			}
			b.WriteRune(r)
			continue
		default:
			return "", false
		}
		s = s[2:]
	}
	return b.String(), true
}

// hex4 decodes the \uXXXX escape s starts with, or returns -1.
func hex4(s string) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	v, err := strconv.ParseUint(s[2:6], 16, 16)
	if err != nil {
		return -1
	}
	return rune(v)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
