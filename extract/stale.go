package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/strata-mem/strata/memdir"
)

// pathExts are the extensions that make a bare word a file path.
var pathExts = map[string]bool{
	".go": true, ".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true,
	".py": true, ".rs": true, ".java": true, ".kt": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".hpp": true, ".rb": true, ".swift": true, ".cs": true, ".php": true,
	".sh": true, ".md": true, ".json": true, ".yaml": true, ".yml": true, ".toml": true,
	".txt": true, ".txtar": true, ".mod": true, ".sum": true, ".sql": true, ".proto": true,
	".html": true, ".css": true, ".xml": true, ".ini": true, ".cfg": true, ".lock": true,
}

// sourceExts are the files the symbol scan reads.
var sourceExts = map[string]bool{
	".go": true, ".js": true, ".jsx": true, ".ts": true, ".tsx": true, ".mjs": true, ".cjs": true,
	".py": true, ".rs": true, ".java": true, ".kt": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".hpp": true, ".rb": true, ".swift": true, ".cs": true, ".php": true, ".scala": true,
}

var (
	backtickRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\n]+)`") })
	pathRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\p{L}\p{N}_./@+-]+$`) })
	symbolRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$`) })
)

// Refs are the file paths and symbols a text names.
type Refs struct {
	Paths []string // relative paths as written (cleaned), checked against the project root
	// Loose are words that are paths of this project only when their first directory exists
	// there: a backticked word with a slash and no file extension ("internal/gone", but also
	// the git ref "origin/main" or the branch "feature/login-page"), or a word whose first
	// part is a host name ("github.com/x/y", "example.com/docs/a.html").
	Loose   []string
	Symbols []string // Go/JS-style symbols as written, e.g. "Store.Forget", "parseArgs()"
}

// FindRefs extracts the references of a memory text. A path is a word with a known file
// extension (anywhere), or a backticked word written as a path ("./scripts/deploy",
// "docs/"); URLs, home-relative and variable paths are skipped. A backticked word with a
// slash and nothing else that makes it a path, and a word that starts with a host name, is
// Loose. Ids, slugs, hashes and versions ("PROJ-1234", "2024-q3-roadmap", "3f9a2c1", "v1.2.3")
// are none of these. A symbol is a backticked identifier that is called ("name()"), qualified
// ("pkg.Name") or in mixed case ("parseArgs", "MaxLines"); plain lower-case words are not.
func FindRefs(text string) Refs {
	var r Refs
	seen := map[string]bool{}
	addPath := func(p string) {
		loose := false
		switch kind := pathKind(p); kind {
		case pathNone:
			return
		case pathLoose:
			loose = true
		}
		p = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(p)), "/")
		if p == "." || p == "" || seen["p:"+p] {
			return
		}
		seen["p:"+p] = true
		if loose {
			r.Loose = append(r.Loose, p)
		} else {
			r.Paths = append(r.Paths, p)
		}
	}
	ticked := map[string]bool{}
	for _, m := range backtickRE().FindAllStringSubmatch(text, -1) {
		w := strings.TrimSpace(m[1])
		ticked[w] = true
		switch {
		case isPathWord(w, true):
			addPath(w)
		case isSymbol(w):
			if !seen["s:"+w] {
				seen["s:"+w] = true
				r.Symbols = append(r.Symbols, w)
			}
		}
	}
	for _, w := range strings.FieldsFunc(text, func(c rune) bool {
		return unicode.IsSpace(c) || strings.ContainsRune("`\"'()[]<>{},;!?，。；：（）「」", c)
	}) {
		w = strings.TrimRight(w, ".:")
		if !ticked[w] && isPathWord(w, false) {
			addPath(w)
		}
	}
	return r
}

// The kinds of path word (pathKind).
const (
	pathNone  = iota // not a path
	pathSure         // a path of this project as written
	pathLoose        // a path of this project only when its first directory exists there
)

// pathKind says what a word isPathWord accepted is: a word whose first part is a host name
// ("github.com/x/y.go") is loose, and so is one with a slash and no known extension, unless
// it is written as a path ("./scripts/deploy", "docs/").
func pathKind(w string) int {
	first, _, nested := strings.Cut(w, "/")
	switch {
	case nested && hostLike(first):
		return pathLoose
	case hasPathExt(w):
		return pathSure
	case strings.HasPrefix(w, "./") || strings.HasSuffix(w, "/"):
		return pathSure
	case nested:
		return pathLoose
	}
	return pathNone
}

