package memdir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/termtext"
)

// ErrBadType is wrapped by the error returned when Add is given a type other than user,
// feedback, project or reference.
var ErrBadType = errors.New("bad memory type")

// ErrTooLarge is wrapped by the error returned when a memory would exceed MaxFileBytes.
var ErrTooLarge = errors.New("memory too large")

// ErrBinary is wrapped by the error returned when a memory's text holds a NUL byte: the
// store's reader takes such a file for binary, not a memory.
var ErrBinary = errors.New("memory text holds a NUL byte")

// ErrUnsafePath is wrapped by the error returned when a write would go through or over a
// symlink, or into something that is not a directory.
var ErrUnsafePath = errors.New("unsafe path in the memory dir")

// Input is what Add writes: one memory.
type Input struct {
	Name        string // required; see ValidateName
	Description string // one line; line breaks become spaces
	Type        Type   // user, feedback, project or reference
	Body        string // markdown
	// Author is who writes the memory ("Name <email>", or a user name), recorded as the
	// frontmatter key author: the team MCP server sets it from the caller's token, and a synced
	// store's commit takes it as its author. Empty leaves the key as the file has it.
	Author string
}

// Result says what a write did.
type Result struct {
	File    string // topic file relative to the memory dir ("" in daily-log mode)
	Path    string // absolute path written (the day's log in daily-log mode)
	Created bool   // a new topic file (false: an existing memory was replaced)
	Logged  bool   // appended to the daily log instead of a topic file
	Index   bool   // MEMORY.md changed
	// Name is the memory's name as written: the name given, or, when it only looked like an
	// existing memory's name (NameKey), that memory's name, which a write keeps ("" in
	// daily-log mode).
	Name string
	// Kept is where in the archive the replaced text of that memory was kept, when a name
	// that only looked like its name replaced it ("" otherwise): the writer may not have meant
	// that memory, so Restore can put it back (an ActionReplace record in the archive log).
	Kept string
}

// Render returns the topic file content for in: YAML frontmatter with name, description, type,
// author (when given) and modified, then the body (ending in a newline).
func Render(in Input, modified time.Time) ([]byte, error) {
	fm := struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Type        Type   `yaml:"type"`
		Author      string `yaml:"author,omitempty"`
		Modified    string `yaml:"modified,omitempty"`
	}{in.Name, termtext.OneLine(in.Description), in.Type, termtext.OneLine(in.Author), ""}
	if !modified.IsZero() {
		fm.Modified = modified.UTC().Format(time.RFC3339)
	}
	y, err := yaml.Marshal(fm)
	if err != nil {
		return nil, fmt.Errorf("memdir: render %q: %w", in.Name, err)
	}
	return []byte("---\n" + string(y) + "---\n" + renderBody(in.Body)), nil
}

