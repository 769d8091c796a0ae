package instructions

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/tokens"
)

// Set is the instruction text that applies to one working directory: what was loaded at
// session start, plus what later touches added. Create one with Load.
type Set struct {
	mu       sync.Mutex
	env      config.Env
	loadOpts Options // the caller's file names, excludes, approvals and budget
	log      *slog.Logger
	max      int64
	cwd      string   // working directory, symlinks resolved
	root     string   // project root, symlinks resolved
	home     string   // STRATA_HOME, resolved on first need (realHome)
	homeDone bool     // home is resolved
	names    []string // instruction file names per directory, without CLAUDE.local.md
	rulesAt  int      // index in names before which .claude/rules is read
	agents   bool     // AGENTS.md files are read (no CLAUDE.md on the way: agentsFile)

	start    []Source // session start, in load order
	automem  []Source // the auto-memory index (0 or 1 piece), then the mounted stores' indexes
	touched  []Source // added by Touch and LoadAll, in order
	enforced []enforcedBlock
	diags    []Diagnostic
	loaded   []*ident               // every file loaded, for identity checks
	pending  []*rule                // conditional rules not yet applied
	dirSeen  map[string]bool        // directories whose instruction files were looked for (firstVisit)
	realDirs map[string]string      // realDir's answers for directories that are not above cwd
	ignores  map[string]*ignoreFile // .gitignore of a directory (nil: none), read on first need
	base     base                   // the working directory, open during Load only
}

// Load finds and reads the instruction files that apply to a session started in cwd. It fails
// only when cwd is not a readable directory or ctx is done; every problem with an instruction
// file is a diagnostic on the returned Set, and loading goes on past it.
func Load(ctx context.Context, cwd string, opts Options) (*Set, error) {
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("instructions: working directory %s: %w", cwd, err)
	}
	r, d, err := fastio.ResolveDir(abs)
	if err != nil {
		return nil, fmt.Errorf("instructions: working directory: %w", err)
	}
	abs = r
	s := &Set{
		env:      opts.Env,
		loadOpts: opts,
		log:      opts.Logger,
		max:      opts.MaxFileBytes,
		cwd:      abs,
		base:     base{d: d, dir: abs},
		// Room for the pieces of a few levels, so that the slices grow once or twice, not
		// at every piece.
		start:  make([]Source, 0, 8),
		loaded: make([]*ident, 0, 8),
	}
	// The working directory stays open while the session-start files are read: names near it
	// are looked up relative to it, which costs fewer path elements.
	defer s.closeBase()
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.max <= 0 {
		s.max = DefaultMaxFileBytes
	}
	s.root = opts.ProjectRoot
	if s.root == "" {
		s.root, _ = s.workTree(abs)
	} else if !within(abs, filepath.Clean(s.root)) {
		// A root above the working directory is already resolved (every directory above a
		// resolved path is); only another one is looked up.
		if r, err := filepath.EvalSymlinks(s.root); err == nil {
			s.root = r
		}
	}
	s.root = filepath.Clean(s.root)
	s.diags = append(s.diags, opts.Diagnostics...)
	s.setNames()

	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.env.ManagedDir; d != "" && !absentDir(d) {
		s.start = s.loadTop(ctx, s.start, filepath.Clean(d), "CLAUDE.md", LayerManaged, ReasonSessionStart, "")
		s.start = s.loadRules(ctx, s.start, filepath.Join(d, "rules"), s.cwd, LayerManaged, ReasonSessionStart, "")
	}
	if d := s.env.Home; d != "" {
		s.start = s.loadTop(ctx, s.start, filepath.Clean(d), "CLAUDE.md", LayerUser, ReasonSessionStart, "")
		s.start = s.loadRules(ctx, s.start, filepath.Join(d, "rules"), s.cwd, LayerUser, ReasonSessionStart, "")
	}
	dirs := chain(abs)
	s.agents = len(s.loadOpts.FileNames) == 0 && !slices.ContainsFunc(dirs, s.hasClaudeMd)
	for _, d := range dirs {
		if err := ctx.Err(); err != nil {
			return s, fmt.Errorf("instructions: load %s: %w", abs, err)
		}
		s.start = s.loadDir(ctx, s.start, d, false, "")
	}
	if s.log.Enabled(ctx, slog.LevelDebug) {
		s.log.Debug("instructions loaded", "cwd", abs, "root", s.root, "pieces", len(s.start), "pending_rules", len(s.pending), "diagnostics", len(s.diags))
	}
	return s, ctx.Err()
}

