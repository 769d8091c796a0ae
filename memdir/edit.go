package memdir

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/strata-mem/strata/internal/fsutil"
)

// EditProblems returns what is wrong with data as the new text of the memory was: frontmatter
// that does not parse, or a description or type the memory had and the edit lost. It is the
// check of every hand edit (strata memory edit, strata ui); secrets are checked apart
// (ScanSecrets), as an editor may already have written them.
func EditProblems(was Memory, data []byte) []Diagnostic {
	m, diags := ParseFile(was.Path, was.File, data)
	var out []Diagnostic
	for _, d := range diags {
		if d.Severity == SevError {
			out = append(out, d)
		}
	}
	lost := func(key, had, has string) {
		if had != "" && has == "" {
			out = append(out, Diagnostic{Path: was.Path, Line: 1, Severity: SevError,
				Message: "the frontmatter lost its " + key + " (it was " + strconv.Quote(had) + ")"})
		}
	}
	lost("description", was.Description, m.Description)
	lost("type", string(was.Type), string(m.Type))
	return out
}

// EditError is returned by Edit when the new text fails a check: nothing was written.
type EditError struct {
	Problems []Diagnostic
}

func (e *EditError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].String()
	}
	return fmt.Sprintf("%s (and %d more problems)", e.Problems[0], len(e.Problems)-1)
}

// Edit replaces the text of the memory in file (a topic file: IsTopicFile) with data, as a
// hand edit in an editor would, under the store's write lock: data must pass EditProblems and
// hold no secret, and the file must still hold the text whose ContentHash is base
// (ErrChanged otherwise: someone else wrote it meanwhile). The file is replaced atomically and its index line brought in step; when the
// index refuses the line (ErrIndexFull, a secret), the old text is put back. Nothing is written
// when a check fails (*EditError).
func (s *Store) Edit(ctx context.Context, file string, data []byte, base string) (indexChanged bool, err error) {
	file, err = cleanRel(file)
	if err != nil {
		return false, err
	}
	if !isTopicPath(file) {
		return false, fmt.Errorf("memdir: edit %s: not a memory (MEMORY.md, logs and hidden files are not edited here)", s.abs(file))
	}
	err = s.Locked(ctx, func(tx *Tx) error {
		rel := filepath.FromSlash(file)
		old, err := fsutil.ReadRegularIn(tx.root, rel, MaxWholeRead)
		if err != nil {
			return fmt.Errorf("memdir: edit %s: %w", s.abs(file), err)
		}
		if ContentHash(old) != base {
			return fmt.Errorf("memdir: edit %s: %w", s.abs(file), ErrChanged)
		}
		was, _ := ParseFile(s.abs(file), file, old)
		problems := EditProblems(was, data)
		for _, sf := range ScanSecrets(string(bytes.ToValidUTF8(data, nil))) {
			problems = append(problems, Diagnostic{Path: s.abs(file), Line: sf.Line, Severity: SevError,
				Message: "looks like a secret (" + sf.Kind + "); remove it"})
		}
		if bytes.IndexByte(data, 0) >= 0 {
			problems = append(problems, Diagnostic{Path: s.abs(file), Line: 1, Severity: SevError, Message: ErrBinary.Error()})
		}
		if int64(len(data)) > MaxFileBytes {
			problems = append(problems, Diagnostic{Path: s.abs(file), Line: 1, Severity: SevError,
				Message: fmt.Sprintf("%s: %d bytes, the limit is %d", ErrTooLarge, len(data), MaxFileBytes)})
		}
		if len(problems) > 0 {
			return &EditError{Problems: problems}
		}
		if err := fsutil.WriteFileFS(fsutil.RootFS(tx.root), rel, data, fsutil.FileMode); err != nil {
			return fmt.Errorf("memdir: edit %s: %w", s.abs(file), err)
		}
		indexChanged, err = tx.Reindex(ctx, file)
		if err != nil {
			if rerr := fsutil.WriteFileFS(fsutil.RootFS(tx.root), rel, old, fsutil.FileMode); rerr != nil {
				return fmt.Errorf("memdir: edit %s: %w; putting the old text back failed too: %v", s.abs(file), err, rerr)
			}
			return fmt.Errorf("memdir: edit %s: %w (the old text is back)", s.abs(file), err)
		}
		return nil
	})
	return indexChanged, err
}
