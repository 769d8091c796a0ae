package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
)

// DefaultMaxLogBytes is how much of one daily log Distil sends to the model.
const DefaultMaxLogBytes = 100_000

// DistilOptions configure Distil. The zero value uses the defaults.
type DistilOptions struct {
	// Model is the model id; "" means the provider's configured model.
	Model string
	// Now decides which logs are finished: only logs of days before Now's (local) day are
	// distilled. Zero means time.Now().
	Now time.Time
	// MaxLogBytes cuts a longer log at the last newline before it; 0 means DefaultMaxLogBytes.
	MaxLogBytes int
	// Logger receives debug notes; nil discards them.
	Logger *slog.Logger
}

// Distilled is what Distil did with one daily log.
type Distilled struct {
	Log        string   `json:"log"`         // the log, relative to the memory dir
	Memories   []string `json:"memories"`    // topic files written or updated
	ArchivedTo string   `json:"archived_to"` // where the log went, relative to the memory dir
}

// distilSchema is the structured output Distil asks for.
var distilSchema = &llm.Schema{
	Name:        "memories",
	Description: "The durable memories distilled from one daily log.",
	Schema: json.RawMessage(`{"type":"object","properties":{"memories":{"type":"array","items":{"type":"object",` +
		`"properties":{"name":{"type":"string"},"description":{"type":"string"},` +
		`"type":{"type":"string","enum":["user","feedback","project","reference"]},"body":{"type":"string"}},` +
		`"required":["name","description","type","body"]}}},"required":["memories"]}`),
}

const distilPrompt = `You maintain an agent's long-term memory for one project. You get one finished daily log
(timestamped notes taken during work) and the current memory index. Turn what will still matter
in later sessions into topic memories: who the user is and how they like to work (user), their
corrections and confirmed preferences (feedback), facts and decisions about the project
(project), and where to find things (reference). Leave out what the code or the git history
already records, one-off details, and anything that looks like a secret.

To update an existing memory, reuse its exact name from the index and write its whole new body.
Give each memory a short name, a one-line description saying when it matters, and a body in
markdown; keep "key: value" lines for single facts. Write in the language of the log. Return an
empty list when nothing in the log is worth keeping.`

type distilReply struct {
	Memories []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Type        string `json:"type"`
		Body        string `json:"body"`
	} `json:"memories"`
}

