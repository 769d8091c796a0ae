package instructions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/strata-mem/strata/frontmatter"
)

// rule is a rule file whose paths make it conditional, waiting for a matching touch.
type rule struct {
	path     string
	base     string // globs are relative to this directory
	layer    Layer
	globs    ignoreList
	ft       fileText
	body     string
	bodyLine int
}

// matches reports whether the touched path p (absolute, clean) matches the globs, with
// gitignore semantics (see ignoreList.match). isDir tells whether p is a directory; it is
// called only when a glob ends in "/".
func (r *rule) matches(p string, isDir func() bool) bool {
	rel := relSlash(p, r.base)
	return rel != "" && r.globs.match(rel, isDir) != nil
}

// maxRuleDepth bounds how deep rules directories are searched.
const maxRuleDepth = 32

// loadRules reads the *.md files under dir (recursively, sorted, symlinks followed once):
// unconditional rules load now (appended to out); conditional ones wait for a touch.
func (s *Set) loadRules(ctx context.Context, out []Source, dir, base string, layer Layer, reason Reason, trigger string) []Source {
	for _, path := range s.ruleFiles(dir) {
		if ctx.Err() != nil {
			break
		}
		ft, ok := s.open(path, layer)
		if !ok {
			continue
		}
		body, bodyLine := ft.Text, 1
		var globs ignoreList
		conditional := false
		if strings.HasPrefix(ft.Text, "---") {
			doc, err := frontmatter.Parse([]byte(ft.Text))
			body, bodyLine = doc.Body, doc.BodyLine
			if err != nil {
				// Claude Code drops such a rule; so does strata, and says why.
				s.frontmatterDiag(path, err, "; the rule is not loaded (as in Claude Code) until its frontmatter parses")
				continue
			} else {
				if _, ok := doc.Fields["paths"]; !ok {
					if _, cursor := doc.Fields["globs"]; cursor {
						s.addf(path, keyLine(doc.Raw, "globs"), SeverityWarning, "globs: is Cursor's key; Claude Code reads only paths:, so this rule loads at session start for every file; rename it to paths:")
					}
				}
				var bad []string
				var perr error
				globs, bad, perr = rulePaths(doc.Fields)
				line := keyLine(doc.Raw, "paths")
				if perr != nil {
					s.addf(path, line, SeverityError, "%v; the rule is loaded at session start", perr)
				}
				for _, b := range bad {
					s.addf(path, valueLine(doc.Raw, "paths", b), SeverityError, "paths: glob %q does not parse; it is ignored", b)
				}
				if len(bad) > 0 && len(globs) == 0 && perr == nil {
					s.addf(path, line, SeverityWarning, "no usable glob in paths; the rule is loaded at session start")
				}
				conditional = len(globs) > 0 && !allAlways(globs)
			}
		}
		if conditional {
			s.loaded = append(s.loaded, ft.ID)
			s.pending = append(s.pending, &rule{path: path, base: base, layer: layer, globs: globs, ft: ft, body: body, bodyLine: bodyLine})
			continue
		}
		out = s.emit(ctx, out, path, layer, reason, trigger, ft, body, bodyLine, 0, nil, "")
	}
	return out
}

// emitRule loads a conditional rule that now applies, appending to out.
func (s *Set) emitRule(ctx context.Context, out []Source, r *rule, reason Reason, trigger string) []Source {
	// The file was recorded as loaded when it was found; emit records it again.
	for i, l := range s.loaded {
		if l == r.ft.ID {
			s.loaded = append(s.loaded[:i], s.loaded[i+1:]...)
			break
		}
	}
	return s.emit(ctx, out, r.path, r.layer, reason, trigger, r.ft, r.body, r.bodyLine, 0, nil, "")
}

