package tool

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/toolcall"
)

// Limits of the file tools.
const (
	ReadDefaultLines = 2000 // lines Read returns without a limit
	ReadMaxLineChars = 2000 // longer lines are cut
	ReadMaxBytes     = 256 << 10
	GlobMaxResults   = 100
	GrepDefaultLines = 250
	grepMaxFileBytes = 2 << 20
	editMaxBytes     = 64 << 20 // Edit reads, changes and writes the file whole
	touchMaxHits     = 50       // Glob/Grep hits passed to instructions' Touch per call
)

var readTool = newTool("Read", permission.ClassRead, runRead)

// Read's streaming limits.
const (
	// ReadWholeMax: a file up to this size is read to its end (its lines counted, its content
	// kept for the read cache); a larger one only as far as the lines shown.
	ReadWholeMax = 4 << 20
	// readScanMax bounds what Read scans past for an offset: a file without line breaks is
	// not read to the end to find line 1,000,000.
	readScanMax = 1 << 30
)

func runRead(ctx context.Context, e Env, p *toolcall.Read) (string, error) {
	if p.FilePath == "" {
		return "", errors.New("file_path is required")
	}
	if p.Offset < 0 || p.Limit < 0 {
		return "", errors.New("offset and limit must not be negative")
	}
	path := p.FilePath
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, errText(err))
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%s is a directory; use Glob to list its files", path)
	}
	if !fi.Mode().IsRegular() {
		return "", notRegular(path, fi.Mode())
	}
	e.Touch(ctx, path)
	if stub, ok := e.Cache().Reread(path, p.Offset, p.Limit, fi.ModTime()); ok {
		return stub, nil
	}
	// The one reader of the file tools: a FIFO or device swapped in after the Stat above
	// neither hangs the open nor gets read.
	fp, err := filePath(ctx, e.Cwd(), path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, errText(err))
	}
	f, fi, err := fp.Open(math.MaxInt64)
	if err != nil {
		return "", readErr("read", path, err)
	}
	defer f.Close()
	whole := fi.Size() <= ReadWholeMax
	var raw bytes.Buffer
	var r io.Reader = io.LimitReader(f, readScanMax)
	if whole {
		r = io.TeeReader(r, &raw)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(8192); bytes.IndexByte(head, 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file; Read shows text files only", path)
	}
	v, err := numberLines(ctx, br, p.Offset, p.Limit, whole)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, errText(err))
	}
	content := v.shown
	if whole {
		content = raw.String()
	}
	if err := e.Cache().Record(conversation.FileState{Path: path, Content: content, ModTime: fi.ModTime(),
		Offset: p.Offset, Limit: p.Limit, Source: conversation.SourceRead}); err != nil {
		e.Logger().Warn("tool: read cache", "path", path, "err", err)
	}
	if v.count == 0 {
		if fi.Size() == 0 {
			return fmt.Sprintf("(%s is empty)", path), nil
		}
		if v.scanned >= readScanMax {
			return fmt.Sprintf("(%s: no line %d in the first %d bytes)", path, max(p.Offset, 1), readScanMax), nil
		}
		return fmt.Sprintf("(%s has fewer lines than offset %d)", path, p.Offset), nil
	}
	if !whole && v.more {
		return v.text + fmt.Sprintf("[strata: showed lines %d-%d of a file of %d bytes; pass offset and limit to read more]\n", v.first, v.first+v.count-1, fi.Size()), nil
	}
	return v.text, nil
}

// notRegular is the file tools' refusal of a FIFO, device, socket or other file that is not
// a regular file: reading one could block forever or never end.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s; the file tools use regular files only (reading it could block or never end)", path, fsutil.Kind(m))
}

// readErr is the file tools' message for a failed fsutil read of path
// (verb: read, edit, search).
func readErr(verb, path string, err error) error {
	if errors.Is(err, fsutil.ErrNotRegular) {
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return notRegular(path, fi.Mode())
		}
	}
	return fmt.Errorf("cannot %s %s: %v", verb, path, errText(err))
}