// Distil turns finished daily logs (days before today) into topic memories with the model:
// one request per log, oldest first, with the current index so existing memories are updated
// by name. The memories are written through a topic-mode store over the same dir (so every
// memdir guarantee holds: secrets refused, index limits kept); then the log is moved to
// .archive/logs/… and the move logged in .archive/ARCHIVE.log. On any failure Distil stops
// and returns what it finished with the error; the failing log stays where it was, so a rerun
// picks it up again (a memory written before the failure is rewritten under the same name).
func Distil(ctx context.Context, p llm.Provider, s *memdir.Store, opts DistilOptions) ([]Distilled, error) {
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	if opts.MaxLogBytes == 0 {
		opts.MaxLogBytes = DefaultMaxLogBytes
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	topics := s
	if s.Mode() == memdir.ModeDailyLog {
		var err error
		if topics, err = memdir.Open(s.Dir(), memdir.Options{Now: func() time.Time { return opts.Now }, Logger: opts.Logger}); err != nil {
			return nil, fmt.Errorf("extract: distil: %w", err)
		}
	}
	logs, err := s.Logs(ctx)
	if err != nil {
		return nil, fmt.Errorf("extract: distil: %w", err)
	}
	var done []Distilled
	for _, rel := range logs {
		if sameOrLaterDay(rel, opts.Now) {
			continue
		}
		d, err := distilOne(ctx, p, topics, rel, opts)
		if err != nil {
			return done, err
		}
		log.Debug("extract: distilled", "log", rel, "memories", len(d.Memories))
		done = append(done, d)
	}
	return done, nil
}

// sameOrLaterDay reports whether the log at rel (logs/YYYY/MM/YYYY-MM-DD.md) is of now's day
// or later; a name that is not a day counts as later, so it is left alone.
func sameOrLaterDay(rel string, now time.Time) bool {
	day, err := time.Parse("2006-01-02", strings.TrimSuffix(filepath.Base(rel), ".md"))
	if err != nil {
		return true
	}
	return day.Format("2006-01-02") >= now.Format("2006-01-02")
}

func distilOne(ctx context.Context, p llm.Provider, s *memdir.Store, rel string, opts DistilOptions) (Distilled, error) {
	d := Distilled{Log: filepath.ToSlash(rel), Memories: []string{}}
	path := filepath.Join(s.Dir(), rel)
	data, err := os.ReadFile(path)
	if err != nil {
		return d, fmt.Errorf("extract: distil %s: %w", path, err)
	}
	text := string(data)
	if len(text) > opts.MaxLogBytes {
		cut := strings.LastIndexByte(text[:opts.MaxLogBytes], '\n')
		if cut < 0 {
			cut = opts.MaxLogBytes
		}
		text = text[:cut] + "\n[… log cut at " + fmt.Sprint(opts.MaxLogBytes) + " bytes]\n"
	}
	idx, err := s.LoadIndex(ctx)
	if err != nil {
		return d, fmt.Errorf("extract: distil: %w", err)
	}
	index := idx.Text
	if !idx.Exists || strings.TrimSpace(index) == "" {
		index = "(empty)"
	}
	user := "Memory index (MEMORY.md):\n\n" + index + "\n\nDaily log " + d.Log + ":\n\n" + text
	resp, err := llm.Complete(ctx, p, &llm.Request{
		Model:    opts.Model,
		System:   []llm.SystemBlock{{Text: distilPrompt, Cache: true}},
		Messages: []conversation.Message{conversation.NewText(conversation.User, user)},
		Output:   distilSchema,
	})
	if err != nil {
		return d, fmt.Errorf("extract: distil %s: %w", d.Log, err)
	}
	var reply distilReply
	if err := json.Unmarshal(resp.Structured, &reply); err != nil {
		return d, fmt.Errorf("extract: distil %s: the model's reply is not the asked shape: %w", d.Log, err)
	}
	for _, m := range reply.Memories {
		if strings.TrimSpace(m.Name) == "" || strings.TrimSpace(m.Body) == "" {
			continue
		}
		res, err := s.Add(ctx, memdir.Input{Name: m.Name, Description: m.Description, Type: memdir.Type(m.Type), Body: m.Body})
		if err != nil {
			return d, fmt.Errorf("extract: distil %s: memory %q: %w", d.Log, m.Name, err)
		}
		d.Memories = append(d.Memories, res.File)
	}
	to := filepath.ToSlash(filepath.Join(".archive", rel))
	dst := filepath.Join(s.Dir(), filepath.FromSlash(to))
	if _, err := os.Lstat(dst); err == nil {
		to = strings.TrimSuffix(to, ".md") + "." + opts.Now.UTC().Format("20060102T150405Z") + ".md"
		dst = filepath.Join(s.Dir(), filepath.FromSlash(to))
	} else if !errors.Is(err, os.ErrNotExist) {
		return d, fmt.Errorf("extract: distil %s: %w", dst, err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return d, fmt.Errorf("extract: distil %s: %w", dst, err)
	}
	if err := os.Rename(path, dst); err != nil {
		return d, fmt.Errorf("extract: distil %s: %w", path, err)
	}
	d.ArchivedTo = to
	survivors := strings.Join(d.Memories, ",")
	err = appendArchiveLog(s.Dir(), opts.Now, Action{Kind: "distil", File: d.Log, ArchivedTo: to, Survivor: survivors,
		Reason: fmt.Sprintf("daily log distilled into %d memories", len(d.Memories))}, nil)
	return d, err
}