// ruleFiles lists the *.md files under dir, sorted, following symlinks but never the same
// directory twice (a symlink loop is reported and skipped).
func (s *Set) ruleFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		s.addf(dir, 0, SeverityError, "unreadable rules directory: %s", errText(err))
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		s.addf(dir, 0, SeverityError, "unreadable rules directory: %s", errText(err))
		return nil
	}
	var out []string
	visited := []os.FileInfo{fi}
	var walk func(d string, entries []os.DirEntry, depth int)
	walk = func(d string, entries []os.DirEntry, depth int) {
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			t := e.Type()
			if t&fs.ModeSymlink != 0 {
				fi, err := os.Stat(p)
				if err != nil {
					s.addf(p, 0, SeverityError, "unreadable symlink in rules: %s", errText(err))
					continue
				}
				t = fi.Mode().Type()
				if fi.IsDir() {
					loop := false
					for _, v := range visited {
						if os.SameFile(v, fi) {
							loop = true
						}
					}
					if loop {
						s.addf(p, 0, SeverityWarning, "symlink loop: points to a rules directory already read; skipped")
						continue
					}
				}
			}
			switch {
			case t.IsDir():
				if depth >= maxRuleDepth {
					s.addf(p, 0, SeverityWarning, "rules nested deeper than %d directories; not searched", maxRuleDepth)
					continue
				}
				sub, err := os.ReadDir(p)
				if err != nil {
					s.addf(p, 0, SeverityError, "unreadable rules directory: %s", errText(err))
					continue
				}
				if fi, err := os.Stat(p); err == nil {
					visited = append(visited, fi)
				}
				walk(p, sub, depth+1)
			case strings.EqualFold(filepath.Ext(e.Name()), ".md"):
				out = append(out, p)
			}
		}
	}
	walk(dir, entries, 0)
	return out
}

// rulePaths reads the "paths" field: a comma-separated string or a list of strings, each a
// pattern in gitignore syntax with {a,b} braces. It returns the usable patterns, the ones that
// do not parse, and an error when the field has the wrong type.
func rulePaths(fields map[string]any) (globs ignoreList, bad []string, err error) {
	v, ok := fields["paths"]
	if !ok || v == nil {
		return nil, nil, nil
	}
	var raw []string
	switch x := v.(type) {
	case string:
		raw = splitGlobs(x)
	case []any:
		for _, e := range x {
			str, ok := e.(string)
			if !ok {
				return nil, nil, fmt.Errorf("paths: %v is not a string (a glob must be a string; quote it)", e)
			}
			raw = append(raw, splitGlobs(str)...)
		}
	default:
		return nil, nil, fmt.Errorf("paths must be a string or a list of strings, not %T", v)
	}
	for _, g := range raw {
		g = cleanGlob(g)
		pat, ok := parseIgnore(g, true)
		if !ok {
			continue
		}
		if !pat.valid() {
			bad = append(bad, g)
			continue
		}
		globs = append(globs, pat)
	}
	return globs, bad, nil
}

// splitGlobs splits a comma-separated list of globs, keeping commas inside braces.
func splitGlobs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// cleanGlob trims spaces and quotes, and turns a leading "./" (which git does not know) into
// the "/" that anchors a pattern at the base: "./package.json" means the one at the top.
func cleanGlob(g string) string {
	g = strings.TrimSpace(g)
	g = strings.Trim(g, `"'`)
	if strings.HasPrefix(g, "./") {
		for strings.HasPrefix(g, "./") {
			g = g[2:]
		}
		g = "/" + g
	}
	return g
}

// allAlways reports whether every glob matches everything.
func allAlways(globs ignoreList) bool {
	for _, g := range globs {
		all := g.glob == "**" || g.glob == "**/*" || g.glob == "*" && !g.anchored
		if g.negate || g.dirOnly || !all {
			return false
		}
	}
	return true
}

// keyLine returns the file line of "key:" in a frontmatter block (which starts at line 2).
// valueLine returns the line of the file on which value (one of key's values, such as a glob
// of a paths list) is written: the first line from key's own that holds it, before the next
// top-level key; else key's line.
func valueLine(raw, key, value string) int {
	at := keyLine(raw, key)
	lines := strings.Split(raw, "\n")
	for i := at - 2; i >= 0 && i < len(lines); i++ {
		l := lines[i]
		if i > at-2 && l != "" && l[0] != ' ' && l[0] != '\t' && l[0] != '-' && strings.Contains(l, ":") {
			break // the next key
		}
		if strings.Contains(l, value) {
			return i + 2
		}
	}
	return at
}

func keyLine(raw, key string) int {
	for i, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(l, key+":") {
			return i + 2
		}
	}
	return 1
}