// renderBody is the text Render puts after the closing fence: a blank line, then the body
// ending in a newline ("" for an empty body).
func renderBody(body string) string {
	body = strings.TrimLeft(strings.ReplaceAll(body, "\r\n", "\n"), "\n")
	if body == "" {
		return ""
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return "\n" + body
}

// checkContent refuses the topic file content of in when it is over MaxFileBytes or holds what
// looks like a secret (naming the line of in.Body too, when the secret is there).
func checkContent(in Input, content []byte) error {
	if i := bytes.IndexByte(content, 0); i >= 0 {
		// The store's reader takes a file with a NUL byte for binary, not a memory (isBinary):
		// written, the memory would be saved and then not found.
		return fmt.Errorf("memdir: %w: %q, line %d of the topic file; a memory is text",
			ErrBinary, in.Name, bytes.Count(content[:i], []byte("\n"))+1)
	}
	if len(content) > MaxFileBytes {
		return fmt.Errorf("memdir: %w: %q would be %s, over the %s limit for a topic file; split it into smaller memories",
			ErrTooLarge, in.Name, humanBytes(int64(len(content))), humanBytes(MaxFileBytes))
	}
	err := checkSecrets(in.Name, string(content))
	if se, ok := err.(*SecretError); ok {
		se.BodyLine = bodyLine(content, in.Body, se.Line)
	}
	return err
}

// bodyLine returns the line of body, as the caller gave it, that is line of content (a topic
// file ending in renderBody(body)); 0 when line is not in the body.
func bodyLine(content []byte, body string, line int) int {
	rb := renderBody(body)
	if rb == "" || !bytes.HasSuffix(content, []byte(rb)) {
		return 0
	}
	first := bytes.Count(content[:len(content)-len(rb)], []byte("\n")) + 2 // after renderBody's blank line
	if line < first {
		return 0
	}
	norm := strings.ReplaceAll(body, "\r\n", "\n")
	dropped := len(norm) - len(strings.TrimLeft(norm, "\n")) // leading blank lines renderBody drops
	return line - first + 1 + dropped
}

// validate checks in before anything is written.
func validate(in *Input) error {
	if err := ValidateName(in.Name); err != nil {
		return err
	}
	in.Name = strings.TrimSpace(in.Name)
	in.Description = termtext.OneLine(in.Description)
	in.Type = Type(strings.TrimSpace(string(in.Type)))
	in.Author = strings.TrimSpace(termtext.OneLine(in.Author))
	if !in.Type.Known() {
		return fmt.Errorf("memdir: %w %q for %q: use user, feedback, project or reference", ErrBadType, in.Type, in.Name)
	}
	return nil
}

// lock takes the directory's write lock, creating the directory (0700) if needed, and removes
// the temp files of writes killed earlier (older than StaleTempAge).
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	if err := s.checkSwap(); err != nil {
		return nil, err
	}
	if err := s.opts.FS.MkdirAll(s.dir, fsutil.DirMode); err != nil {
		return nil, fmt.Errorf("memdir: create %s: %w", s.dir, err)
	}
	lp := filepath.Join(s.dir, LockFile)
	if fi, err := os.Lstat(lp); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("memdir: %w: lock file %s is a symlink", ErrUnsafePath, lp)
	}
	u, err := fsutil.Lock(ctx, lp)
	if err != nil {
		return nil, fmt.Errorf("memdir: %w", err)
	}
	unlock = func() {
		if err := u(); err != nil {
			s.log.Warn("memdir: unlock", "path", lp, "err", err)
		}
	}
	root, ok, err := s.openRoot()
	if err == nil && !ok {
		err = fmt.Errorf("memdir: open %s: the directory vanished", s.dir)
	}
	if err == nil {
		err = s.recover(root) // a change a killed command left half-done
		root.Close()
	}
	if err != nil {
		unlock()
		return nil, err
	}
	s.removeStaleTemps() // what a write killed earlier left behind
	return unlock, nil
}

// checkTarget makes sure a write to rel (slash-separated, relative) stays in the memory dir:
// every parent must be a real directory (not a symlink), and rel itself, if it exists, a
// regular file (not a symlink). exists reports whether rel exists.
func (s *Store) checkTarget(root *os.Root, rel string) (exists bool, err error) {
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		p := strings.Join(parts[:i+1], "/")
		fi, err := root.Lstat(filepath.FromSlash(p))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("memdir: %w: %s: %v", ErrUnsafePath, s.abs(p), unwrapPath(err))
		}
		if !fi.IsDir() {
			return false, fmt.Errorf("memdir: %w: %s is not a directory (a symlink is never followed for a write)", ErrUnsafePath, s.abs(p))
		}
	}
	fi, err := root.Lstat(filepath.FromSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("memdir: %w: %s: %v", ErrUnsafePath, s.abs(rel), unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return true, fmt.Errorf("memdir: %w: %s is not a regular file (a symlink is never followed or replaced by a write)", ErrUnsafePath, s.abs(rel))
	}
	return true, nil
}

