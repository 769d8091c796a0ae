package memdir

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/tokens"
)

// Lint returns every problem of the memory dir, sorted by path and line, and changes nothing.
// Errors: broken frontmatter, an index the loader cuts, text that looks like a secret, two
// files of one name. Warnings: dangling index lines, files missing from the index (but those
// a logged step took out: OutOfIndex) or indexed twice, missing frontmatter keys, unknown
// types, binary or oversized files, symlinks out, leftover temp files, drifted descriptions
// (see Repair), a nested MEMORY.md, and a memory telling the agent to run a command
// (runCommandLine). The error is for an unreadable dir.
func (s *Store) Lint(ctx context.Context) ([]Diagnostic, error) {
	mems, diags, err := s.List(ctx)
	if err != nil {
		return diags, err
	}
	root, ok, err := s.openRoot()
	if err != nil || !ok {
		return diags, err
	}
	defer root.Close()

	byFile := map[string]Memory{}
	byName := map[string]Memory{}
	byFold := map[string]Memory{}
	for _, m := range mems {
		warn := func(msg string) {
			diags = append(diags, Diagnostic{Path: m.Path, Line: 1, Severity: SevWarning, Message: msg})
		}
		switch {
		case m.Type == "":
			warn("no type in the frontmatter (user, feedback, project or reference)")
		case !m.Type.Known():
			warn(fmt.Sprintf("unknown type %q (expected user, feedback, project or reference); kept as written", m.Type))
		}
		if m.Description == "" {
			warn("no description in the frontmatter; recall and the index rely on it")
		}
		if other, dup := byName[m.Name]; dup {
			diags = append(diags, Diagnostic{Path: m.Path, Line: 1, Severity: SevError,
				Message: fmt.Sprintf("duplicate name %q: %s has it too; merge them or rename one", m.Name, other.File)})
		} else if other, dup := byFold[NameKey(m.Name)]; dup {
			warn(fmt.Sprintf("name %q differs only in case, width or Unicode form from %q in %s", m.Name, other.Name, other.File))
		}
		byName[m.Name] = m
		byFile[m.File] = m
		byFold[NameKey(m.Name)] = m
		if data, err := readCapped(root, m.File); err == nil {
			for _, f := range ScanSecrets(string(data)) {
				diags = append(diags, Diagnostic{Path: m.Path, Line: f.Line, Severity: SevError, Message: "looks like a secret (" + f.Kind + "); remove it"})
			}
			if n, l := runCommandLine(string(data)); n > 0 {
				diags = append(diags, Diagnostic{Path: m.Path, Line: n, Severity: SevWarning,
					Message: fmt.Sprintf("tells the agent to run a command (%s); every session reads it — keep it only if you wrote or approved it", clip(l, 80))})
			}
		}
	}

	idx, exists, err := s.readIndexRaw()
	if err != nil {
		diags = append(diags, Diagnostic{Path: s.IndexPath(), Severity: SevError, Message: "cannot read: " + unwrapPath(errors.Unwrap(err))})
	}
	indexed := map[string]int{}
	if exists {
		ip := s.IndexPath()
		for _, e := range indexLinks(root, idx) {
			if first, dup := indexed[e.File]; dup {
				diags = append(diags, Diagnostic{Path: ip, Line: e.Line, Severity: SevWarning,
					Message: fmt.Sprintf("%s is already linked on line %d", e.File, first)})
				continue
			}
			indexed[e.File] = e.Line
			switch e.State {
			// A line linking nothing readable is a warning: the loader shows the line as it is
			// and no reader of the index acts on the link, so the model's view does not change.
			case LinkMissing:
				diags = append(diags, Diagnostic{Path: ip, Line: e.Line, Severity: SevWarning,
					Message: fmt.Sprintf("links %s, which does not exist; remove the line (strata memory forget %q) or restore the file", e.File, e.Title)})
			case LinkUnreadable:
				diags = append(diags, Diagnostic{Path: ip, Line: e.Line, Severity: SevWarning,
					Message: fmt.Sprintf("links %s, which cannot be read: %s", e.File, unwrapPath(e.Err))})
			case LinkDir:
				diags = append(diags, Diagnostic{Path: ip, Line: e.Line, Severity: SevWarning,
					Message: fmt.Sprintf("links %s, which is a directory", e.File)})
			default:
				if m, ok := byFile[e.File]; ok && e.Title != m.Name && strataLine(e.IndexEntry) {
					diags = append(diags, Diagnostic{Path: ip, Line: e.Line, Severity: SevWarning,
						Message: fmt.Sprintf("title %q differs from the name %q in %s; strata memory edit %q re-indexes it", e.Title, m.Name, e.File, m.Name)})
				}
			}
		}
		norm := strings.ReplaceAll(strings.TrimPrefix(idx, "\ufeff"), "\r\n", "\n")
		// Report what loading really does to the model's view, no more.
		cut := cutIndex(norm, s.opts.MaxIndexLines, s.opts.MaxIndexBytes)
		if cut.lines {
			diags = append(diags, Diagnostic{Path: ip, Line: s.opts.MaxIndexLines + 1, Severity: SevError,
				Message: fmt.Sprintf("%d lines, over the %d-line limit: the model sees only the first %d; consolidate related memories", countLines(norm), s.opts.MaxIndexLines, s.opts.MaxIndexLines)})
		}
		if cut.chars {
			diags = append(diags, Diagnostic{Path: ip, Line: countLines(cut.text) + 1, Severity: SevError,
				Message: fmt.Sprintf("%d characters, over the %d-character limit: the model sees only the first %d lines; shorten the index lines or consolidate", tokens.Chars(norm), s.opts.MaxIndexBytes, countLines(cut.text))})
		}
		for _, f := range ScanSecrets(norm) {
			diags = append(diags, Diagnostic{Path: ip, Line: f.Line, Severity: SevError, Message: "looks like a secret (" + f.Kind + "); remove it"})
		}
	}
	diags = append(diags, s.lintLeftovers(root, mems, idx)...)
	nested, err := s.nestedIndexes(ctx, root)
	if err != nil {
		return diags, err
	}
	for _, p := range nested {
		diags = append(diags, Diagnostic{Path: s.abs(p), Severity: SevWarning,
			Message: fmt.Sprintf("a %s in a subdirectory is neither the index (only the top-level %s is) nor a memory: it is not listed, recalled or indexed; move its lines into the top-level %s or rename it", IndexFile, IndexFile, IndexFile)})
	}
	recs, _ := ReadArchiveLog(s.dir) // unreadable: every unindexed file is reported
	out := OutOfIndex(recs)
	for _, m := range mems {
		if _, ok := indexed[m.File]; !ok && !out[m.File] {
			diags = append(diags, Diagnostic{Path: m.Path, Severity: SevWarning,
				Message: fmt.Sprintf("not in %s, so the model does not see it in the index; add a line for it (strata memory edit %q re-indexes it)", IndexFile, m.Name)})
		}
	}

	logs, err := s.Logs(ctx)
	if err != nil {
		diags = append(diags, Diagnostic{Path: filepath.Join(s.dir, LogsDir), Severity: SevWarning, Message: err.Error()})
	}
	for _, l := range logs {
		data, err := readCapped(root, l)
		if err != nil {
			continue
		}
		for _, f := range ScanSecrets(string(data)) {
			diags = append(diags, Diagnostic{Path: s.abs(l), Line: f.Line, Severity: SevError, Message: "looks like a secret (" + f.Kind + "); remove it"})
		}
	}

	sort.SliceStable(diags, func(i, j int) bool {
		if diags[i].Path != diags[j].Path {
			return diags[i].Path < diags[j].Path
		}
		return diags[i].Line < diags[j].Line
	})
	return diags, ctx.Err()
}

func readCapped(root *os.Root, rel string) ([]byte, error) {
	f, _, err := fsutil.OpenRegularIn(root, filepath.FromSlash(rel), math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileBytes))
}

// Errors counts the diagnostics of severity error.
func Errors(diags []Diagnostic) int {
	n := 0
	for _, d := range diags {
		if d.Severity == SevError {
			n++
		}
	}
	return n
}

// nestedIndexes returns the files named MEMORY.md in the subdirectories List walks (IsTopicFile
// leaves them out), slash-separated and sorted.
func (s *Store) nestedIndexes(ctx context.Context, root *os.Root) ([]string, error) {
	ents, _, err := s.scan(ctx, root)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if !e.dir || e.file == "." {
			continue
		}
		p := path.Join(e.file, IndexFile)
		if fi, err := root.Lstat(filepath.FromSlash(p)); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return out, nil
}