// hostLike reports whether a path's first part reads as a host name: a dot inside, and after
// the last dot two or more letters that are no file extension ("github.com", "golang.org",
// "k8s.io"; not "config.d" or "main.go").
func hostLike(s string) bool {
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || len(s)-i-1 < 2 || pathExts[strings.ToLower(s[i:])] {
		return false
	}
	for _, c := range s[i+1:] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func hasPathExt(w string) bool {
	ext := strings.ToLower(filepath.Ext(w))
	return pathExts[ext] && len(w) > len(ext)
}

func isPathWord(w string, ticked bool) bool {
	if w == "" || strings.Contains(w, "://") || strings.ContainsAny(w, "~$*?%") || strings.HasPrefix(w, "-") ||
		strings.HasPrefix(w, "@") || !pathRE().MatchString(w) {
		return false
	}
	if filepath.IsAbs(w) || strings.HasPrefix(w, "/") {
		return false // outside the project as written; not ours to judge
	}
	if strings.Contains(w, "..") {
		return false
	}
	if hasPathExt(w) {
		return true
	}
	return ticked && strings.Contains(strings.Trim(w, "/"), "/")
}

func isSymbol(w string) bool {
	if !symbolRE().MatchString(w) {
		return false
	}
	base := strings.TrimSuffix(w, "()")
	if strings.HasSuffix(w, "()") || strings.Contains(base, ".") {
		return true
	}
	hasUpper, hasLower := false, false
	for _, c := range base {
		hasUpper = hasUpper || unicode.IsUpper(c)
		hasLower = hasLower || unicode.IsLower(c)
	}
	return hasUpper && hasLower
}

// staleRefs returns, per memory file, the references the project at opts.Root does not have: a
// path counts as present at the root or at the end of any file's path in the project.
// A bare file name in own (the memory directory's index and topic files) names the memory
// store, not the project: a memory citing a sibling memory or MEMORY.md is not stale.
func staleRefs(ctx context.Context, opts Options, mems []memdir.Memory, own map[string]bool) (map[string][]string, error) {
	refs := map[string]Refs{}
	wanted := map[string]bool{}
	for _, m := range mems {
		r := FindRefs(m.Description + "\n" + m.Body)
		refs[m.File] = r
		for _, s := range r.Symbols {
			wanted[symbolName(s)] = true
			if q := qualifier(s); q != "" {
				wanted[q] = true
			}
		}
	}
	var sc scanResult
	if len(wanted) > 0 {
		var err error
		sc, err = scanSymbols(ctx, opts, wanted)
		if err != nil {
			return nil, err
		}
	}
	out := map[string][]string{}
	var tree *projectTree
	for _, m := range mems {
		r := refs[m.File]
		var missing []string
		for _, p := range r.Paths {
			if own[p] {
				continue
			}
			_, err := os.Lstat(filepath.Join(opts.Root, filepath.FromSlash(p)))
			if !errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if tree == nil {
				tree = walkTree(ctx, opts)
			}
			if !tree.has(p) {
				missing = append(missing, p)
			}
		}
		// A loose path is this project's only under a directory the project has: "origin/main"
		// and "github.com/x/y" are not, "internal/gone" is when internal/ exists.
		for _, p := range r.Loose {
			first, _, _ := strings.Cut(p, "/")
			if fi, err := os.Stat(filepath.Join(opts.Root, filepath.FromSlash(first))); err != nil || !fi.IsDir() {
				continue
			}
			_, err := os.Lstat(filepath.Join(opts.Root, filepath.FromSlash(p)))
			if errors.Is(err, fs.ErrNotExist) {
				missing = append(missing, p)
			}
		}
		for _, s := range r.Symbols {
			name := symbolName(s)
			if sc.found[name] || sc.truncated {
				continue
			}
			// A qualified name is ours only when its qualifier is a directory of the project
			// (a local package); "os.OpenRoot" is the standard library's business.
			if q := qualifier(s); q != "" && !sc.dirs[q] && !sc.found[q] {
				continue
			}
			missing = append(missing, s)
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			out[m.File] = missing
		}
	}
	return out, nil
}

// projectTree is the project's files by relative path, for references not at the root:
// "parse.go" or "cmd/main.go" written from inside a subdirectory.
type projectTree struct {
	byBase    map[string][]string // base name → relative paths
	n         int
	truncated bool // too many files to hold: every reference counts as found
}

// walkTree lists the project's files (hidden directories, node_modules and vendor skipped) up to
// the scan's file bound.
func walkTree(ctx context.Context, opts Options) *projectTree {
	limit := opts.MaxScanFiles
	if limit == 0 {
		limit = DefaultMaxScanFiles
	}
	t := &projectTree{byBase: map[string][]string{}}
	filepath.WalkDir(opts.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || ctx.Err() != nil {
			return nil
		}
		if d.IsDir() {
			if path != opts.Root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if t.n >= limit {
			t.truncated = true
			return filepath.SkipAll
		}
		if rel, err := filepath.Rel(opts.Root, path); err == nil {
			t.byBase[d.Name()] = append(t.byBase[d.Name()], filepath.ToSlash(rel))
			t.n++
		}
		return nil
	})
	return t
}

// has reports whether some file of the project is p or ends in "/"+p.
func (t *projectTree) has(p string) bool {
	if t.truncated {
		return true
	}
	for _, q := range t.byBase[path.Base(p)] {
		if q == p || strings.HasSuffix(q, "/"+p) {
			return true
		}
	}
	return false
}

// skippedDir reports whether a project walk leaves out a directory: hidden ones, node_modules
// and vendor (what the project did not write).
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor"
}