// Add writes a memory under the lock and changes or appends exactly its one MEMORY.md line. The
// memory of that name, or else the one memory whose name has its NameKey ("DB PORT" and "db
// port"), is replaced and keeps its name (Result.Name); several such memories are
// ErrAmbiguousName; a write that changes what a memory says keeps the text it replaces in the
// archive (KeepVersion). A new file is named by FileName (or FileNameAlt). Nothing is written
// for a bad name or type, a file over MaxFileBytes, a secret (*SecretError), a full index
// (ErrIndexFull) or a symlink (ErrUnsafePath); a failed index write restores the topic file.
// In daily-log mode Add appends to the day's log instead (AppendLog).
func (s *Store) Add(ctx context.Context, in Input) (Result, error) {
	if err := validate(&in); err != nil {
		return Result{}, err
	}
	now := s.opts.Now()
	if s.opts.Mode == ModeDailyLog {
		text := fmt.Sprintf("[%s] %s: %s", in.Type, in.Name, in.Description)
		if b := strings.TrimSpace(in.Body); b != "" {
			text += "\n" + b
		}
		p, err := s.AppendLog(ctx, text)
		return Result{Path: p, Logged: true}, err
	}
	content, err := Render(in, now)
	if err != nil {
		return Result{}, err
	}
	if err := checkContent(in, content); err != nil {
		return Result{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	root, _, err := s.openRoot()
	if err != nil {
		return Result{}, err
	}
	defer root.Close()

	if _, err := s.checkTarget(root, IndexFile); err != nil {
		return Result{}, err
	}
	oldIdx, _, err := s.readIndexRaw()
	if err != nil {
		return Result{}, err
	}
	var file string
	created, lookAlike, given := false, false, in.Name
	if f, existing, ok, err := s.findForWrite(ctx, root, in.Name, oldIdx); err != nil {
		return Result{}, err
	} else if ok {
		file = f
		if existing != in.Name {
			lookAlike = true
			// A look-alike of an existing memory's name is that memory: it keeps its name.
			in.Name = existing
			if content, err = Render(in, now); err != nil {
				return Result{}, err
			}
			if err := checkContent(in, content); err != nil {
				return Result{}, err
			}
		}
	} else {
		created = true
		file = FileName(in.Name)
		if taken, err := s.taken(root, file); err != nil {
			return Result{}, err
		} else if taken {
			file = FileNameAlt(in.Name)
			if taken, err := s.taken(root, file); err != nil {
				return Result{}, err
			} else if taken {
				return Result{}, fmt.Errorf("memdir: add %q: both %s and %s are taken by other files; rename one of them", in.Name, FileName(in.Name), file)
			}
		}
	}
	exists, err := s.checkTarget(root, file)
	if err != nil {
		return Result{}, err
	}
	var old []byte
	if exists {
		if old, err = readWhole(root, file); err != nil {
			return Result{}, fmt.Errorf("memdir: read %s: %w", s.abs(file), err)
		}
		// A write without an author keeps the file's, in place or rewritten.
		if in.Author == "" {
			prev, _ := ParseFile("", file, old)
			if in.Author = prev.Author; in.Author != "" {
				if content, err = Render(in, now); err != nil {
					return Result{}, err
				}
				if err := checkContent(in, content); err != nil {
					return Result{}, err
				}
			}
		}
		// Replacing a memory edits its frontmatter in place: keys strata does not write
		// (Claude Code's metadata:, originSessionId, a user's own) survive the save.
		if edited, ok := renderOver(old, in, now); ok {
			if err := checkContent(in, edited); err != nil {
				return Result{}, err
			}
			content = edited
		}
	}
	newIdx := setIndexLine(oldIdx, file, FormatIndexLine(in.Name, file, in.Description))
	if err := s.checkIndexLimits(root, oldIdx, newIdx); err != nil {
		return Result{}, err
	}

	// A write that changes what a memory says keeps the text it replaces.
	var kept ArchiveRecord
	drop := func() error { return nil }
	if exists && saysOtherwise(old, content) {
		why := fmt.Sprintf("replaced by a write of %q", given)
		if lookAlike {
			why += fmt.Sprintf(", a name that looks like %q", in.Name)
		}
		rec, d, ok, err := (&Tx{s: s, root: root}).KeepVersion(file, now, why)
		if err != nil {
			return Result{}, err
		}
		if ok {
			kept, drop = rec, d
		}
	}
	abs := s.abs(file)
	if err := fsutil.WriteFileFS(s.opts.FS, abs, content, fsutil.FileMode); err != nil {
		// A failed directory sync comes after the rename: put the old file back too.
		err = fmt.Errorf("memdir: add %q: %w", in.Name, err)
		return Result{}, errors.Join(err, s.restore(root, file, old, exists), drop())
	}
	res := Result{File: file, Path: abs, Created: created, Name: in.Name}
	if newIdx != oldIdx {
		if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(newIdx), fsutil.FileMode); err != nil {
			err = fmt.Errorf("memdir: add %q: update index: %w", in.Name, err)
			return Result{}, errors.Join(err, s.restore(root, file, old, exists), s.restoreIndex(root, oldIdx), drop())
		}
		res.Index = true
	}
	if kept.ArchivedTo != "" {
		if err := AppendArchiveLog(s.dir, kept); err != nil {
			return res, fmt.Errorf("memdir: add %q: written, but the archive log of the replaced text (kept in %s) failed: %w", in.Name, kept.ArchivedTo, err)
		}
		res.Kept = kept.ArchivedTo
	}
	s.noteName(root, file, in.Name)
	s.log.Debug("memdir: wrote memory", "file", file, "created", created, "index", res.Index)
	return res, nil
}

// saysOtherwise reports whether the memory file new says something old did not: another name,
// description, type or body (a new modified time alone is not).
func saysOtherwise(old, new []byte) bool {
	a, _ := ParseFile("", "", old)
	b, _ := ParseFile("", "", new)
	return a.Name != b.Name || a.Description != b.Description || a.Type != b.Type || a.Body != b.Body
}

// ErrAmbiguousName is wrapped by the error Add returns when the name is no memory's exact name
// and several memories have its NameKey: a write that could update either picks neither.
var ErrAmbiguousName = errors.New("the name matches several memories")

// findForWrite finds the memory a write of name updates, by FindIn's rule without its
// file-name step: the exact name, else the only NameKey look-alike (several are
// ErrAmbiguousName); existing is its name as its file has it. It reads candidates only: files
// that index lines titled with the key link, those FileName and FileNameAlt give, then those
// the name map (topicNames) may give the key, less those a strata-written line names (title =
// name). A name hand-edited in such a file without re-indexing can hide; Lint reports it.
func (s *Store) findForWrite(ctx context.Context, root *os.Root, name, idx string) (file, existing string, ok bool, err error) {
	key := NameKey(name)
	checked := map[string]bool{}
	var alike []Memory // memories with name's key but another spelling, in the order found
	// try reads file and reports whether it holds name exactly; a look-alike is kept in alike.
	try := func(file string) (bool, error) {
		if checked[file] {
			return false, nil
		}
		checked[file] = true
		fi, err := root.Stat(filepath.FromSlash(file))
		if err != nil || !fi.Mode().IsRegular() || !isTopicPath(file) {
			return false, nil
		}
		m, _, ok, err := s.readFile(root, entry{file: file, stamp: stampOf(fi)})
		if err != nil || !ok {
			return false, err
		}
		if m.Name == name {
			return true, nil
		}
		if NameKey(m.Name) == key {
			alike = append(alike, m)
		}
		return false, nil
	}
	entries := ParseIndex([]byte(idx))
	linked := map[string]bool{}
	for _, e := range entries {
		if strataLine(e) {
			linked[e.File] = true
		}
	}
	var cands []string
	for _, e := range entries {
		if e.Title == name {
			cands = append(cands, e.File)
		}
	}
	for _, e := range entries {
		if e.Title != name && NameKey(e.Title) == key {
			cands = append(cands, e.File)
		}
	}
	cands = append(cands, FileName(name), FileNameAlt(name))
	for _, f := range cands {
		if ok, err := try(f); err != nil || ok {
			return f, name, ok, err
		}
	}
	// The name map says which files may hold name (or a look-alike) without opening them; a
	// file it cannot name (a symlink) is read.
	files, err := s.topicNames(ctx, root, key)
	if err != nil {
		return "", "", false, err
	}
	for _, f := range files {
		if linked[f] || checked[f] {
			continue
		}
		if ok, err := try(f); err != nil || ok {
			return f, name, ok, err
		}
	}
	switch len(alike) {
	case 0:
		return "", "", false, nil
	case 1:
		return alike[0].File, alike[0].Name, true, nil
	}
	files = make([]string, len(alike))
	for i, m := range alike {
		files[i] = m.File
	}
	sort.Strings(files)
	return "", "", false, fmt.Errorf("memdir: add %q: %w in %s: %s differ from it only in case, width or Unicode form; give the exact name of the one to update (strata memory list), or merge them first",
		name, ErrAmbiguousName, s.dir, strings.Join(files, ", "))
}

// scanNames lists the candidate topic files under dir by name only: entries ending in ".md"
// are taken as they are (try checks them), only other entries are stat'ed to find
// subdirectories. On file systems that do not report entry types, this avoids an lstat per
// file that fs.WalkDir would make.
func scanNames(ctx context.Context, root *os.Root, dir string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := root.Open(filepath.FromSlash(dir))
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		rel := path.Join(dir, n)
		if strings.HasPrefix(n, ".") || rel == LogsDir || rel == IndexFile {
			continue
		}
		if strings.HasSuffix(n, ".md") {
			out = append(out, rel)
			continue
		}
		if fi, err := root.Lstat(filepath.FromSlash(rel)); err == nil && fi.IsDir() {
			sub, err := scanNames(ctx, root, rel)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
	}
	return out, nil
}

// strataLine reports whether an index entry has the shape strata writes: its file name derives
// from its title, so the title is the memory's name.
func strataLine(e IndexEntry) bool {
	return e.File == FileName(e.Title) || e.File == FileNameAlt(e.Title)
}

// taken reports whether anything (file, directory, symlink) already exists at rel.
func (s *Store) taken(root *os.Root, rel string) (bool, error) {
	_, err := root.Lstat(filepath.FromSlash(rel))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("memdir: %s: %w", s.abs(rel), err)
	}
	return true, nil
}