// absentDir reports that d is not a directory, so nothing below it needs looking for: one
// probe instead of one per name (the managed directory is absent on most machines). A
// directory that cannot be examined is not absent: reading below it reports why.
func absentDir(d string) bool {
	m, err := statType(d, false)
	if err != nil {
		return notFound(err)
	}
	return !m.IsDir()
}

// closeBase closes the working directory's descriptor.
func (s *Set) closeBase() {
	if s.base.d != nil {
		s.base.d.Close()
		s.base.d = nil
	}
}

// Roots is where a working directory lies.
type Roots struct {
	// Dir is the working directory, symlinks resolved.
	Dir string
	// Tree is the working tree that holds Dir: the nearest directory with a .git entry (for a
	// linked worktree, where .git is a file, the worktree itself), else Dir. It is the project
	// root of the instruction files: their imports, rule globs and settings.
	Tree string
	// Root is the canonical project root (config.ProjectRoot): Tree, or for a linked worktree
	// the main working tree of its repository, so that every worktree shares one memory.
	Root string
}

// FindRoots finds Roots at the cost of the instruction loader: cwd is resolved with one system
// call where the kernel allows it, and .git is looked for relative to it. It fails when cwd is
// not a directory. Callers that read settings before Load use it to find the roots cheaply.
func FindRoots(cwd string) (Roots, error) {
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return Roots{}, fmt.Errorf("instructions: working directory %s: %w", cwd, err)
	}
	r, d, err := fastio.ResolveDir(abs)
	if err != nil {
		return Roots{}, fmt.Errorf("instructions: working directory: %w", err)
	}
	s := &Set{base: base{d: d, dir: r}}
	defer s.closeBase()
	tree, linked := s.workTree(r)
	root := tree
	if linked {
		root = config.ProjectRoot(tree)
	}
	return Roots{Dir: r, Tree: tree, Root: root}, nil
}

// ProjectRoot is config.ProjectRoot(cwd) at the cost of the instruction loader (see
// FindRoots): it returns cwd with its symlinks resolved, and the canonical project root.
func ProjectRoot(cwd string) (dir, root string, err error) {
	r, err := FindRoots(cwd)
	return r.Dir, r.Root, err
}

// workTree returns the nearest directory at or above abs (symlinks resolved) that holds .git,
// and whether .git there is a file (a linked worktree or a submodule); abs itself when there is
// none.
func (s *Set) workTree(abs string) (string, bool) {
	for d := abs; ; {
		m, err := statAt(&s.base, d, ".git", true)
		if err == nil {
			return d, !m.IsDir()
		}
		p := filepath.Dir(d)
		if p == d {
			return abs, false
		}
		d = p
	}
}

// setNames takes the per-directory file names from the options and finds where rules go.
func (s *Set) setNames() {
	names := s.loadOpts.FileNames
	if len(names) == 0 {
		names = DefaultInstructionFiles
	}
	s.names = s.names[:0]
	for _, n := range names {
		n = filepath.Clean(filepath.FromSlash(n))
		if n == LocalFile || n == "." || filepath.IsAbs(n) || strings.HasPrefix(n, "..") {
			continue
		}
		s.names = append(s.names, n)
	}
	s.rulesAt = 0
	for i, n := range s.names {
		if n == "CLAUDE.md" || strings.HasPrefix(filepath.ToSlash(n), ".claude/") {
			s.rulesAt = i + 1
		}
	}
}