// symbolName is the identifier looked for: the last component, without "()".
func symbolName(s string) string {
	s = strings.TrimSuffix(s, "()")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func qualifier(s string) string {
	s = strings.TrimSuffix(s, "()")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return s[:i]
	}
	return ""
}

type scanResult struct {
	found     map[string]bool
	dirs      map[string]bool
	files     int
	bytes     int64
	truncated bool
}

// scanSymbols walks the project's source files (hidden directories, node_modules and vendor
// skipped; symlinks not followed; files over 1 MiB skipped) within the file and byte bounds and
// reports which wanted identifiers occur, and the directory names seen.
func scanSymbols(ctx context.Context, opts Options, wanted map[string]bool) (scanResult, error) {
	maxFiles, maxBytes := opts.MaxScanFiles, opts.MaxScanBytes
	if maxFiles == 0 {
		maxFiles = DefaultMaxScanFiles
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxScanBytes
	}
	res := scanResult{found: map[string]bool{}, dirs: map[string]bool{}}
	errStop := errors.New("stop")
	err := filepath.WalkDir(opts.Root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == opts.Root {
				return err
			}
			return nil // unreadable corners do not stop the scan
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		name := d.Name()
		if d.IsDir() {
			if path != opts.Root && skippedDir(name) {
				return filepath.SkipDir
			}
			res.dirs[name] = true
			return nil
		}
		if !d.Type().IsRegular() || !sourceExts[strings.ToLower(filepath.Ext(name))] {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > memdir.MaxFileBytes {
			return nil
		}
		if res.files >= maxFiles || res.bytes+info.Size() > maxBytes {
			res.truncated = true
			return errStop
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		res.files++
		res.bytes += int64(len(data))
		for _, id := range identifiers(data) {
			if wanted[id] && !res.found[id] {
				res.found[id] = true
			}
		}
		if len(res.found) == len(wanted) {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return res, fmt.Errorf("extract: scan %s: %w", opts.Root, err)
	}
	return res, nil
}

func identifiers(data []byte) []string {
	var out []string
	start := -1
	for i := 0; i <= len(data); i++ {
		ok := i < len(data) && (data[i] == '_' || data[i] == '$' || data[i] >= 'a' && data[i] <= 'z' ||
			data[i] >= 'A' && data[i] <= 'Z' || data[i] >= '0' && data[i] <= '9')
		if ok && start < 0 {
			start = i
		} else if !ok && start >= 0 {
			out = append(out, string(data[start:i]))
			start = -1
		}
	}
	return out
}