// restore puts a topic file back as it was before a failed change: the old content, or no
// file when it did not exist.
func (s *Store) restore(root *os.Root, rel string, old []byte, existed bool) error {
	if existed {
		if cur, err := readWhole(root, rel); err == nil && string(cur) == string(old) {
			return nil
		}
		if err := fsutil.WriteFileFS(s.opts.FS, s.abs(rel), old, fsutil.FileMode); err != nil {
			return fmt.Errorf("memdir: restore %s: %w", s.abs(rel), err)
		}
		return nil
	}
	if err := root.Remove(filepath.FromSlash(rel)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memdir: remove %s after a failed write: %w", s.abs(rel), err)
	}
	return nil
}

// restoreIndex rewrites MEMORY.md with old when the disk no longer holds it (a failed write
// whose rename landed before the directory sync failed).
func (s *Store) restoreIndex(root *os.Root, old string) error {
	cur, err := readWhole(root, IndexFile)
	if errors.Is(err, fs.ErrNotExist) && old == "" || err == nil && string(cur) == old {
		return nil
	}
	if old == "" {
		if err := root.Remove(IndexFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memdir: restore %s: %w", s.IndexPath(), err)
		}
		return nil
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(old), fsutil.FileMode); err != nil {
		return fmt.Errorf("memdir: restore %s: %w", s.IndexPath(), err)
	}
	return nil
}