// chain lists the directories from the filesystem root down to dir.
func chain(dir string) []string {
	var ds []string
	for d := dir; ; {
		ds = append(ds, d)
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	for i, j := 0, len(ds)-1; i < j; i, j = i+1, j-1 {
		ds[i], ds[j] = ds[j], ds[i]
	}
	return ds
}

// loadDir loads one directory's instruction files, rules and local file. Like every load
// method, it appends the pieces to out and returns it (one slice grows, no slice per file).
func (s *Set) loadDir(ctx context.Context, out []Source, d string, nested bool, trigger string) []Source {
	layer, local, reason := LayerProject, LayerLocal, ReasonSessionStart
	if nested {
		layer, local, reason = LayerNested, LayerNested, ReasonNestedTraversal
	}
	// One stat of .claude saves looking inside it in the many directories that have none.
	m, err := statAt(&s.base, d, ".claude", false)
	dotClaude := err == nil && m.IsDir()
	for i, n := range s.names {
		if i == s.rulesAt && dotClaude {
			out = s.loadRules(ctx, out, filepath.Join(d, ".claude", "rules"), d, LayerRule, reason, trigger)
		}
		if !dotClaude && strings.HasPrefix(n, ".claude"+string(filepath.Separator)) {
			continue
		}
		if n == agentsFile && len(s.loadOpts.FileNames) == 0 && (nested && trigger != "" || !nested && !s.agents) {
			continue
		}
		out = s.loadTop(ctx, out, d, n, layer, reason, trigger)
	}
	if s.rulesAt == len(s.names) && dotClaude {
		out = s.loadRules(ctx, out, filepath.Join(d, ".claude", "rules"), d, LayerRule, reason, trigger)
	}
	return s.loadTop(ctx, out, d, LocalFile, local, reason, trigger)
}

// agentsFile is read, with the default file names, as Claude Code 2.1.328 reads it: only when no
// directory from the root to the working directory has a CLAUDE.md, a .claude/CLAUDE.md or a
// non-empty CLAUDE.local.md (Set.agents), and never on a touch (lint still reads a nested one,
// for the agents that do).
const agentsFile = "AGENTS.md"

// hasClaudeMd reports whether dir has a CLAUDE.md, a .claude/CLAUDE.md or a non-empty
// CLAUDE.local.md.
func (s *Set) hasClaudeMd(dir string) bool {
	for _, n := range []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md")} {
		if m, err := statAt(&s.base, dir, n, false); err == nil && m.IsRegular() {
			return true
		}
	}
	fi, err := os.Stat(filepath.Join(dir, LocalFile))
	return err == nil && fi.Mode().IsRegular() && fi.Size() > 0
}

// open reads a candidate file and applies the checks every instruction file gets: readable,
// text, not excluded, not already loaded. ok is false when the file is not to be used.
func (s *Set) open(path string, layer Layer) (fileText, bool) {
	ft, err := readText(path, s.max)
	return s.accept(path, layer, ft, err)
}

// openIn is open of dir/name; it returns the path too, made only when there is a file.
func (s *Set) openIn(dir, name string, layer Layer) (string, fileText, bool) {
	ft, path, err := readTextIn(&s.base, dir, name, s.max)
	ft, ok := s.accept(path, layer, ft, err)
	return path, ft, ok
}

// accept applies the checks of open to a file read from path.
func (s *Set) accept(path string, layer Layer, ft fileText, err error) (fileText, bool) {
	if err != nil {
		return ft, false
	}
	if ft.Diag != nil {
		s.diags = append(s.diags, *ft.Diag)
	}
	if !ft.OK {
		return ft, false
	}
	if layer != LayerManaged {
		if g := s.excluded(path); g != "" {
			s.addf(path, 0, SeverityInfo, "skipped: matches claudeMdExcludes %q", g)
			return ft, false
		}
	}
	if prev := s.seen(ft.ID); prev != nil {
		if prev.path == path {
			// Found by name again (the .claude directory of a nested search finds the
			// .claude/CLAUDE.md already loaded): nothing worth saying unless an import has it.
			if prev.imported {
				s.addf(path, 0, SeverityInfo, "already loaded through an @import; not repeated")
			}
		} else {
			s.addf(path, 0, SeverityInfo, "same file as %s, already loaded; not repeated", prev.path)
		}
		return ft, false
	}
	return ft, true
}

// loadTop loads dir/name, a file found by name (not through an import), appending to out.
func (s *Set) loadTop(ctx context.Context, out []Source, dir, name string, layer Layer, reason Reason, trigger string) []Source {
	path, ft, ok := s.openIn(dir, name, layer)
	if !ok {
		return out
	}
	body, line := s.body(path, ft.Text)
	if strings.TrimSpace(body) == "" {
		return out // an empty file adds nothing, and Claude Code does not list it
	}
	return s.emit(ctx, out, path, layer, reason, trigger, ft, body, line, 0, nil, "")
}

// body drops frontmatter (reporting a malformed block) and returns the body and its first line.
func (s *Set) body(path, text string) (string, int) {
	if !strings.HasPrefix(text, "---") {
		return text, 1
	}
	doc, err := frontmatter.Parse([]byte(text))
	if err != nil {
		s.frontmatterDiag(path, err, "")
	}
	return doc.Body, doc.BodyLine
}

