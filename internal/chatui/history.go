package chatui

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// History is the prompt history kept across sessions, as Claude Code keeps it: one JSON line
// per prompt in a history.jsonl file ({"display": the prompt, "pastedContents": the pastes its
// placeholders stand for, by number, "timestamp": Unix milliseconds, "project": the project's
// directory}), appended with O_APPEND. A paste over pasteInline bytes is kept beside the file,
// in pastes/SHA256.txt, and named by its hash. Reading takes only the file's tail and skips
// lines that do not decode (a torn last line, another tool's record), so a long or damaged
// file costs neither time nor the session.
type History struct {
	// Path is the history file; "" keeps the history in memory only.
	Path string
	// Project is the directory whose prompts ↑ recalls.
	Project string
}

// Prompt is one prompt of the history: its text, and the pastes its placeholders
// ("[Pasted text #1 +120 lines]") stand for.
type Prompt struct {
	Text   string
	Pastes map[string]string // by placeholder
}

// historyEntry is one line of history.jsonl.
type historyEntry struct {
	Display        string                  `json:"display"`
	PastedContents map[string]pastedRecord `json:"pastedContents,omitempty"`
	Timestamp      int64                   `json:"timestamp"`
	Project        string                  `json:"project"`
}

// pastedRecord is one paste of a prompt: its text, or the hash of the file that keeps it.
type pastedRecord struct {
	ID          int    `json:"id"`
	Type        string `json:"type"`
	Content     string `json:"content,omitempty"`
	ContentHash string `json:"contentHash,omitempty"`
}

// pasteInline is the largest paste kept inside its history line; a larger one goes to a file
// of its own, so that the tail Load reads still holds many prompts.
const pasteInline = 16 << 10

// placeholderRE matches a paste's placeholder; its group is the paste's number. It is
// compiled on first use, not at every strata start.
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[Pasted text #(\d+) [^\]\n]*\]`) })

// historyTail is how much of the file's end Load reads, and historyMax how many prompts it
// keeps.
const (
	historyTail = 256 << 10
	historyMax  = 200
)

// Load returns the project's prompts, oldest first: at most historyMax, from the last
// historyTail bytes of the file. A missing file is an empty history; a paste whose file is
// gone leaves its placeholder as text.
func (h History) Load() ([]Prompt, error) {
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
	var out []Prompt
	for line := range bytes.Lines(buf) {
		var e historyEntry
		if json.Unmarshal(line, &e) != nil || e.Display == "" || e.Project != h.Project {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Text == e.Display {
			continue
		}
		out = append(out, Prompt{Text: e.Display, Pastes: h.pastes(e)})
	}
	if len(out) > historyMax {
		out = out[len(out)-historyMax:]
	}
	return out, nil
}

// pastes is the pastes of an entry by placeholder: those its display still holds, read from
// their files when kept apart.
func (h History) pastes(e historyEntry) map[string]string {
	var out map[string]string
	for _, m := range placeholderRE().FindAllStringSubmatch(e.Display, -1) {
		r, ok := e.PastedContents[m[1]]
		text := r.Content
		if r.ContentHash != "" {
			b, err := fsutil.ReadRegular(h.pasteFile(r.ContentHash), 64<<20)
			if err != nil || hashOf(string(b)) != r.ContentHash {
				continue
			}
			text = string(b)
		}
		if !ok || text == "" {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[m[0]] = text
	}
	return out
}

// pasteFile is where a paste kept apart lives, by the hash of its text.
func (h History) pasteFile(hash string) string {
	if len(hash) != 64 || strings.Trim(hash, "0123456789abcdef") != "" {
		hash = "invalid"
	}
	return filepath.Join(filepath.Dir(h.Path), "pastes", hash+".txt")
}

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Add appends one prompt: one line, one write, file 0600 and directory 0700 created as
// needed; a large paste is written to its file first.
func (h History) Add(p Prompt, now time.Time) error {
	if h.Path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(h.Path), 0o700); err != nil {
		return fmt.Errorf("chatui: history: %w", err)
	}
	e := historyEntry{Display: p.Text, Timestamp: now.UnixMilli(), Project: h.Project}
	for _, m := range placeholderRE().FindAllStringSubmatch(p.Text, -1) {
		text, ok := p.Pastes[m[0]]
		if !ok {
			continue
		}
		id, _ := strconv.Atoi(m[1])
		r := pastedRecord{ID: id, Type: "text", Content: text}
		if len(text) > pasteInline {
			r.Content, r.ContentHash = "", hashOf(text)
			if err := h.keepPaste(r.ContentHash, text); err != nil {
				return err
			}
		}
		if e.PastedContents == nil {
			e.PastedContents = map[string]pastedRecord{}
		}
		e.PastedContents[m[1]] = r
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
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

// keepPaste writes a large paste to its file (0600), unless it is there already: the name is
// its hash, so the same paste is kept once.
func (h History) keepPaste(hash, text string) error {
	path := h.pasteFile(hash)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("chatui: history: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return fmt.Errorf("chatui: history: keeping a paste: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("chatui: history: keeping a paste: %w", err)
	}
	return nil
}