// ForgetResult says what Forget did.
type ForgetResult struct {
	File       string // the topic file ("" when only index lines pointing nowhere were removed)
	ArchivedTo string // where the file went, relative to the memory dir, with Archive
	IndexLines int    // index lines removed
	// Removed are those lines with their line numbers, for the archive log and Restore.
	Removed []RemovedLine
}

// Forget removes the memory called name (see Get for how names match) and its index line,
// under the lock. With archive it is Archive with an ActionArchive record. A name that matches
// no file but an index line (by title or target) removes that line, so a line pointing nowhere
// can be forgotten too. The index is changed first; if removing the file then fails, the
// index is restored.
func (s *Store) Forget(ctx context.Context, name string, archive bool) (ForgetResult, error) {
	if archive {
		return s.Archive(ctx, name, ArchiveRecord{Action: ActionArchive})
	}
	var res ForgetResult
	err := s.Locked(ctx, func(tx *Tx) error {
		root := tx.root
		file, found, oldIdx, err := s.resolve(ctx, root, name)
		if err != nil {
			return err
		}
		var n int
		if res, n, err = s.dropLines(root, name, file, oldIdx); err != nil || !found {
			return err
		}
		res.File = file
		undo := func(err error) error {
			if n > 0 {
				err = errors.Join(err, s.restoreIndex(root, oldIdx))
			}
			res = ForgetResult{}
			return err
		}
		// The file itself may be a symlink that stays inside the dir: removing the link never
		// touches its target. Keep what is needed to put it back if a later step fails.
		fi, err := root.Lstat(filepath.FromSlash(file))
		if err != nil {
			return undo(fmt.Errorf("memdir: forget %q: %w", name, err))
		}
		var oldData []byte
		var oldLink string
		if fi.Mode()&fs.ModeSymlink != 0 {
			oldLink, err = root.Readlink(filepath.FromSlash(file))
		} else {
			oldData, err = readWhole(root, file)
		}
		if err != nil {
			return undo(fmt.Errorf("memdir: forget %q: %w", name, err))
		}
		if err := root.Remove(filepath.FromSlash(file)); err != nil {
			return undo(fmt.Errorf("memdir: forget %q: %w", name, err))
		}
		if err := s.opts.FS.SyncDir(filepath.Dir(s.abs(file))); err != nil {
			err = fmt.Errorf("memdir: forget %q: sync dir: %w", name, err)
			var rerr error
			if oldLink != "" {
				rerr = root.Symlink(oldLink, filepath.FromSlash(file))
			} else {
				rerr = fsutil.WriteFileFS(s.opts.FS, s.abs(file), oldData, fsutil.FileMode)
			}
			if rerr != nil {
				rerr = fmt.Errorf("memdir: restore %s: %w", s.abs(file), rerr)
			}
			return undo(errors.Join(err, rerr))
		}
		return nil
	})
	return res, err
}

