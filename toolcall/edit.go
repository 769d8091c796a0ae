package toolcall

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of Edit.Check and Edit.Apply. The returned errors wrap them, with the path and what
// to do instead in their text.
var (
	// ErrEmptyOld: old_string is empty (an edit cannot create a file).
	ErrEmptyOld = errors.New("old_string is empty")
	// ErrNoChange: old_string and new_string are the same.
	ErrNoChange = errors.New("old_string and new_string are the same")
	// ErrNotFound: old_string does not occur in the text.
	ErrNotFound = errors.New("old_string was not found")
	// ErrNotUnique: old_string occurs more than once and ReplaceAll is not set.
	ErrNotUnique = errors.New("old_string is not unique")
)

// editError is a refusal with its own text that still matches its sentinel.
type editError struct {
	kind error
	msg  string
}

func (e *editError) Error() string { return e.msg }
func (e *editError) Unwrap() error { return e.kind }

// Applied is what Apply did.
type Applied struct {
	// Text is the new text.
	Text string
	// Count is how many occurrences were replaced; Line is the 1-based line of the first.
	Count, Line int
}

// Summary is the line the model gets for a successful edit of path.
func (a Applied) Summary(path string) string {
	if a.Count > 1 {
		return fmt.Sprintf("Edited %s: replaced %d occurrences.", path, a.Count)
	}
	return fmt.Sprintf("Edited %s at line %d.", path, a.Line)
}

// Check refuses an edit that could not change any text, before the file is read: an empty
// OldString (ErrEmptyOld) or a NewString equal to it (ErrNoChange).
func (e *Edit) Check() error {
	switch {
	case e.OldString == "":
		return &editError{ErrEmptyOld, "old_string is empty; to create or replace a whole file use Write"}
	case e.OldString == e.NewString:
		return &editError{ErrNoChange, "old_string and new_string are the same; nothing to change"}
	}
	return nil
}

// Apply replaces OldString by NewString in text: its one occurrence, or every one with
// ReplaceAll. It is the one implementation of the Edit tool. Besides Check's errors it
// refuses an OldString that does not occur (ErrNotFound) or occurs more than once without
// ReplaceAll (ErrNotUnique); the messages name FilePath.
func (e *Edit) Apply(text string) (Applied, error) {
	if err := e.Check(); err != nil {
		return Applied{}, err
	}
	n := strings.Count(text, e.OldString)
	switch {
	case n == 0:
		return Applied{}, &editError{ErrNotFound, fmt.Sprintf("old_string was not found in %s; Read the file and copy the text exactly (without line numbers)", e.FilePath)}
	case n > 1 && !e.ReplaceAll:
		return Applied{}, &editError{ErrNotUnique, fmt.Sprintf("old_string occurs %d times in %s; add surrounding lines to make it unique, or set replace_all", n, e.FilePath)}
	}
	line := strings.Count(text[:strings.Index(text, e.OldString)], "\n") + 1
	if !e.ReplaceAll {
		n = 1
	}
	return Applied{Text: strings.Replace(text, e.OldString, e.NewString, n), Count: n, Line: line}, nil
}
