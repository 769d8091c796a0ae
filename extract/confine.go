package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/toolcall"
)

// WriteMode says what the extractor's writes do.
type WriteMode string

// The write modes, spelled as the memoryExtraction setting spells them.
const (
	WriteAuto     WriteMode = "auto"      // writes land in the memory dir (the default)
	WriteConfirm  WriteMode = "confirm"   // writes are staged in memory/.inbox/ for `strata memory inbox`
	WriteReadOnly WriteMode = "read-only" // every write is refused
)

// ParseWriteMode reads a write mode; "" is WriteAuto. Anything else is an error naming the
// choices.
func ParseWriteMode(s string) (WriteMode, error) {
	switch m := WriteMode(strings.TrimSpace(s)); m {
	case "":
		return WriteAuto, nil
	case WriteAuto, WriteConfirm, WriteReadOnly:
		return m, nil
	}
	return "", fmt.Errorf("extract: unknown write mode %q: use auto, confirm or read-only", s)
}

// ErrDenied is wrapped by every refusal of Confined (and of Accept): the path or the content
// broke a rule, or the mode forbids writing. The error text is the reason, meant to be shown
// to the model (or the user) as it is.
var ErrDenied = errors.New("write denied")

// Limits of Confined.
const (
	// MaxWriteBytes is the largest memory file the extractor may write.
	MaxWriteBytes = 64 << 10
	// MaxNameBytes is the longest file name the extractor may write, in bytes.
	MaxNameBytes = 200
	// GuidanceFile is the user's guidance for extraction in the memory dir; never written.
	GuidanceFile = "EXTRACT.md"
)

// Denial is one refused call of Confined.
type Denial struct {
	Path   string `json:"path"`   // the path as the model gave it
	Reason string `json:"reason"` // why, as told to the model
}

// Confined is the only way the extractor writes memory. Paths resolve through an os.Root on
// the memory dir, and only *.md topic files directly in it are written (see Write for every
// rule). It is safe for concurrent use.
type Confined struct {
	store   *memdir.Store
	mode    WriteMode
	dirs    []string // the memory dir as given and with symlinks resolved, for absolute paths
	mu      sync.Mutex
	closed  bool
	written []string
	denied  []Denial

	// beforeCommit, when set (tests), runs after the checks and before the write, under the
	// lock: a test swaps the target for a symlink there.
	beforeCommit func(rel string)
	// sources, when set, returns the user's words and the tools' output in the conversation:
	// an auto-mode write that is not Grounded is held in the inbox (HoldUngrounded).
	sources func() (user, tools string)
}

// HoldUngrounded makes auto-mode writes whose text is not Grounded in the conversation that
// sources returns (the user's own words, the tools' output) land in .inbox/ for review, as in
// confirm mode, with a reply that says why: text a tool returned (a file, a command's output,
// a web page) is not an instruction from the user.
func (c *Confined) HoldUngrounded(sources func() (user, tools string)) { c.sources = sources }

// grounded applies Grounded to text when sources are set.
func (c *Confined) grounded(text string) bool {
	if c.sources == nil {
		return true
	}
	user, tools := c.sources()
	return Grounded(text, user, tools)
}

// OpenConfined returns the confined writer for store's directory, which it creates (0700)
// when missing; mode "" is WriteAuto.
func OpenConfined(store *memdir.Store, mode WriteMode) (*Confined, error) {
	mode, err := ParseWriteMode(string(mode))
	if err != nil {
		return nil, err
	}
	dir := store.Dir()
	if mode != WriteReadOnly {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("extract: create %s: %w", dir, err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil && !(mode == WriteReadOnly && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("extract: open %s: %w", dir, err)
	}
	if root != nil {
		root.Close()
	}
	c := &Confined{store: store, mode: mode, dirs: []string{filepath.Clean(dir)}}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != c.dirs[0] {
		c.dirs = append(c.dirs, real)
	}
	return c, nil
}

// Close ends the writer: later calls are refused. It never fails.
func (c *Confined) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

// Dir returns the memory dir the writes are confined to.
func (c *Confined) Dir() string { return c.store.Dir() }

// Mode returns the write mode.
func (c *Confined) Mode() WriteMode { return c.mode }

// Written lists the files this Confined wrote ("deploy.md") or staged (".inbox/deploy.md"),
// relative to the memory dir, each once, in the order of their first write.
func (c *Confined) Written() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.written...)
}

// Denied lists every refusal, in order.
func (c *Confined) Denied() []Denial {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Denial(nil), c.denied...)
}

func (c *Confined) deny(p, reason string) error {
	c.mu.Lock()
	c.denied = append(c.denied, Denial{Path: p, Reason: reason})
	c.mu.Unlock()
	return fmt.Errorf("extract: %w: %q: %s", ErrDenied, p, reason)
}