// resolve finds the file a forget of name acts on: the memory called name (found), else the
// target of an index line titled or linking name (not found: only lines go). It returns the
// index as it is too.
func (s *Store) resolve(ctx context.Context, root *os.Root, name string) (file string, found bool, idx string, err error) {
	mems, _, err := s.List(ctx)
	if err != nil {
		return "", false, "", err
	}
	if _, err := s.checkTarget(root, IndexFile); err != nil {
		return "", false, "", err
	}
	if idx, _, err = s.readIndexRaw(); err != nil {
		return "", false, "", err
	}
	if m, ok := find(mems, name); ok {
		return m.File, true, idx, nil
	}
	for _, e := range ParseIndex([]byte(idx)) {
		if e.Title == name || e.File == name || e.File == name+".md" {
			return e.File, false, idx, nil
		}
	}
	return "", false, "", s.notFound("memdir: forget", mems, name)
}

// dropLines removes the index lines of file from idx (MEMORY.md as it is) and says so in a
// ForgetResult; n is how many went.
func (s *Store) dropLines(root *os.Root, name, file, idx string) (res ForgetResult, n int, err error) {
	res = ForgetResult{Removed: removedLines(idx, file)}
	newIdx, n := removeIndexLines(idx, file)
	res.IndexLines = n
	if n > 0 {
		if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(newIdx), fsutil.FileMode); err != nil {
			err = fmt.Errorf("memdir: forget %q: update index: %w", name, err)
			return ForgetResult{}, 0, errors.Join(err, s.restoreIndex(root, idx))
		}
	}
	return res, n, nil
}

// Archive moves the memory called name (see Get) to .archive/ (a name taken there gets a
// timestamp) with its index lines, as one journaled change (JournalFile) that logs rec
// completed with the file, where it went, its content hash and the lines removed (rec's time
// and run default to now), so that Restore puts it back. A name that matches only an index line
// removes the line, logging nothing, as Forget does.
func (s *Store) Archive(ctx context.Context, name string, rec ArchiveRecord) (ForgetResult, error) {
	var res ForgetResult
	err := s.Locked(ctx, func(tx *Tx) error {
		file, found, idx, err := s.resolve(ctx, tx.root, name)
		if err != nil {
			return err
		}
		if !found {
			res, _, err = s.dropLines(tx.root, name, file, idx)
			return err
		}
		res, err = s.archive(tx.root, file, idx, rec, nil)
		return err
	})
	return res, err
}

// ArchiveFile is Archive of the topic file file itself (no lookup by name), refused with
// ErrChanged when a file of expect (path to ContentHash, "" for a file that must be absent)
// differs now: a dream archives only what it planned on.
func (s *Store) ArchiveFile(ctx context.Context, file string, rec ArchiveRecord, expect map[string]string) (ForgetResult, error) {
	file, err := cleanRel(file)
	if err != nil {
		return ForgetResult{}, err
	}
	var res ForgetResult
	err = s.Locked(ctx, func(tx *Tx) error {
		if taken, err := s.taken(tx.root, file); err != nil {
			return err
		} else if !taken {
			return fmt.Errorf("memdir: archive %s: %w", s.abs(file), ErrNotFound)
		}
		if _, err := s.checkTarget(tx.root, IndexFile); err != nil {
			return err
		}
		idx, _, err := s.readIndexRaw()
		if err != nil {
			return err
		}
		res, err = s.archive(tx.root, file, idx, rec, expect)
		return err
	})
	return res, err
}