// lineView is what numberLines rendered.
type lineView struct {
	text    string // the lines, numbered, with a note when there are more
	shown   string // the lines shown, as they are in the file (cut lines cut)
	first   int    // the first line shown
	count   int    // how many lines were shown
	more    bool   // lines after the last shown exist (or the output cap was reached)
	scanned int64  // bytes read
}

// numberLines renders lines [offset, offset+limit) of r as "%6d\t%s" (lines longer than
// ReadMaxLineChars cut, at most ReadDefaultLines without a limit, at most about
// ReadMaxBytes of output). It reads only as far as it must: to the last line shown, and one
// byte beyond to know whether there is more; with countAll to the end, so that the note can
// say how many lines the file has. A line is never held longer than it is shown.
func numberLines(ctx context.Context, r *bufio.Reader, offset, limit int, countAll bool) (lineView, error) {
	if offset <= 0 {
		offset = 1
	}
	maxLines := limit
	if maxLines <= 0 {
		maxLines = ReadDefaultLines
	}
	v := lineView{first: offset}
	var b, shown strings.Builder
	n := 0 // lines read
	for {
		if n%4096 == 0 && ctx.Err() != nil {
			return v, ctx.Err()
		}
		full := v.count == maxLines || b.Len() > ReadMaxBytes
		if full && !countAll {
			_, err := r.Peek(1)
			v.more = err == nil
			break
		}
		keep := 0
		if n+1 >= offset && !full {
			keep = ReadMaxLineChars + 2
		}
		head, size, err := readLine(r, keep)
		v.scanned += int64(size)
		if size == 0 {
			if err != nil && err != io.EOF {
				return v, err
			}
			break
		}
		n++
		if keep == 0 {
			v.more = v.more || full // a line after the last one shown
			continue
		}
		line, long := lineText(head, size)
		if long {
			cut := ReadMaxLineChars
			for cut > 0 && !isRuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + fmt.Sprintf(" [strata: line cut at %d of %d bytes]", cut, lineLen(head, size))
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, line)
		shown.WriteString(line)
		shown.WriteByte('\n')
		v.count++
	}
	if v.more && v.count > 0 && countAll {
		fmt.Fprintf(&b, "[strata: showed lines %d-%d of %d; pass offset and limit to read more]\n", offset, offset+v.count-1, n)
	}
	v.text, v.shown = b.String(), shown.String()
	return v, nil
}

// readLine reads one line of r (up to and including its newline) and keeps at most keep
// bytes of it; size is the whole line's length in bytes (0 at the end of r).
func readLine(r *bufio.Reader, keep int) (head []byte, size int, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if room := keep - len(head); room > 0 {
			head = append(head, frag[:min(len(frag), room)]...)
		}
		size += len(frag)
		if err != bufio.ErrBufferFull {
			return head, size, err
		}
	}
}

// lineText returns a line's text without its line break, and whether it is longer than
// ReadMaxLineChars (then only the start, of more than ReadMaxLineChars bytes, is returned).
func lineText(head []byte, size int) (string, bool) {
	if len(head) == size { // all of it was kept
		line := strings.TrimSuffix(strings.TrimSuffix(string(head), "\n"), "\r")
		return line, len(line) > ReadMaxLineChars
	}
	return string(head), true
}