func (s *Set) frontmatterDiag(path string, err error, suffix string) {
	line := 1
	var fe *frontmatter.Error
	msg := err.Error()
	if errors.As(err, &fe) {
		line, msg = fe.Line, fe.Msg
	}
	s.addf(path, line, SeverityError, "%s%s", msg, suffix)
}

// emit appends a read file's piece to out, followed by the pieces of its imports.
func (s *Set) emit(ctx context.Context, out []Source, path string, layer Layer, reason Reason, trigger string, ft fileText,
	body string, bodyLine, depth int, chain []*ident, importedBy string) []Source {
	s.loaded = append(s.loaded, ft.ID)
	if len(ft.Text) > WarnChars {
		if n := tokens.Chars(ft.Text); n > WarnChars { // as Claude Code counts: UTF-16 units
			s.addf(path, 0, SeverityWarning, "%d characters, over the recommended %d: every session pays for it; split it or move parts into path-scoped rules", n, WarnChars)
		}
	}
	if target := linkText(path, ft.Text); target != "" {
		s.addf(path, 1, SeverityWarning, "the whole file is the path %q: probably a symlink checked out as a plain file (git core.symlinks=false); the model sees the path, not %s — recreate the link or use @%s", strings.TrimSpace(ft.Text), target, strings.TrimSpace(ft.Text))
	}
	body = s.withholdSecrets(path, body, bodyLine)
	if layer == LayerManaged {
		s.collectEnforced(path, body, bodyLine)
	}
	sc := scan(body, bodyLine)
	src := Source{Path: path, Layer: layer, Reason: reason, Bytes: len(sc.Text), Tokens: tokens.Estimate(sc.Text),
		Truncated: ft.Truncated, Text: sc.Text, ImportedBy: importedBy, Depth: depth, Trigger: trigger}
	out = append(out, src)
	if len(sc.Imports) == 0 {
		return out
	}
	chain = append(chain[:len(chain):len(chain)], ft.ID)
	for _, r := range sc.Imports {
		if ctx.Err() != nil {
			break
		}
		out = s.importOne(ctx, out, path, r, depth, chain, trigger)
	}
	return out
}

// seen returns the identity under which the file id was already loaded (its path is the name
// it was loaded under), or nil.
func (s *Set) seen(id *ident) *ident {
	for _, l := range s.loaded {
		if sameFile(l, id) {
			return l
		}
	}
	return nil
}

// firstVisit reports whether the instruction files of directory d are yet to be looked for,
// and records that they now are.
func (s *Set) firstVisit(d string) bool {
	if s.dirSeen[d] {
		return false
	}
	if s.dirSeen == nil {
		s.dirSeen = map[string]bool{}
	}
	s.dirSeen[d] = true
	return true
}