func (c *Confined) wrote(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.written {
		if w == rel {
			return
		}
	}
	c.written = append(c.written, rel)
}

// refusal is a rule broken by a call; Confined turns it into a Denial.
type refusal struct{ reason string }

func (r *refusal) Error() string { return r.reason }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// Write creates or replaces the memory file at p (inside the memory dir, or relative to it) and
// returns a short message for the model. What check and checkContent refuse, a second file for
// a name and a full index are errors wrapping ErrDenied with the reason, a Denial recorded (a
// full index puts the file back). Auto mode writes atomically under the store's lock with
// MEMORY.md in step; confirm mode stages .inbox/<name> the same way.
func (c *Confined) Write(ctx context.Context, p, content string) (string, error) {
	name, err := c.check(p)
	if err != nil {
		return "", err
	}
	return c.commit(ctx, p, name, func(tx *memdir.Tx, dest string) (string, error) { return content, nil })
}

// Edit replaces old by new in the memory file at p: exactly one occurrence, or every one
// with all. The rules of Write apply to the path and to the result. In confirm mode the
// staged copy is edited when there is one, else the live file, and the result is staged.
// The replacement is toolcall.Edit.Apply, the agent's own Edit: a missing file, or an error of
// Apply (empty old, new equal to old, old not found, or found more than once without all:
// errors.Is matches toolcall's sentinels) is an error that is not a denial.
func (c *Confined) Edit(ctx context.Context, p, old, new string, all bool) (string, error) {
	name, err := c.check(p)
	if err != nil {
		return "", err
	}
	e := &toolcall.Edit{FilePath: name, OldString: old, NewString: new, ReplaceAll: all}
	if err := e.Check(); err != nil {
		return "", fmt.Errorf("extract: edit %s: %w", name, err)
	}
	return c.commit(ctx, p, name, func(tx *memdir.Tx, dest string) (string, error) {
		src := name
		if c.mode == WriteConfirm {
			if _, ok, err := readRegular(tx.Root(), dest); err != nil {
				return "", err
			} else if ok {
				src = dest
			}
		}
		data, ok, err := readRegular(tx.Root(), src)
		if err != nil {
			return "", err
		}
		if !ok {
			return "", fmt.Errorf("extract: edit %s: no such memory file; use Write to create it", name)
		}
		e.FilePath = src
		done, err := e.Apply(string(data))
		if err != nil {
			return "", fmt.Errorf("extract: %w", err)
		}
		return done.Text, nil
	})
}

// check refuses by mode and path before any I/O.
func (c *Confined) check(p string) (string, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return "", c.deny(p, "the memory writer is closed")
	}
	if c.mode == WriteReadOnly {
		return "", c.deny(p, "memory is read-only in this project (extraction write mode read-only); nothing can be written")
	}
	name, err := resolveName(c.dirs, p)
	if err != nil {
		return "", c.deny(p, err.Error())
	}
	return name, nil
}

// commit runs the write of name under the store's lock: content computes the new text (from
// the staged or live file for an edit); the text is checked, written atomically and, in auto
// mode, indexed.
func (c *Confined) commit(ctx context.Context, p, name string, content func(tx *memdir.Tx, dest string) (string, error)) (string, error) {
	dest := name
	if c.mode == WriteConfirm {
		dest = memdir.InboxDir + "/" + name
	}
	var msg string
	err := c.store.Locked(ctx, func(tx *memdir.Tx) error {
		root := tx.Root()
		text, err := content(tx, dest)
		if err != nil {
			return err
		}
		meta, err := checkContent(text)
		if err != nil {
			return err
		}
		if err := checkDuplicate(ctx, c.store, name, meta.Name); err != nil {
			return err
		}
		held := c.mode == WriteAuto && !c.grounded(text)
		if held {
			dest = memdir.InboxDir + "/" + name
		}
		if c.mode == WriteConfirm || held {
			if err := ensureDir(root, memdir.InboxDir); err != nil {
				return err
			}
		}
		old, existed, err := readRegular(root, dest)
		if err != nil {
			return err
		}
		if c.beforeCommit != nil {
			c.beforeCommit(dest)
		}
		if err := writeAtomic(root, dest, []byte(text)); err != nil {
			if escapes(err) {
				return refuse("%s leads outside the memory dir (a symlink was put in the way); nothing was written", dest)
			}
			return fmt.Errorf("extract: write %s: %w", filepath.Join(c.dirs[0], dest), err)
		}
		if held {
			msg = fmt.Sprintf("held %s for the user's review as %s (%d bytes): it draws on what tools returned (files, command output, web pages), not on what the user said; it becomes live only if the user accepts it with `strata memory inbox accept`", name, dest, len(text))
			return nil
		}
		if c.mode == WriteConfirm {
			msg = fmt.Sprintf("staged %s for review as %s (%d bytes); it becomes live when the user accepts it with `strata memory inbox accept`", name, dest, len(text))
			return nil
		}
		if _, err := tx.Reindex(ctx, name); err != nil {
			back := restoreFile(root, name, old, existed)
			if back == nil && (errors.Is(err, memdir.ErrIndexFull) || errors.Is(err, memdir.ErrSecret)) {
				return refuse("%s; the file was put back as it was — update an existing memory instead", strings.TrimPrefix(err.Error(), "memdir: "))
			}
			return errors.Join(err, back)
		}
		verb := "created"
		if existed {
			verb = "updated"
		}
		msg = fmt.Sprintf("%s %s (%d bytes); MEMORY.md is in step", verb, name, len(text))
		return nil
	})
	var r *refusal
	if errors.As(err, &r) {
		return "", c.deny(p, r.reason)
	}
	if err != nil {
		return "", err
	}
	c.wrote(dest)
	return msg, nil
}

