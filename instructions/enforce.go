package instructions

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/strata-mem/strata/tokens"
)

// Enforced blocks: a managed file marks policy that must hold whatever lower layers say.
//
//	<!-- strata:enforce -->
//	- commit signing: required
//	<!-- /strata:enforce -->
//
// The text stays where it is, and is repeated after all other instructions (later text wins).
// Lint reports lower-layer lines that repeat an enforced line exactly, and "key: value" lines
// that set an enforced key to another value.
const (
	EnforceStart = "<!-- strata:enforce -->"
	EnforceEnd   = "<!-- /strata:enforce -->"
)

type enforcedBlock struct {
	path  string
	line  int // file line of the first enforced line
	lines []string
}

// collectEnforced records the enforced blocks of a managed file's body.
func (s *Set) collectEnforced(path, body string, bodyLine int) {
	if !strings.Contains(body, EnforceStart) {
		return
	}
	var cur *enforcedBlock
	for i, l := range strings.Split(body, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == EnforceStart:
			cur = &enforcedBlock{path: path, line: bodyLine + i + 1}
		case t == EnforceEnd && cur != nil:
			if len(cur.lines) > 0 {
				s.enforced = append(s.enforced, *cur)
			}
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	if cur != nil {
		s.addf(path, cur.line-1, SeverityError, "%s is never closed with %s; the block is not enforced", EnforceStart, EnforceEnd)
	}
}

// enforcedSources are the repeats of the enforced blocks, one piece per block.
func (s *Set) enforcedSources() []Source {
	out := make([]Source, 0, len(s.enforced))
	for _, b := range s.enforced {
		text := strings.Join(b.lines, "\n") + "\n"
		out = append(out, Source{Path: b.path, Layer: LayerManaged, Reason: ReasonSessionStart, Bytes: len(text),
			Tokens: tokens.Estimate(text), Text: text, Enforced: true})
	}
	return out
}

// keyValue matches a "key: value" line, optionally a list item: the key is one to four words.
var keyValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:[-*+]\s+)?\**([A-Za-z][A-Za-z0-9_.-]*(?: [A-Za-z0-9_.-]+){0,3})\**\s*:\s*(\S.*?)\s*$`)
})

// Lint returns every diagnostic of the set plus the enforcement checks: lower-layer lines
// that repeat an enforced line exactly (a warning: the repeat is useless) and "key: value"
// lines that give an enforced key another value (a warning naming both places).
func (s *Set) Lint(ctx context.Context) []Diagnostic {
	diags := s.Diagnostics()
	s.mu.Lock()
	blocks := append([]enforcedBlock(nil), s.enforced...)
	s.mu.Unlock()
	if len(blocks) == 0 {
		return diags
	}
	type where struct {
		path string
		line int
		text string
	}
	exact := map[string]where{}
	keys := map[string]where{}
	for _, b := range blocks {
		for i, l := range b.lines {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			w := where{b.path, b.line + i, t}
			exact[t] = w
			if m := keyValue().FindStringSubmatch(l); m != nil {
				keys[strings.ToLower(m[1])] = where{b.path, b.line + i, m[2]}
			}
		}
	}
	for _, src := range s.Sources() {
		if ctx.Err() != nil {
			break
		}
		if src.Layer == LayerManaged || src.Layer == LayerAutomem {
			continue
		}
		for i, l := range strings.Split(src.Text, "\n") {
			t := strings.TrimSpace(l)
			if t == "" {
				continue
			}
			if w, ok := exact[t]; ok && len(t) >= 8 {
				diags = append(diags, Diagnostic{Path: src.Path, Line: fileLine(src.Path, t, i+1), Severity: SeverityWarning,
					Message: fmt.Sprintf("repeats the enforced line at %s:%d (%q); the managed copy already applies", w.path, w.line, t)})
				continue
			}
			if m := keyValue().FindStringSubmatch(l); m != nil {
				if w, ok := keys[strings.ToLower(m[1])]; ok && !strings.EqualFold(w.text, m[2]) {
					diags = append(diags, Diagnostic{Path: src.Path, Line: fileLine(src.Path, t, i+1), Severity: SeverityWarning,
						Message: fmt.Sprintf("sets %q to %q, but %s:%d enforces %q; the enforced value wins", m[1], m[2], w.path, w.line, w.text)})
				}
			}
		}
	}
	return diags
}

// fileLine finds the line of the file at path whose trimmed text is t (the loaded text has lost
// frontmatter and comments, so its line numbers differ); fallback when it cannot be found.
func fileLine(path, t string, fallback int) int {
	ft, err := readText(path, DefaultMaxFileBytes)
	if err != nil || !ft.OK {
		return fallback
	}
	for i, l := range strings.Split(ft.Text, "\n") {
		if strings.TrimSpace(l) == t {
			return i + 1
		}
	}
	return fallback
}
