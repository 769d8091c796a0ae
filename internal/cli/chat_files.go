package cli

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The @ picker's file search: the project's files, as .gitignore leaves them, matched fuzzily.

// maxPickerFiles bounds the walk of a large tree; the files past it are not offered.
const maxPickerFiles = 50_000

// projectFiles lists a project's files for the picker and keeps the list for a while, so that
// typing does not walk the tree at every key.
type projectFiles struct {
	root    string
	ignored func(abs string, isDir bool) bool
	now     func() time.Time

	mu    sync.Mutex
	list  []string
	taken time.Time
}

// filesFresh is how long a listing is used before the tree is walked again.
const filesFresh = 30 * time.Second

// Find returns at most max files whose relative path matches query fuzzily (its characters in
// order, case ignored), best first: the query in the file's name, then in its path, then as a
// scattered subsequence; shorter paths first among equals. Hidden files are offered only for
// a query that starts with ".".
func (p *projectFiles) Find(query string, max int) []string {
	p.mu.Lock()
	if p.list == nil || p.now().Sub(p.taken) > filesFresh {
		p.list, p.taken = walkFiles(p.root, p.ignored), p.now()
	}
	list := p.list
	p.mu.Unlock()
	type hit struct {
		path  string
		score int
	}
	q := strings.ToLower(query)
	var hits []hit
	for _, f := range list {
		if !strings.HasPrefix(q, ".") && hidden(f) {
			continue
		}
		if s, ok := fuzzyScore(strings.ToLower(f), q); ok {
			hits = append(hits, hit{f, s})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		if len(a.path) != len(b.path) {
			return len(a.path) - len(b.path)
		}
		return strings.Compare(a.path, b.path)
	})
	var out []string
	for _, h := range hits[:min(max, len(hits))] {
		out = append(out, h.path)
	}
	return out
}

// walkFiles lists root's files, relative and slash-separated, leaving out .git and what
// ignored leaves out; at most maxPickerFiles.
func walkFiles(root string, ignored func(abs string, isDir bool) bool) []string {
	out := []string{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == root {
			return nil // an unreadable directory is left out
		}
		if d.Name() == ".git" || ignored != nil && ignored(path, d.IsDir()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			out = append(out, filepath.ToSlash(rel))
		}
		if len(out) >= maxPickerFiles {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

func hidden(rel string) bool {
	for _, el := range strings.Split(rel, "/") {
		if strings.HasPrefix(el, ".") {
			return true
		}
	}
	return false
}

// fuzzyScore scores how well q matches path (both lower case): 3 points a character for the
// query in the file's name, 2 in the path, else 1 for a subsequence, less the characters
// skipped between matches.
func fuzzyScore(path, q string) (int, bool) {
	if q == "" {
		return 0, true
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case strings.Contains(base, q):
		return 3000, true
	case strings.Contains(path, q):
		return 2000, true
	}
	gaps, at := 0, 0
	for _, r := range q {
		i := strings.IndexRune(path[at:], r)
		if i < 0 {
			return 0, false
		}
		if at > 0 {
			gaps += i
		}
		at += i + len(string(r))
	}
	return 1000 - gaps, true
}