// archive is ArchiveFile under the lock, with MEMORY.md as it is (idx).
func (s *Store) archive(root *os.Root, file, idx string, rec ArchiveRecord, expect map[string]string) (ForgetResult, error) {
	if err := s.expect(root, expect); err != nil {
		return ForgetResult{}, err
	}
	if _, err := s.checkTarget(root, path.Join(ArchiveDir, file)); err != nil {
		return ForgetResult{}, err
	}
	if rec.Time.IsZero() {
		rec.Time = s.opts.Now()
	}
	if rec.Run == "" {
		rec.Run = RunID(rec.Time)
	}
	dest, err := s.archiveDest(root, file, rec.Time)
	if err != nil {
		return ForgetResult{}, err
	}
	if fi, err := root.Lstat(filepath.FromSlash(file)); err == nil && fi.Mode().IsRegular() {
		if rec.SHA256, err = hashOf(root, file); err != nil {
			return ForgetResult{}, err
		}
	}
	newIdx, n := removeIndexLines(idx, file)
	rec.File, rec.ArchivedTo, rec.IndexLines = file, dest, removedLines(idx, file)
	in := intent{Op: "archive " + file, Moves: []Move{{From: file, To: dest}}, OldIndex: idx, NewIndex: newIdx,
		Records: []ArchiveRecord{rec}}
	if err := s.commit(root, in); err != nil {
		return ForgetResult{}, err
	}
	return ForgetResult{File: file, ArchivedTo: dest, IndexLines: n, Removed: rec.IndexLines}, nil
}

// expect refuses with ErrChanged when a file of want (path to ContentHash; "" for absent)
// differs now.
func (s *Store) expect(root *os.Root, want map[string]string) error {
	files := make([]string, 0, len(want))
	for f := range want {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		rel, err := cleanRel(f)
		if err != nil {
			return err
		}
		h, err := hashOf(root, rel)
		if err != nil {
			return err
		}
		if h != want[f] {
			return fmt.Errorf("memdir: %s %w", f, ErrChanged)
		}
	}
	return nil
}

// Reindex brings the index line of one topic file in step with the file after a hand edit
// (strata memory edit): the title becomes the frontmatter name and the hook the description.
// The topic file itself is never rewritten. changed reports whether MEMORY.md changed. A file
// that is gone has its lines removed. The index limits apply as for Add.
func (s *Store) Reindex(ctx context.Context, file string) (changed bool, err error) {
	file, err = cleanRel(file)
	if err != nil {
		return false, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return false, err
	}
	defer unlock()
	root, _, err := s.openRoot()
	if err != nil {
		return false, err
	}
	defer root.Close()
	return s.reindex(root, file)
}

// reindex is Reindex for a caller that holds the lock; file is already cleaned.
func (s *Store) reindex(root *os.Root, file string) (changed bool, err error) {
	if _, err := s.checkTarget(root, IndexFile); err != nil {
		return false, err
	}
	oldIdx, _, err := s.readIndexRaw()
	if err != nil {
		return false, err
	}
	var newIdx string
	fi, err := root.Stat(filepath.FromSlash(file))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		newIdx, _ = removeIndexLines(oldIdx, file)
	case err != nil:
		return false, fmt.Errorf("memdir: reindex %s: %w", s.abs(file), err)
	default:
		m, _, ok, err := s.readFile(root, entry{file: file, stamp: stampOf(fi)})
		if err != nil {
			return false, err
		}
		if !ok {
			return false, fmt.Errorf("memdir: reindex %s: not usable as a memory (binary?)", s.abs(file))
		}
		line := FormatIndexLine(m.Name, file, m.Description)
		if err := checkSecrets(m.Name, line); err != nil {
			// Never copy a secret from a hand-edited file into the index.
			return false, err
		}
		newIdx = setIndexLine(oldIdx, file, line)
		if err := s.checkIndexLimits(root, oldIdx, newIdx); err != nil {
			return false, err
		}
	}
	if newIdx == oldIdx {
		return false, nil
	}
	if err := fsutil.WriteFileFS(s.opts.FS, s.IndexPath(), []byte(newIdx), fsutil.FileMode); err != nil {
		err = fmt.Errorf("memdir: reindex %s: %w", file, err)
		return false, errors.Join(err, s.restoreIndex(root, oldIdx))
	}
	return true, nil
}