func (s *Set) addf(path string, line int, sev Severity, format string, args ...any) {
	s.diags = append(s.diags, Diagnostic{Path: path, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
}

// ownChain reports whether an import chain starts in the user's or the managed instructions
// (STRATA_HOME, the managed dir): their author may import from anywhere, as in Claude Code,
// where a user's CLAUDE.md imports @~/notes/x.md.
func (s *Set) ownChain(chain []*ident) bool {
	if len(chain) == 0 {
		return false
	}
	top := chain[0].path
	if h := s.realHome(); h != "" && (within(top, h) || within(top, filepath.Clean(s.env.Home))) {
		return true
	}
	return s.env.ManagedDir != "" && within(top, filepath.Clean(s.env.ManagedDir))
}

// resolveAllowed is filepath.EvalSymlinks(d), or d when that fails, in fewer system calls:
// a directory reached without a symlink, or a path missing before any symlink, is answered by
// one openat2 (fastio.ResolveDir) instead of one lstat per path element. Anything else (a
// file, a denied lookup) takes EvalSymlinks's own route.
func resolveAllowed(d string) string {
	r, dir, err := fastio.ResolveDir(d)
	if err == nil {
		if dir != nil {
			dir.Close()
		}
		return r
	}
	if errors.Is(err, fs.ErrNotExist) {
		return d // EvalSymlinks fails on a missing element too
	}
	if r, err := filepath.EvalSymlinks(d); err == nil {
		return r
	}
	return d
}

// importOne resolves and loads one import candidate of the file from, appending to out.
func (s *Set) importOne(ctx context.Context, out []Source, from string, r importRef, depth int, chain []*ident, trigger string) []Source {
	p := r.Path
	var abs string
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if s.env.UserHome == "" {
			s.addf(from, r.Line, SeverityError, "@%s: no home directory is known to resolve ~/", p)
			return out
		}
		abs = expandTilde(p, s.env.UserHome)
	case filepath.IsAbs(p):
		abs = filepath.Clean(p)
	default:
		abs = filepath.Join(filepath.Dir(from), filepath.FromSlash(p))
	}
	fail := func(sev Severity, format string, args ...any) []Source {
		s.addf(from, r.Line, sev, "@%s: %s", p, fmt.Sprintf(format, args...))
		return out
	}
	if r.Glob {
		return fail(SeverityWarning, "a glob: an import names one file, so this loads nothing (as in Claude Code); import the files one by one, or make them rules under .claude/rules/")
	}
	h, real, err := s.openImport(abs)
	if err != nil {
		if notFound(err) {
			if !fileLike(p) {
				return out // not meant as a path: an npm scope, a decorator, an alias …
			}
			if pat, file := s.gitignored(abs, false); pat != nil {
				return fail(SeverityWarning, "no such file (%s); %s:%d leaves it out of the repository (%q), so it is generated or kept locally and a fresh clone lacks it until it is made", abs, file, pat.line, pat.text)
			}
			return fail(SeverityError, "no such file (%s)%s", abs, s.rootHint(from, p, abs))
		}
		return fail(SeverityError, "cannot read %s: %s", abs, errText(err))
	}
	defer h.close()
	// An import refused for its path is only fstat'ed, never read; any other is read now, and
	// reading tells what it is (see handle.load).
	ext := strings.ToLower(extension(abs))
	homeWhy := s.homeImportRefusal(abs, real)
	outside := !s.ownChain(chain) && !within(real, s.cwd) && !s.approved(abs, real)
	inGit := fsutil.InGitDir(s.cwd, abs) || fsutil.InGitDir(s.cwd, real)
	refused := depth+1 > MaxImportDepth || outside || homeWhy != "" || inGit || binaryExt(ext) || s.excluded(abs) != ""
	if refused {
		err = h.stat()
	} else {
		err = h.load(s.max)
	}
	if err != nil {
		if refused {
			return fail(SeverityError, "cannot read %s: %s", abs, errText(err))
		}
		s.addf(abs, 0, SeverityError, "unreadable: %s (imported from %s:%d)", errText(err), from, r.Line)
		return out
	}
	if h.mode.IsDir() {
		if explicitPath(p) || strings.Contains(p, "/") {
			// Prose that names a directory ("@packages/app"): Claude Code ignores it too.
			return fail(SeverityInfo, "%s is a directory; only files are imported, so it loads nothing", abs)
		}
		return out
	}
	if !h.mode.IsRegular() {
		return fail(SeverityError, "%s is %s; only regular text files can be imported", abs, fsutil.Kind(h.mode))
	}
	id := h.ident(abs)
	for i, l := range chain {
		if sameFile(l, id) {
			names := make([]string, 0, len(chain)-i+1)
			for _, c := range chain[i:] {
				names = append(names, c.path)
			}
			names = append(names, abs)
			return fail(SeverityError, "import cycle: %s; not loaded again", strings.Join(names, " → "))
		}
	}
	if prev := s.seen(id); prev != nil {
		if prev.path == abs {
			return fail(SeverityInfo, "%s is already loaded; not repeated", abs)
		}
		return fail(SeverityInfo, "%s is already loaded (as %s); not repeated", abs, prev.path)
	}
	if depth+1 > MaxImportDepth {
		return fail(SeverityError, "import chain deeper than %d hops; %s not loaded", MaxImportDepth, abs)
	}
	if homeWhy != "" {
		return fail(SeverityError, "%s", homeWhy)
	}
	if inGit {
		return fail(SeverityError, "refused: %s is under .git, which holds git's configuration and credentials; it is never imported", abs)
	}
	if outside {
		return fail(SeverityError, "refused: %s is outside the working directory (%s), where Claude Code too drops an import until it is approved; to allow it, add it to approvedExternalImports in your user settings ($STRATA_HOME/settings.json: a project's settings may not approve imports)", real, s.cwd)
	}
	if binaryExt(ext) {
		return fail(SeverityError, "%s is not a text file (.%s); only text files can be imported", abs, ext)
	}
	if g := s.excluded(abs); g != "" {
		return fail(SeverityInfo, "%s skipped: matches claudeMdExcludes %q", abs, g)
	}
	ft := h.text(abs)
	if ft.Diag != nil {
		d := *ft.Diag
		d.Message += fmt.Sprintf(" (imported from %s:%d)", from, r.Line)
		s.diags = append(s.diags, d)
	}
	if !ft.OK {
		return out
	}
	body, line := s.body(abs, ft.Text)
	ft.ID.imported = true
	return s.emit(ctx, out, abs, LayerImport, ReasonInclude, trigger, ft, body, line, depth+1, chain, from)
}

// openImport opens an import target and returns it with its resolved path. A symlink as the
// last element is detected by the failed no-follow open, so the common case costs no lstat.
func (s *Set) openImport(abs string) (*handle, string, error) {
	dir := filepath.Dir(abs)
	h, err := openHandleIn(&s.base, dir, filepath.Base(abs))
	if err == nil {
		return h, under(s.realDir(dir), filepath.Base(abs)), nil
	}
	if !isSymlinkErr(err) {
		return nil, "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if strings.Contains(err.Error(), "too many links") {
			err = &fs.PathError{Op: "open", Path: abs, Err: syscall.ELOOP}
		}
		return nil, "", err
	}
	// What a symlink points to may be a device: fstat it before anything is read.
	if h, err = openHandle(real, false); err != nil {
		return nil, "", err
	}
	if err := h.stat(); err != nil {
		h.close()
		return nil, "", err
	}
	return h, real, nil
}

