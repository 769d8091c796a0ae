package chatui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// History is the prompt history kept across sessions, as Claude Code keeps it: one JSON line
// per prompt in a history.jsonl file ({"display": the prompt, "timestamp": Unix milliseconds,
// "project": the project's directory}), appended with O_APPEND. Reading takes only the file's
// tail and skips lines that do not decode (a torn last line, another tool's record), so a
// long or damaged file costs neither time nor the session.
type History struct {
	// Path is the history file; "" keeps the history in memory only.
	Path string
	// Project is the directory whose prompts ↑ recalls.
	Project string
}

// historyEntry is one line of history.jsonl.
type historyEntry struct {
	Display   string `json:"display"`
	Timestamp int64  `json:"timestamp"`
	Project   string `json:"project"`
}

// historyTail is how much of the file's end Load reads, and historyMax how many prompts it
// keeps.
const (
	historyTail = 256 << 10
	historyMax  = 200
)

// Load returns the project's prompts, oldest first: at most historyMax, from the last
// historyTail bytes of the file. A missing file is an empty history.
func (h History) Load() ([]string, error) {
	if h.Path == "" {
		return nil, nil
	}
	f, st, err := fsutil.OpenRegular(h.Path, math.MaxInt64) // only the tail is read
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("chatui: history: %w", err)
	}
	defer f.Close()
	off := max(0, st.Size()-historyTail)
	buf, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, fmt.Errorf("chatui: history %s: %w", h.Path, err)
	}
	if off > 0 { // the first line is probably cut: skip it
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:]
		}
	}
	var out []string
	for line := range bytes.Lines(buf) {
		var e historyEntry
		if json.Unmarshal(line, &e) != nil || e.Display == "" || e.Project != h.Project {
			continue
		}
		if n := len(out); n > 0 && out[n-1] == e.Display {
			continue
		}
		out = append(out, e.Display)
	}
	if len(out) > historyMax {
		out = out[len(out)-historyMax:]
	}
	return out, nil
}

// Add appends one prompt: one line, one write, file 0600 and directory 0700 created as
// needed.
func (h History) Add(prompt string, now time.Time) error {
	if h.Path == "" {
		return nil
	}
	line, err := json.Marshal(historyEntry{Display: prompt, Timestamp: now.UnixMilli(), Project: h.Project})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.Path), 0o700); err != nil {
		return fmt.Errorf("chatui: history: %w", err)
	}
	f, err := os.OpenFile(h.Path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("chatui: history: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("chatui: history %s: %w", h.Path, err)
	}
	return f.Close()
}