// lineLen is the length of a line of size bytes without its line break, as far as it can be
// told from its head (a cut line's "\r\n" is not seen: its length counts the "\r").
func lineLen(head []byte, size int) int {
	if len(head) == size {
		return len(strings.TrimSuffix(strings.TrimSuffix(string(head), "\n"), "\r"))
	}
	return size - 1
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

var writeTool = withCheck(newTool("Write", permission.ClassEdit, func(ctx context.Context, e Env, p *toolcall.Write) (string, error) {
	path := p.FilePath
	e.Touch(ctx, path)
	if err := checkWrite(e, p); err != nil {
		return "", err
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	if err := writeFile(ctx, e.Cwd(), path, []byte(p.Content)); err != nil {
		return "", err
	}
	recordWrite(e, path, p.Content)
	if created {
		return fmt.Sprintf("Created %s (%d lines).", path, lineCount(p.Content)), nil
	}
	return fmt.Sprintf("Wrote %s (%d lines).", path, lineCount(p.Content)), nil
}), checkWrite)

// checkWrite refuses a Write without a path, or over a file the model has not read as it is.
func checkWrite(e Env, p *toolcall.Write) error {
	if p.FilePath == "" {
		return errors.New("file_path is required")
	}
	if err := e.Cache().CheckWritable(p.FilePath); err != nil {
		return refusal(err)
	}
	return nil
}

// checkEdit refuses an Edit that cannot change the file: no path, an empty or no-op change, a
// file the model has not read as it is, or an old text not found once in it (the file is read
// here for that; a read error is left to the edit itself).
func checkEdit(e Env, p *toolcall.Edit) error {
	if p.FilePath == "" {
		return errors.New("file_path is required")
	}
	if err := p.Check(); err != nil {
		return err
	}
	if err := e.Cache().CheckWritable(p.FilePath); err != nil {
		return refusal(err)
	}
	if data, err := fsutil.ReadRegular(p.FilePath, editMaxBytes); err == nil {
		if _, err := p.Apply(string(data)); err != nil {
			return err
		}
	}
	return nil
}

// refusal turns a read-cache refusal into the message for the model.
func refusal(err error) error {
	for _, e := range []error{conversation.ErrNotRead, conversation.ErrPartialView, conversation.ErrModified} {
		if errors.Is(err, e) {
			return fmt.Errorf("refused: %v", strings.TrimPrefix(err.Error(), "conversation: "))
		}
	}
	return err
}

// filePath is the fsutil.Path a file tool reads or writes path through: the file the
// permission check decided on (permission.AsChecked), inside the working directory when it is
// there, else inside its own directory (a file outside the project, or under .git, which the
// check has asked about). A symlink swapped in after the check cannot carry the call elsewhere.
func filePath(ctx context.Context, cwd, path string) (fsutil.Path, error) {
	real, err := permission.AsChecked(ctx, path)
	if err != nil {
		return fsutil.Path{}, err
	}
	fp, err := fsutil.NewPath(cwd, real)
	if errors.Is(err, fsutil.ErrOutsideRoot) || errors.Is(err, fsutil.ErrGitComponent) {
		fp, err = fsutil.NewPath(filepath.Dir(real), filepath.Base(real))
	}
	if err == nil && fp.String() != real {
		return fsutil.Path{}, permission.Changed(path, fp.String())
	}
	return fp, err
}

// writeFile replaces path's content through its filePath, keeping an existing file's mode
// (new files 0644: they are the user's files, not strata's); a FIFO or device is refused,
// not opened.
func writeFile(ctx context.Context, cwd, path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return notRegular(path, fi.Mode())
		}
		mode = fi.Mode().Perm()
	}
	fp, err := filePath(ctx, cwd, path)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(fp.String()), 0o755); err == nil {
			err = fp.WriteFile(data, mode)
		}
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %v", path, errText(err))
	}
	return nil
}

