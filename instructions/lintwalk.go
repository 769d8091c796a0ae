package instructions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// skipDir reports directories LoadAll never searches: version-control internals and installed
// packages (strata would load their files on a touch, but nobody edits them).
func skipDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".jj", "node_modules":
		return true
	}
	return false
}

// LoadAll loads everything that could apply below the working directory, as if every file had
// been touched: every conditional rule, and the instruction files of every directory below the
// working directory that strata would load from on a touch — hidden directories included
// (.github/workflows/CLAUDE.md, AGENTS.md under .claude/skills/), but not .git, .hg, .svn, .jj,
// node_modules or directories a .gitignore leaves out; at most maxDirs directories (0 means
// 10,000). It also warns about files whose names are a case variant of an instruction file
// name (Claude.md): they load on case-insensitive file systems only. strata lint uses it so
// that no file goes unchecked.
func (s *Set) LoadAll(ctx context.Context, maxDirs int) []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	if maxDirs <= 0 {
		maxDirs = 10000
	}
	// The directories above the working directory, inside the project, load at session start:
	// their names are checked too.
	for _, d := range chain(s.cwd) {
		if d != s.cwd && within(d, s.root) {
			if entries, err := os.ReadDir(d); err == nil {
				s.caseVariants(d, entries)
			}
		}
	}
	var out []Source
	count := 0
	var walk func(d string)
	walk = func(d string) {
		entries, err := os.ReadDir(d)
		if err != nil {
			s.addf(d, 0, SeverityWarning, "directory not searched for nested instruction files: %s", errText(err))
			return
		}
		s.caseVariants(d, entries)
		for _, e := range entries {
			if ctx.Err() != nil || count >= maxDirs {
				return
			}
			n := e.Name()
			if !e.IsDir() || skipDir(n) {
				continue
			}
			sub := filepath.Join(d, n)
			if p, _ := s.gitignored(sub, true); p != nil {
				continue
			}
			count++
			if s.firstVisit(sub) {
				out = s.loadDir(ctx, out, sub, true, "")
			}
			walk(sub)
		}
	}
	walk(s.cwd)
	if count >= maxDirs {
		s.addf(s.cwd, 0, SeverityInfo, "stopped looking for nested instruction files after %d directories", maxDirs)
	}
	pend := s.pending
	s.pending = nil
	for _, r := range pend {
		out = s.emitRule(ctx, out, r, ReasonPathGlobMatch, "")
	}
	s.touched = append(s.touched, out...)
	return out
}

// caseVariants warns about entries of d named like an instruction file but for case
// ("Claude.md", "agents.md"): Claude Code and strata open them on macOS and Windows, whose file
// systems ignore case, and not on Linux, so what loads depends on the machine.
func (s *Set) caseVariants(d string, entries []os.DirEntry) {
	inDotClaude := filepath.Base(d) == ".claude"
	var want []string
	for _, n := range append(s.names[:len(s.names):len(s.names)], LocalFile) {
		n = filepath.ToSlash(n)
		switch {
		case inDotClaude && strings.HasPrefix(n, ".claude/") && !strings.Contains(n[len(".claude/"):], "/"):
			want = append(want, n[len(".claude/"):])
		case !inDotClaude && !strings.Contains(n, "/"):
			want = append(want, n)
		}
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			continue
		}
		for _, w := range want {
			if name != w && strings.EqualFold(name, w) {
				s.addf(filepath.Join(d, name), 0, SeverityWarning, "named %s, not %s: it loads on case-insensitive file systems (macOS, Windows) and not on Linux, so what the model sees depends on the machine; rename it to %s", name, w, w)
			}
		}
	}
}

// ignoreFile is the .gitignore of one directory.
type ignoreFile struct {
	dir, path string
	list      ignoreList
}

// ignoreFileIn returns the .gitignore of d, read once per Set; nil when there is none.
func (s *Set) ignoreFileIn(d string) *ignoreFile {
	if f, ok := s.ignores[d]; ok {
		return f
	}
	if s.ignores == nil {
		s.ignores = map[string]*ignoreFile{}
	}
	var f *ignoreFile
	p := filepath.Join(d, ".gitignore")
	if ft, err := readText(p, s.max); err == nil && ft.OK {
		f = &ignoreFile{dir: d, path: p}
		for i, l := range strings.Split(ft.Text, "\n") {
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			if pat, ok := parseIgnore(l, false); ok && pat.valid() {
				pat.line = i + 1
				f.list = append(f.list, pat)
			}
		}
	}
	s.ignores[d] = f
	return f
}

// gitignored returns the .gitignore pattern that leaves abs (a path inside the project root)
// out of the repository, and the .gitignore's path; nil when none does. As in git, a deeper
// .gitignore wins over a higher one, a later line over an earlier one, and a file below an
// ignored directory is ignored. Only .gitignore files are read (not .git/info/exclude or the
// user's global excludes: what they leave out is the user's own business).
func (s *Set) gitignored(abs string, isDir bool) (*ignorePattern, string) {
	rel := relSlash(abs, s.root)
	if rel == "" {
		return nil, ""
	}
	parts := strings.Split(rel, "/")
	var files []*ignoreFile
	d := s.root
	for i := 0; i < len(parts); i++ {
		if f := s.ignoreFileIn(d); f != nil {
			files = append(files, f)
		}
		d = filepath.Join(d, parts[i])
	}
	if len(files) == 0 {
		return nil, ""
	}
	cur := s.root
	for i, part := range parts {
		cur = filepath.Join(cur, part)
		dir := isDir || i < len(parts)-1
		for j := len(files) - 1; j >= 0; j-- {
			r := relSlash(cur, files[j].dir)
			if r == "" {
				continue
			}
			if m := files[j].list.decide(r, dir); m != nil {
				if !m.negate {
					return m, files[j].path
				}
				break
			}
		}
	}
	return nil, ""
}