// rootHint explains a missing relative import that exists relative to the project root, a
// common mistake: imports are relative to the importing file.
func (s *Set) rootHint(from, p, abs string) string {
	rootRel, explicit := strings.CutPrefix(p, "./")
	if !explicit && explicitPath(p) || filepath.IsAbs(p) {
		return "" // "../x" and "~/x" say where they mean
	}
	alt := filepath.Join(s.root, filepath.FromSlash(rootRel))
	if alt == abs {
		return ""
	}
	if fi, err := os.Stat(alt); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	rel, err := filepath.Rel(filepath.Dir(from), alt)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("; imports are relative to the importing file, and %s exists: write @%s", alt, filepath.ToSlash(rel))
}

// Touch tells the set that path (absolute, or relative to the working directory) was accessed
// and returns the pieces that newly apply: instruction files of directories between the working
// directory and path, and of path itself when it is a directory (once each), and conditional
// rules whose globs match path (once each), with their imports. A path outside the working
// directory adds rules only: nested files are for directories below it. Touching the same path
// again returns nothing. path need not exist.
func (s *Set) Touch(ctx context.Context, path string) []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.touch(ctx, path)
}

func (s *Set) touch(ctx context.Context, path string) []Source {
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.cwd, p)
	}
	p = filepath.Clean(p)
	if !within(p, s.cwd) && !within(p, s.root) {
		// Perhaps a spelling through a symlink of a path inside.
		if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
			p = filepath.Join(r, filepath.Base(p))
		}
	}
	var out []Source
	if len(p) > len(s.cwd)+1 && within(p, s.cwd) {
		start := len(s.cwd) + 1
		if s.cwd == string(filepath.Separator) {
			start = 1
		}
		for i := start; i < len(p); i++ {
			if p[i] != filepath.Separator {
				continue
			}
			if d := p[:i]; s.firstVisit(d) {
				out = s.loadDir(ctx, out, d, true, p)
			}
		}
		// A touched directory (a glob or grep hit, a listing) counts as being under itself.
		if s.firstVisit(p) {
			if m, err := statType(p, false); err == nil && m.IsDir() {
				out = s.loadDir(ctx, out, p, true, p)
			}
		}
	}
	if len(s.pending) > 0 {
		keep := s.pending[:0]
		var hit []*rule
		isDir := sync.OnceValue(func() bool { m, err := statType(p, false); return err == nil && m.IsDir() })
		for _, r := range s.pending {
			if r.matches(p, isDir) {
				hit = append(hit, r)
			} else {
				keep = append(keep, r)
			}
		}
		s.pending = keep
		for _, r := range hit {
			out = s.emitRule(ctx, out, r, ReasonPathGlobMatch, p)
		}
	}
	s.touched = append(s.touched, out...)
	if len(out) > 0 {
		s.log.Debug("instructions touched", "path", p, "added", len(out))
	}
	return out
}