func recordWrite(e Env, path, content string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if err := e.Cache().Record(conversation.FileState{Path: path, Content: content, ModTime: fi.ModTime(), Source: conversation.SourceWrite}); err != nil {
		e.Logger().Warn("tool: read cache", "path", path, "err", err)
	}
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

var editTool = withCheck(newTool("Edit", permission.ClassEdit, func(ctx context.Context, e Env, p *toolcall.Edit) (string, error) {
	if p.FilePath == "" {
		return "", errors.New("file_path is required")
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	path := p.FilePath
	e.Touch(ctx, path)
	fp, err := filePath(ctx, e.Cwd(), path)
	if err != nil {
		return "", fmt.Errorf("cannot edit %s: %v", path, errText(err))
	}
	data, err := fp.ReadFile(editMaxBytes)
	if err != nil {
		return "", readErr("edit", path, err)
	}
	if err := e.Cache().CheckWritable(path); err != nil {
		return "", refusal(err)
	}
	done, err := p.Apply(string(data))
	if err != nil {
		return "", err
	}
	if err := writeFile(ctx, e.Cwd(), path, []byte(done.Text)); err != nil {
		return "", err
	}
	recordWrite(e, path, done.Text)
	return done.Summary(path), nil
}), checkEdit)

var globTool = newTool("Glob", permission.ClassRead, func(ctx context.Context, e Env, p *toolcall.Glob) (string, error) {
	base := p.Path
	if base == "" {
		base = e.Cwd()
	}
	pat := filepath.ToSlash(p.Pattern)
	if filepath.IsAbs(p.Pattern) {
		rel, err := filepath.Rel(base, p.Pattern)
		if err != nil || strings.HasPrefix(rel, "..") {
			return "", fmt.Errorf("pattern %s is outside %s; pass the directory as path", p.Pattern, base)
		}
		pat = filepath.ToSlash(rel)
	}
	if !doublestar.ValidatePattern(pat) {
		return "", fmt.Errorf("%q is not a valid glob pattern", p.Pattern)
	}
	type hit struct {
		path string
		mod  time.Time
	}
	var hits []hit
	hidden := 0
	if _, err := permission.AsChecked(ctx, base); err != nil {
		return "", err
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return "", fmt.Errorf("glob %s in %s: %v", p.Pattern, base, errText(err))
	}
	defer root.Close()
	err = doublestar.GlobWalk(root.FS(), pat, func(rel string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if skipDir(rel) || d.IsDir() {
			return nil
		}
		path := filepath.Join(base, filepath.FromSlash(rel))
		if e.Hidden("Glob", path) {
			hidden++
			return nil
		}
		var mod time.Time
		if fi, err := d.Info(); err == nil {
			mod = fi.ModTime()
		}
		hits = append(hits, hit{path, mod})
		return nil
	}, doublestar.WithNoFollow())
	if err != nil {
		return "", fmt.Errorf("glob %s in %s: %v", p.Pattern, base, errText(err))
	}
	slices.SortFunc(hits, func(x, y hit) int {
		if c := y.mod.Compare(x.mod); c != 0 {
			return c
		}
		return strings.Compare(x.path, y.path)
	})
	if len(hits) == 0 {
		return fmt.Sprintf("No files match %s in %s.", p.Pattern, base) + hiddenNote(hidden), nil
	}
	var b strings.Builder
	for i, h := range hits {
		if i == GlobMaxResults {
			fmt.Fprintf(&b, "[strata: %d more files match; narrow the pattern]\n", len(hits)-GlobMaxResults)
			break
		}
		if i < touchMaxHits {
			e.Touch(ctx, h.path)
		}
		b.WriteString(h.path)
		b.WriteByte('\n')
	}
	return b.String() + hiddenNote(hidden), nil
})

// hiddenNote tells the model that n files were left out because the permission rules deny
// reading them ("" for none).
func hiddenNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "\n[strata: 1 file that the permission rules deny reading was left out]\n"
	}
	return fmt.Sprintf("\n[strata: %d files that the permission rules deny reading were left out]\n", n)
}

// skipDir reports whether a slash-separated relative path lies in a directory tools skip.
func skipDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if fsutil.IsGitName(part) || part == "node_modules" {
			return true
		}
	}
	return false
}

var grepTool = newTool("Grep", permission.ClassRead, runGrep)

