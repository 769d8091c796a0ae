package compact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/toolcall"
)

// ErrNotesOnly is wrapped by every refusal of Notes: a path other than the notes file, a
// tool other than Edit or Write, or a result that fails CheckNotes.
var ErrNotesOnly = errors.New("compact: the notes fork may only edit its notes file, keeping the template")

// ErrNotesSymlink is returned (wrapped) when the notes file or its directory is a symlink.
var ErrNotesSymlink = errors.New("compact: the session notes file or its directory is a symlink")

// Notes confines the notes fork's writes to exactly one file. Every read and write goes
// through an os.Root opened on the file's directory, after checking that neither the
// directory nor the file is a symlink, and every write is atomic (fsutil). Safe for
// concurrent use; changes are serialized.
type Notes struct {
	path, dir, base string

	mu sync.Mutex
	// wrap, when set (tests), wraps the file system writes go through.
	wrap func(fsutil.FS) fsutil.FS
}

// OpenNotes prepares path: creates its directory (0700) and, when missing, the file from
// NotesTemplate (0600, atomically). A relative path is made absolute against the working
// directory. A path whose parent is a symlink, or that is itself a symlink, is refused with
// an error wrapping ErrNotesSymlink.
func OpenNotes(path string) (*Notes, error) {
	if path == "" {
		return nil, errors.New("compact: open notes: no path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("compact: open notes %s: %w", path, err)
	}
	n := &Notes{path: abs, dir: filepath.Dir(abs), base: filepath.Base(abs)}
	if fi, err := os.Lstat(n.dir); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("compact: open notes %s: %w", abs, ErrNotesSymlink)
	}
	if err := os.MkdirAll(n.dir, fsutil.DirMode); err != nil {
		return nil, fmt.Errorf("compact: open notes: %w", err)
	}
	root, err := n.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if _, err := n.read(root); errors.Is(err, fs.ErrNotExist) {
		if err := fsutil.WriteFileFS(n.fs(root), n.base, []byte(NotesTemplate), fsutil.FileMode); err != nil {
			return nil, fmt.Errorf("compact: create notes %s: %w", abs, err)
		}
	} else if err != nil {
		return nil, err
	}
	return n, nil
}

// Path returns the absolute, clean path of the notes file: the only path Notes writes.
func (n *Notes) Path() string { return n.path }

// Read returns the current text of the notes file.
func (n *Notes) Read() (string, error) {
	root, err := n.openRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	return n.read(root)
}