// AddAutomem adds the auto-memory index (MEMORY.md, produced by the memdir layer) as the last
// session-start piece, with layer automem. text is the index cut to its limits (truncated says
// whether it was), less its frontmatter and block comments (indexText); diags are kept with the set's own. Calling it
// again replaces the previous index, and the mounted stores' (AddStoreIndex) with it.
func (s *Set) AddAutomem(path, text string, truncated bool, diags ...Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text = s.indexText(path, text)
	s.automem = []Source{{Path: path, Layer: LayerAutomem, Reason: ReasonSessionStart, Bytes: len(text),
		Tokens: tokens.Estimate(text), Truncated: truncated, Text: text}}
	s.diags = append(s.diags, diags...)
}

// indexText is a memory index as the model gets it, as Claude Code sends it: without its
// frontmatter (read as every instruction file's, a malformed block reported) and block-level
// HTML comments. The caller holds s.mu.
func (s *Set) indexText(path, text string) string {
	body, _ := s.body(path, text)
	return StripComments(body)
}

// IndexView is a memory index as the model reads it, before any limit cuts it: without its
// frontmatter and block-level HTML comments (Claude Code strips them first, so they take no
// line of the 200). A malformed frontmatter block is kept, for indexText to report.
func IndexView(text string) string {
	if strings.HasPrefix(text, "---") {
		doc, err := frontmatter.Parse([]byte(text))
		if err != nil {
			return StripComments(text)
		}
		text = doc.Body
	}
	return StripComments(text)
}

// AddStoreIndex adds the index of a mounted memory store after the auto-memory index, as
// another automem piece whose Store names the store (Render says it; strata context shows
// it). The caller has cut text to the store's share of the one index budget.
func (s *Set) AddStoreIndex(store, path, text string, truncated bool, diags ...Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	text = s.indexText(path, text)
	s.automem = append(s.automem, Source{Path: path, Layer: LayerAutomem, Reason: ReasonSessionStart, Bytes: len(text),
		Tokens: tokens.Estimate(text), Truncated: truncated, Text: text, Store: store})
	s.diags = append(s.diags, diags...)
}

// Cwd returns the working directory the set was loaded for (symlinks resolved).
func (s *Set) Cwd() string { return s.cwd }

// ProjectRoot returns the project root used for globs and import checks.
func (s *Set) ProjectRoot() string { return s.root }

// Diagnostics returns every diagnostic so far, in the order found (budget cuts last).
func (s *Set) Diagnostics() []Diagnostic {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, cut := s.view()
	out := make([]Diagnostic, 0, len(s.diags)+len(cut))
	out = append(out, s.diags...)
	return append(out, cut...)
}

// Sources returns every piece in load order, with the budget applied: session start, the
// auto-memory index, what touches added, and the repeat of enforced managed blocks.
func (s *Set) Sources() []Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, _ := s.view()
	return v
}

// Tokens returns the estimated tokens of every piece (budget applied).
func (s *Set) Tokens() int {
	n := 0
	for _, src := range s.Sources() {
		n += src.Tokens
	}
	return n
}

// PendingRules returns the paths of conditional rules that no touch has matched yet, sorted.
func (s *Set) PendingRules() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]string, 0, len(s.pending))
	for _, r := range s.pending {
		out = append(out, r.path)
	}
	sort.Strings(out)
	return out
}

// AddDiagnostics records problems found by a caller about pieces it supplies (for example an
// unreadable auto-memory index), so they are reported with the set's own.
func (s *Set) AddDiagnostics(diags ...Diagnostic) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.diags = append(s.diags, diags...)
}

// linkText reports the file that text names when text is nothing but one relative path to an
// existing regular file next to path: what git writes in place of a symlink when symlinks are
// off. It returns "" otherwise. Only tiny files are checked, so it costs one stat at most.
func linkText(path, text string) string {
	t := strings.TrimSpace(text)
	if t == "" || len(t) > 255 || strings.ContainsAny(t, " \t\n\r`*#<>|") || filepath.IsAbs(t) {
		return ""
	}
	target := filepath.Join(filepath.Dir(path), t)
	if fi, err := os.Stat(target); err != nil || !fi.Mode().IsRegular() || filepath.Clean(target) == filepath.Clean(path) {
		return ""
	}
	return target
}