func runGrep(ctx context.Context, e Env, p *toolcall.Grep) (string, error) {
	expr := p.Pattern
	if p.Insens {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", fmt.Errorf("bad regular expression: %v", err)
	}
	mode := p.OutputMode
	if mode == "" {
		mode = "files_with_matches"
	}
	if mode != "files_with_matches" && mode != "content" && mode != "count" {
		return "", fmt.Errorf("output_mode %q: use files_with_matches, content or count", mode)
	}
	limit := p.HeadLimit
	if limit <= 0 {
		limit = GrepDefaultLines
	}
	if p.Glob != "" && !doublestar.ValidatePattern(p.Glob) {
		return "", fmt.Errorf("glob %q is not valid", p.Glob)
	}
	root := p.Path
	if root == "" {
		root = e.Cwd()
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("cannot search %s: %v", root, errText(err))
	}
	var files []string
	hidden := 0
	var read func(path string) ([]byte, error) // through the search's root
	if !fi.IsDir() {
		if !fi.Mode().IsRegular() {
			return "", notRegular(root, fi.Mode())
		}
		fp, err := filePath(ctx, e.Cwd(), root)
		if err != nil {
			return "", fmt.Errorf("cannot search %s: %v", root, errText(err))
		}
		read = func(string) ([]byte, error) { return fp.ReadFile(grepMaxFileBytes) }
		files = []string{root}
	} else {
		if _, err := permission.AsChecked(ctx, root); err != nil {
			return "", err
		}
		dir, err := os.OpenRoot(root)
		if err != nil {
			return "", fmt.Errorf("cannot search %s: %v", root, errText(err))
		}
		defer dir.Close()
		read = func(path string) ([]byte, error) {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return nil, err
			}
			return fsutil.ReadRegularIn(dir, rel, grepMaxFileBytes)
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if d.IsDir() {
				if n := d.Name(); path != root && (fsutil.IsGitName(n) || n == "node_modules") {
					return filepath.SkipDir
				}
				if path != root && e.Hidden("Grep", path) {
					hidden++
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if p.Glob != "" {
				rel, _ := filepath.Rel(root, path)
				rel = filepath.ToSlash(rel)
				ok, _ := doublestar.Match(p.Glob, rel)
				if !ok && !strings.Contains(p.Glob, "/") {
					ok, _ = doublestar.Match(p.Glob, d.Name())
				}
				if !ok {
					return nil
				}
			}
			if e.Hidden("Grep", path) {
				hidden++
				return nil
			}
			files = append(files, path)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	var b strings.Builder
	lines, matchedFiles := 0, 0
	full := false
	emit := func(s string) bool {
		if lines >= limit {
			full = true
			return false
		}
		b.WriteString(s)
		b.WriteByte('\n')
		lines++
		return true
	}
	for _, path := range files {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if full {
			break
		}
		data, err := read(path)
		if err != nil && len(files) == 1 && !errors.Is(err, fsutil.ErrTooLarge) {
			return "", readErr("search", path, err) // the one file asked for
		}
		if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			continue // unreadable, too large or not regular: skipped, as are binary files
		}
		if !re.Match(data) {
			continue
		}
		matchedFiles++
		if matchedFiles <= touchMaxHits {
			e.Touch(ctx, path)
		}
		switch mode {
		case "files_with_matches":
			emit(path)
		case "count":
			n := 0
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, grepMaxFileBytes+1)
			for sc.Scan() {
				if re.Match(sc.Bytes()) {
					n++
				}
			}
			emit(path + ":" + strconv.Itoa(n))
		case "content":
			all := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			last := -1
			for i, l := range all {
				if !re.MatchString(l) {
					continue
				}
				from, to := max(0, i-p.Context), min(len(all)-1, i+p.Context)
				if last >= 0 && from > last+1 && p.Context > 0 {
					emit("--")
				}
				for j := max(from, last+1); j <= to; j++ {
					sep := ":"
					if j != i && !re.MatchString(all[j]) {
						sep = "-"
					}
					if !emit(fmt.Sprintf("%s%s%d%s%s", path, sep, j+1, sep, truncLine(all[j]))) {
						break
					}
				}
				last = to
			}
		}
	}
	if matchedFiles == 0 {
		return fmt.Sprintf("No matches for %s in %s.", p.Pattern, root) + hiddenNote(hidden), nil
	}
	if full {
		fmt.Fprintf(&b, "[strata: output cut at %d lines; narrow the search or raise head_limit]\n", limit)
	}
	return b.String() + hiddenNote(hidden), nil
}

func truncLine(s string) string {
	if len(s) <= ReadMaxLineChars {
		return s
	}
	cut := ReadMaxLineChars
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + " [cut]"
}
