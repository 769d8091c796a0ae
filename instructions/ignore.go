package instructions

import (
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Gitignore semantics, on doublestar. Claude Code matches a rule's paths: the way git matches
// .gitignore lines, and the same matcher tells lint which files a .gitignore leaves out of a
// fresh clone. It is written here on doublestar (already a dependency) rather than taken from a
// gitignore library: go-git's matcher pulls eight packages of five modules (go-billy, gcfg …)
// into every strata binary for a hundred lines, has no {a,b} braces (which rule paths use), and
// differs from git on "[!a]" and on "dir/**" (which git does not let match dir itself); the other
// one served has not been kept up since 2021. ignore_test.go checks this one against git itself.

// ignorePattern is one pattern in gitignore syntax.
type ignorePattern struct {
	text     string // as written, for messages
	glob     string // doublestar pattern: relative to the base when anchored, else of one name
	negate   bool   // "!pattern": a match re-includes
	dirOnly  bool   // "pattern/": matches directories only
	anchored bool   // a "/" at the start or in the middle: matched against the whole relative path
	line     int    // line in its file (a .gitignore), 0 for rule paths
}

// parseIgnore reads one pattern. braces keeps {a,b} alternatives (rule paths); in a .gitignore
// they are literal characters, as in git. ok is false for a pattern that matches nothing (empty).
func parseIgnore(p string, braces bool) (ignorePattern, bool) {
	pat := ignorePattern{text: p}
	if strings.HasPrefix(p, "!") {
		pat.negate, p = true, p[1:]
	}
	// Trailing spaces are not part of a pattern unless escaped.
	for strings.HasSuffix(p, " ") && !strings.HasSuffix(p, `\ `) {
		p = p[:len(p)-1]
	}
	if strings.HasSuffix(p, "/") {
		pat.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	if p == "" {
		return pat, false
	}
	if i := strings.IndexByte(p, '/'); i >= 0 {
		pat.anchored = true
		p = strings.TrimLeft(p, "/")
		if p == "" {
			return pat, false
		}
	}
	if !braces {
		p = strings.NewReplacer("{", `\{`, "}", `\}`).Replace(p)
	}
	// "dir/**" is everything inside dir, not dir itself (git); doublestar's "**" would also
	// match dir.
	if strings.HasSuffix(p, "/**") {
		p += "/*"
	}
	pat.glob = p
	return pat, true
}

// valid reports whether the pattern parses.
func (p *ignorePattern) valid() bool { return doublestar.ValidatePattern(p.glob) }

// matchOne reports whether the pattern matches rel (slash-separated, relative to the base).
func (p *ignorePattern) matchOne(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	name := rel
	if !p.anchored {
		name = rel[strings.LastIndexByte(rel, '/')+1:]
	}
	ok, _ := doublestar.Match(p.glob, name)
	return ok
}

// ignoreList is an ordered list of patterns; later ones win, as in a .gitignore.
type ignoreList []ignorePattern

// decide returns the last pattern that matches rel, or nil.
func (l ignoreList) decide(rel string, isDir bool) *ignorePattern {
	for i := len(l) - 1; i >= 0; i-- {
		if l[i].matchOne(rel, isDir) {
			return &l[i]
		}
	}
	return nil
}

// match reports the pattern that makes rel (slash-separated, relative to the base, clean)
// matched, or nil. As in git, a directory that is matched covers everything below it, and a
// later "!pattern" cannot re-include a file whose parent directory is matched. isDir says
// whether rel itself is a directory; it is asked only when a pattern needs to know.
func (l ignoreList) match(rel string, isDir func() bool) *ignorePattern {
	if len(l) == 0 || rel == "" || rel == "." {
		return nil
	}
	for i := 0; i < len(rel); i++ {
		if rel[i] != '/' {
			continue
		}
		if p := l.decide(rel[:i], true); p != nil && !p.negate {
			return p
		}
	}
	dir := false
	for i := range l {
		if l[i].dirOnly {
			dir = isDir != nil && isDir()
			break
		}
	}
	if p := l.decide(rel, dir); p != nil && !p.negate {
		return p
	}
	return nil
}

// relSlash returns p relative to base with forward slashes, or "" when p is not below base.
func relSlash(p, base string) string {
	if p == base || !within(p, base) {
		return ""
	}
	rel := p[len(base):]
	return strings.TrimPrefix(filepath.ToSlash(rel), "/")
}

// Gitignored reports whether the project's .gitignore files leave abs (a path inside the
// project root) out of the repository, as git decides (see gitignored); chat's path completion
// skips what it leaves out.
func (s *Set) Gitignored(abs string, isDir bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, _ := s.gitignored(abs, isDir)
	return m != nil
}