// checkDuplicate refuses a memory whose name another file already holds.
func checkDuplicate(ctx context.Context, store *memdir.Store, file, name string) error {
	mems, _, err := store.List(ctx)
	if err != nil {
		return err
	}
	for _, m := range mems {
		if m.File != file && memdir.NameKey(m.Name) == memdir.NameKey(name) {
			return refuse("a memory named %q already lives in %s; edit that file instead of adding a second one", m.Name, m.File)
		}
	}
	return nil
}

// resolveName maps a path given by the model to a file name directly in the memory dir, or
// says why it cannot be written. dirs are the memory dir's absolute spellings.
func resolveName(dirs []string, p string) (string, error) {
	if p == "" {
		return "", refuse("empty path")
	}
	if len(p) > 4096 {
		return "", refuse("path of %d bytes is too long", len(p))
	}
	if !utf8.ValidString(p) {
		return "", refuse("path is not valid UTF-8")
	}
	for _, r := range p {
		switch {
		case r == 0:
			return "", refuse("path contains a NUL byte")
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			return "", refuse("path contains the control character %U", r)
		case unicode.Is(unicode.Cf, r):
			return "", refuse("path contains the invisible formatting character %U", r)
		}
	}
	if filepath.Separator != '/' {
		// Where '\\' is the separator, it is one: compare in slash form.
		p = filepath.ToSlash(p)
		slashed := make([]string, len(dirs))
		for i, d := range dirs {
			slashed[i] = filepath.ToSlash(d)
		}
		dirs = slashed
	}
	if strings.Contains(p, `\`) {
		return "", refuse(`path contains a backslash; give a file name directly in the memory dir, like "topic.md"`)
	}
	rel := p
	if strings.HasPrefix(p, "/") || filepath.IsAbs(p) {
		rel = ""
		for _, d := range dirs {
			if r, ok := strings.CutPrefix(p, d+"/"); ok {
				rel = r
				break
			}
		}
		if rel == "" {
			return "", refuse("absolute path outside the memory dir %s", dirs[0])
		}
	}
	var parts []string
	for _, part := range strings.Split(rel, "/") {
		switch part {
		case "..":
			return "", refuse(`".." is not allowed in a memory path`)
		case "", ".":
			continue
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return "", refuse("the path names the memory dir itself, not a file")
	}
	if strings.HasSuffix(rel, "/") || strings.HasSuffix(rel, "/.") {
		return "", refuse("the path ends in a slash or \".\": it names a directory, not a file")
	}
	if len(parts) > 1 {
		return "", refuse("only files directly in the memory dir may be written (no subdirectories): use %q", parts[len(parts)-1])
	}
	name := parts[0]
	folded := norm.NFKC.String(name)
	switch {
	case strings.ContainsAny(folded, `/\`) || strings.ContainsAny(name, "\u2215\u2044\u29f8\u29f9\ufe68"):
		return "", refuse("file name contains a look-alike of a path separator")
	case strings.HasPrefix(name, ".") || strings.HasPrefix(folded, "."):
		return "", refuse("hidden files and dot-directories (.inbox, .archive, lock files) are not written by extraction")
	case strings.Contains(folded, ".."):
		return "", refuse(`file name contains ".." (or a look-alike)`)
	case len(name) > MaxNameBytes:
		return "", refuse("file name of %d bytes is over the %d-byte limit", len(name), MaxNameBytes)
	case !strings.HasSuffix(name, ".md") || name == ".md":
		return "", refuse("only markdown topic files (*.md) may be written")
	case strings.EqualFold(folded, memdir.IndexFile):
		return "", refuse("MEMORY.md is the index strata keeps: write a topic file and its index line follows")
	case strings.EqualFold(folded, GuidanceFile):
		return "", refuse("EXTRACT.md is the user's guidance for extraction; it is never written")
	}
	return name, nil
}

// meta is the frontmatter a written memory must carry.
type meta struct{ Name, Description, Type string }

// checkContent applies the content rules of Write.
func checkContent(text string) (meta, error) {
	if len(text) > MaxWriteBytes {
		return meta{}, refuse("content is %d bytes, over the %d KB limit for a memory file; keep memories short or split the topic", len(text), MaxWriteBytes>>10)
	}
	if !utf8.ValidString(text) {
		return meta{}, refuse("content is not valid UTF-8")
	}
	line := 1
	for _, r := range text {
		if r == '\n' {
			line++
			continue
		}
		if r != '\t' && r != '\r' && (unicode.IsControl(r) || r == '\u2028' || r == '\u2029') {
			return meta{}, refuse("content line %d contains the control character %U", line, r)
		}
	}
	if f := memdir.ScanSecrets(text); len(f) > 0 {
		return meta{}, refuse("content line %d looks like a secret (%s); never store secrets in memory — write where the secret lives (an env var name, a vault path) instead", f[0].Line, f[0].Kind)
	}
	doc, err := frontmatter.Parse([]byte(text))
	if err != nil {
		return meta{}, refuse("bad frontmatter: %v", err)
	}
	const shape = "start the file with frontmatter: ---, name: …, description: …, type: user|feedback|project|reference, ---"
	if !doc.Present {
		return meta{}, refuse("no frontmatter; %s", shape)
	}
	m := meta{Name: strings.TrimSpace(doc.String("name")), Description: strings.TrimSpace(doc.String("description")), Type: strings.TrimSpace(doc.String("type"))}
	if m.Name == "" {
		return meta{}, refuse("frontmatter has no name; %s", shape)
	}
	if err := memdir.ValidateName(m.Name); err != nil {
		return meta{}, refuse("%s", strings.TrimPrefix(err.Error(), "memdir: "))
	}
	if m.Description == "" {
		return meta{}, refuse("frontmatter has no description (one line: what it is and when it matters)")
	}
	if !memdir.Type(m.Type).Known() {
		return meta{}, refuse("frontmatter type %q is not one of user, feedback, project, reference", m.Type)
	}
	return m, nil
}

// readRegular reads rel through root. ok is false when it does not exist. Anything that is
// not a regular file (a symlink, even to a file inside, a directory, a device) is refused, and
// so is a file swapped between the check and the read.
func readRegular(root *os.Root, rel string) (data []byte, ok bool, err error) {
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, refuse("cannot inspect %s: %v", rel, unwrapPathErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, false, refuse("%s is not a regular file (%s); symlinks and special files are never followed or replaced", rel, fsutil.Kind(fi.Mode()))
	}
	f, err := root.Open(rel)
	if err != nil {
		return nil, false, refuse("cannot open %s: %v", rel, unwrapPathErr(err))
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !os.SameFile(fi, now) {
		return nil, false, refuse("%s changed while it was being read; try again", rel)
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxWriteBytes+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > MaxWriteBytes {
		return nil, false, refuse("%s is over the %d KB limit of the extractor; leave it to the user", rel, MaxWriteBytes>>10)
	}
	return data, true, nil
}

// escapes reports whether err is os.Root refusing a path that leaves the root, or a symlink
// met where a directory was expected.
func escapes(err error) bool {
	return strings.Contains(err.Error(), "path escapes from parent") ||
		errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR)
}

func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ensureDir makes sure rel is a real directory in root (created 0700 when missing).
func ensureDir(root *os.Root, rel string) error {
	fi, err := root.Lstat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		if err := root.Mkdir(rel, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err = root.Lstat(rel)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return refuse("%s is not a directory (%s); it is never followed", rel, fsutil.Kind(fi.Mode()))
	}
	return nil
}

// writeAtomic replaces rel (slash-separated, in root) with data: fsutil.WriteFileFS through
// the root (temp file in the same directory, written and synced, renamed over rel — a symlink
// at rel is replaced, never followed; a parent swapped for a symlink out of the root makes the
// rename fail — then the directory synced). Files are 0600.
func writeAtomic(root *os.Root, rel string, data []byte) error {
	return fsutil.WriteFileFS(rootFS(root), filepath.FromSlash(rel), data, fsutil.FileMode)
}

// rootFS is the file system writeAtomic writes through; tests wrap it to fail a step.
var rootFS = fsutil.RootFS

// restoreFile puts rel back as it was after a refused index update.
func restoreFile(root *os.Root, rel string, old []byte, existed bool) error {
	if existed {
		return writeAtomic(root, rel, old)
	}
	if err := root.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
