package agent

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/strata-mem/strata/conversation"
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
	touchMaxHits     = 50 // Glob/Grep hits passed to instructions' Touch per call
)

var readTool = newTool("Read", classRead, runRead)

func runRead(ctx context.Context, e env, p *toolcall.Read) (string, error) {
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
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	e.touch(ctx, path)
	if stub, ok := e.cache().Reread(path, p.Offset, p.Limit, fi.ModTime()); ok {
		return stub, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %v", path, errText(err))
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "", fmt.Errorf("%s is a binary file; Read shows text files only", path)
	}
	out, shown := numberLines(string(data), p.Offset, p.Limit)
	if err := e.cache().Record(conversation.FileState{Path: path, Content: shownContent(data, p.Offset, p.Limit), ModTime: fi.ModTime(),
		Offset: p.Offset, Limit: p.Limit, Source: conversation.SourceRead}); err != nil {
		e.logger().Warn("agent: read cache", "path", path, "err", err)
	}
	if shown == 0 {
		if len(data) == 0 {
			return fmt.Sprintf("(%s is empty)", path), nil
		}
		return fmt.Sprintf("(%s has fewer lines than offset %d)", path, p.Offset), nil
	}
	return out, nil
}

// shownContent is what the read cache keeps for a Read: the whole file for a full read (so a
// touched-but-unchanged file can still be written), the file too for a ranged one (the cache
// uses content only for full reads).
func shownContent(data []byte, offset, limit int) string { return string(data) }

// numberLines renders lines [offset, offset+limit) as "%6d\t%s".
func numberLines(text string, offset, limit int) (string, int) {
	if offset <= 0 {
		offset = 1
	}
	max := limit
	if max <= 0 {
		max = ReadDefaultLines
	}
	var b strings.Builder
	n, shown, total := 0, 0, 0
	more := false
	for line := range strings.Lines(text) {
		n++
		total = n
		if n < offset {
			continue
		}
		if shown == max || b.Len() > ReadMaxBytes {
			more = true
			continue
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if len(line) > ReadMaxLineChars {
			cut := ReadMaxLineChars
			for cut > 0 && !isRuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + fmt.Sprintf(" [strata: line cut at %d of %d bytes]", cut, len(line))
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, line)
		shown++
	}
	if more {
		fmt.Fprintf(&b, "[strata: showed lines %d-%d of %d; pass offset and limit to read more]\n", offset, offset+shown-1, total)
	}
	return b.String(), shown
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

var writeTool = newTool("Write", classEdit, func(ctx context.Context, e env, p *toolcall.Write) (string, error) {
	if p.FilePath == "" {
		return "", errors.New("file_path is required")
	}
	path := p.FilePath
	e.touch(ctx, path)
	if err := e.cache().CheckWritable(path); err != nil {
		return "", refusal(err)
	}
	_, statErr := os.Stat(path)
	created := errors.Is(statErr, fs.ErrNotExist)
	if err := writeFile(path, []byte(p.Content)); err != nil {
		return "", err
	}
	recordWrite(e, path, p.Content)
	if created {
		return fmt.Sprintf("Created %s (%d lines).", path, lineCount(p.Content)), nil
	}
	return fmt.Sprintf("Wrote %s (%d lines).", path, lineCount(p.Content)), nil
})

// refusal turns a read-cache refusal into the message for the model.
func refusal(err error) error {
	for _, e := range []error{conversation.ErrNotRead, conversation.ErrPartialView, conversation.ErrModified} {
		if errors.Is(err, e) {
			return fmt.Errorf("refused: %v", strings.TrimPrefix(err.Error(), "conversation: "))
		}
	}
	return err
}

// writeFile replaces path's content, keeping an existing file's mode (new files 0644: they
// are the user's files, not strata's).
func writeFile(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create the directory of %s: %v", path, errText(err))
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		return fmt.Errorf("cannot write %s: %v", path, errText(err))
	}
	return nil
}

func recordWrite(e env, path, content string) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if err := e.cache().Record(conversation.FileState{Path: path, Content: content, ModTime: fi.ModTime(), Source: conversation.SourceWrite}); err != nil {
		e.logger().Warn("agent: read cache", "path", path, "err", err)
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

var editTool = newTool("Edit", classEdit, func(ctx context.Context, e env, p *toolcall.Edit) (string, error) {
	if p.FilePath == "" {
		return "", errors.New("file_path is required")
	}
	if err := p.Check(); err != nil {
		return "", err
	}
	path := p.FilePath
	e.touch(ctx, path)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("cannot edit %s: %v", path, errText(err))
	}
	if err := e.cache().CheckWritable(path); err != nil {
		return "", refusal(err)
	}
	done, err := p.Apply(string(data))
	if err != nil {
		return "", err
	}
	if err := writeFile(path, []byte(done.Text)); err != nil {
		return "", err
	}
	recordWrite(e, path, done.Text)
	return done.Summary(path), nil
})

var globTool = newTool("Glob", classRead, func(ctx context.Context, e env, p *toolcall.Glob) (string, error) {
	base := p.Path
	if base == "" {
		base = e.cwd()
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
	err := doublestar.GlobWalk(os.DirFS(base), pat, func(rel string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if skipDir(rel) || d.IsDir() {
			return nil
		}
		path := filepath.Join(base, filepath.FromSlash(rel))
		if e.hidden("Glob", path) {
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
			e.touch(ctx, h.path)
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
		if part == ".git" || part == "node_modules" {
			return true
		}
	}
	return false
}

var grepTool = newTool("Grep", classRead, runGrep)

func runGrep(ctx context.Context, e env, p *toolcall.Grep) (string, error) {
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
		root = e.cwd()
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("cannot search %s: %v", root, errText(err))
	}
	var files []string
	hidden := 0
	if !fi.IsDir() {
		files = []string{root}
	} else {
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped
			}
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			if d.IsDir() {
				if n := d.Name(); path != root && (n == ".git" || n == "node_modules") {
					return filepath.SkipDir
				}
				if path != root && e.hidden("Grep", path) {
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
			if e.hidden("Grep", path) {
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
		if st, err := os.Stat(path); err != nil || st.Size() > grepMaxFileBytes {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
			continue
		}
		if !re.Match(data) {
			continue
		}
		matchedFiles++
		if matchedFiles <= touchMaxHits {
			e.touch(ctx, path)
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