// Edit replaces old with new in the notes file: old must occur, and exactly once unless all
// is set. The result is refused (error wrapping ErrNotesOnly, the message naming what to fix)
// when it makes CheckNotes' findings worse: a new problem, or a section or the total growing
// further over its cap. Problems the file already had do not block an edit, so notes that
// were already off can be mended a step at a time. On success it returns a line for the
// model; on any error the file is left as it was.
func (n *Notes) Edit(old, new string, all bool) (string, error) {
	e := &toolcall.Edit{FilePath: n.path, OldString: old, NewString: new, ReplaceAll: all}
	if err := e.Check(); err != nil {
		return "", err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	root, err := n.openRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	text, err := n.read(root)
	if err != nil {
		return "", err
	}
	done, err := e.Apply(text)
	if err != nil {
		return "", err
	}
	if err := n.store(root, text, done.Text); err != nil {
		return "", err
	}
	return done.Summary(n.path) + remaining(done.Text), nil
}

// Write replaces the whole notes file with content. path must be exactly Path() after
// cleaning (a relative path is refused even when it would resolve to the file); any other
// path, or content that makes CheckNotes' findings worse (see Edit), is refused with an error
// wrapping ErrNotesOnly and the file is left as it was.
func (n *Notes) Write(path, content string) (string, error) {
	if err := n.allow(path); err != nil {
		return "", err
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	root, err := n.openRoot()
	if err != nil {
		return "", err
	}
	defer root.Close()
	text, err := n.read(root)
	if err != nil {
		return "", err
	}
	if err := n.store(root, text, content); err != nil {
		return "", err
	}
	return fmt.Sprintf("Wrote %s.%s", n.path, remaining(content)), nil
}

// EditPath is Edit for a path named by the fork: any path but exactly Path() (after
// cleaning; relative paths and a trailing separator are refused) is refused with an error wrapping ErrNotesOnly.
func (n *Notes) EditPath(path, old, new string, all bool) (string, error) {
	if err := n.allow(path); err != nil {
		return "", err
	}
	return n.Edit(old, new, all)
}

// Apply runs one decoded tool call of the notes fork: a *toolcall.Edit or a *toolcall.Write
// of the notes file (its path absolute, as toolcall.Decode resolves it). Any other call is
// refused with an error wrapping ErrNotesOnly.
func (n *Notes) Apply(call toolcall.Call) (string, error) {
	switch c := call.(type) {
	case *toolcall.Write:
		return n.Write(c.FilePath, c.Content)
	case *toolcall.Edit:
		return n.EditPath(c.FilePath, c.OldString, c.NewString, c.ReplaceAll)
	case nil:
		return "", fmt.Errorf("%w: no call; use Edit on %s", ErrNotesOnly, n.path)
	}
	return "", fmt.Errorf("%w: %s is not allowed here; use Edit on %s", ErrNotesOnly, call.Tool(), n.path)
}

// coveredFile is the sidecar, next to the notes file, naming the last message they cover.
const coveredFile = ".covered"

// MarkCovered records, next to the notes file, that the notes now cover the conversation
// through the message uuid: the last message the update saw. Call it after an update
// succeeded. Session-memory compaction (Run) then keeps every later message, and falls back
// to a model summary when those exceed KeepMaxTokens, so nothing the notes miss is dropped.
// Without a mark Run keeps only the recent KeepMinTokens–KeepMaxTokens.
func (n *Notes) MarkCovered(uuid string) error {
	if uuid == "" || len(uuid) > 200 || strings.ContainsAny(uuid, "\r\n") {
		return fmt.Errorf("compact: mark notes covered: bad uuid %q", uuid)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	root, err := n.openRoot()
	if err != nil {
		return err
	}
	defer root.Close()
	if err := fsutil.WriteFileFS(n.fs(root), coveredFile, []byte(uuid+"\n"), fsutil.FileMode); err != nil {
		return fmt.Errorf("compact: mark notes covered %s: %w", n.path, err)
	}
	return nil
}

// NotesCovered returns the uuid MarkCovered last recorded for the notes file at notesPath,
// or "" when there is none.
func NotesCovered(notesPath string) (string, error) {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(notesPath), coveredFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("compact: notes covered: %w", err)
	}
	return strings.TrimSpace(string(data)), nil
}

// allow refuses every path but the notes file.
func (n *Notes) allow(path string) error {
	// A trailing separator names a directory, as it does for open(2).
	if path == "" || !filepath.IsAbs(path) || os.IsPathSeparator(path[len(path)-1]) || filepath.Clean(path) != n.path {
		return fmt.Errorf("%w: %q is not %s", ErrNotesOnly, path, n.path)
	}
	return nil
}

// store writes result when it leaves CheckNotes' findings no worse than before.
func (n *Notes) store(root *os.Root, before, result string) error {
	if bad := worse(checkNotes(before), checkNotes(result)); len(bad) > 0 {
		msgs := make([]string, len(bad))
		for i, p := range bad {
			msgs[i] = p.msg
		}
		return fmt.Errorf("%w: change refused, %s is unchanged: %s", ErrNotesOnly, n.path, strings.Join(msgs, "; "))
	}
	if err := fsutil.WriteFileFS(n.fs(root), n.base, []byte(result), fsutil.FileMode); err != nil {
		return fmt.Errorf("compact: notes %s: %w", n.path, err)
	}
	return nil
}

// remaining names the problems a stored text still has, for the model's next step.
func remaining(text string) string {
	msgs := CheckNotes(text)
	if len(msgs) == 0 {
		return ""
	}
	return " Still to fix: " + strings.Join(msgs, "; ") + "."
}

// openRoot opens the notes directory as an os.Root after making sure it is a real
// directory, and that the directory opened is the one checked (no swap in between).
func (n *Notes) openRoot() (*os.Root, error) {
	fi, err := os.Lstat(n.dir)
	if err != nil {
		return nil, fmt.Errorf("compact: notes dir: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("compact: notes dir %s: %w", n.dir, ErrNotesSymlink)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("compact: notes dir %s is not a directory", n.dir)
	}
	root, err := os.OpenRoot(n.dir)
	if err != nil {
		return nil, fmt.Errorf("compact: notes dir: %w", err)
	}
	if got, err := root.Stat("."); err != nil || !os.SameFile(fi, got) {
		root.Close()
		return nil, fmt.Errorf("compact: notes dir %s changed while opening it: %w", n.dir, ErrNotesSymlink)
	}
	return root, nil
}

// read returns the notes text, refusing a symlink or a file that is not regular. A missing
// file is an error wrapping fs.ErrNotExist.
func (n *Notes) read(root *os.Root) (string, error) {
	fi, err := root.Lstat(n.base)
	if err != nil {
		return "", fmt.Errorf("compact: notes %s: %w", n.path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("compact: notes %s: %w", n.path, ErrNotesSymlink)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("compact: notes %s is not a regular file", n.path)
	}
	data, err := root.ReadFile(n.base)
	if err != nil {
		return "", fmt.Errorf("compact: notes %s: %w", n.path, err)
	}
	return string(data), nil
}

func (n *Notes) fs(root *os.Root) fsutil.FS {
	f := fsutil.RootFS(root)
	if n.wrap != nil {
		f = n.wrap(f)
	}
	return f
}
