package webui

import (
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/transcript"
)

// spend is what a session's model calls took: the providers' usage summed over its replies,
// and its list price where every model's is known.
type spend struct {
	Usage    conversation.Usage
	Dollars  float64
	Replies  int
	Unpriced []string // models with no known price: Dollars leaves them out
}

// Tokens is every token the replies were billed for: input, output and cache writes and reads.
func (sp spend) Tokens() int {
	u := sp.Usage
	return u.InputTokens + u.OutputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// add adds u of a reply of model to sp, priced with llm.PriceOf (the CLI's table).
func (sp *spend) add(model string, u conversation.Usage) {
	sp.Replies++
	sp.Usage.InputTokens += u.InputTokens
	sp.Usage.OutputTokens += u.OutputTokens
	sp.Usage.CacheCreationInputTokens += u.CacheCreationInputTokens
	sp.Usage.CacheReadInputTokens += u.CacheReadInputTokens
	if p, ok := llm.PriceOf(model); ok {
		sp.Dollars += p.Cost(u)
	} else if name := cmp.Or(model, "(no model named)"); !contains(sp.Unpriced, name) {
		sp.Unpriced = append(sp.Unpriced, name)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sessionSpend is a session's spend in total and per day (UTC) of its replies.
type sessionSpend struct {
	Total spend
	Days  map[string]spend // "2006-01-02" → the replies of that day
}

// spendOf sums the usage of the replies in chain: Claude Code repeats a reply's usage on each
// of its lines, so a reply (a Turn) counts once, with its last line's usage, on the day of
// that line.
func spendOf(chain []*transcript.Entry) sessionSpend {
	sp := sessionSpend{Days: map[string]spend{}}
	turns, _ := transcript.Turns(chain) // entries that do not decode are shown as problems already
	for _, t := range turns {
		var u *conversation.Usage
		var model string
		var last *transcript.Entry
		for _, e := range t.Entries {
			if eu := e.Usage(); eu != nil {
				u, last = eu, e
				var m struct {
					Model string `json:"model"`
				}
				if json.Unmarshal(e.Message, &m) == nil && m.Model != "" {
					model = m.Model
				}
			}
		}
		if u == nil {
			continue
		}
		sp.Total.add(model, *u)
		if !last.Timestamp.IsZero() {
			day := last.Timestamp.UTC().Format(time.DateOnly)
			d := sp.Days[day]
			d.add(model, *u)
			sp.Days[day] = d
		}
	}
	return sp
}

// spendIndex remembers each transcript's spend while the file is as it was (its size and
// last activity, as the session list read them), in memory and in a file beside the session
// list's index, so that the list and its chart read each transcript whole once, not per
// request.
type spendIndex struct {
	path   string // "" keeps it in memory only
	mu     sync.Mutex
	byPath map[string]spendEntry
	loaded bool
}

type spendEntry struct {
	Size         int64
	LastActivity int64 // UnixNano
	Spend        sessionSpend
}

// spendIndexMagic starts the file; another version is read as empty.
const spendIndexMagic = "strata-spend-index 1\n"

// of returns the spend of each of infos, in order, reading the transcripts the index does not
// hold as they are. A transcript that cannot be read has no spend and is named in the error.
func (x *spendIndex) of(ctx context.Context, infos []transcript.Info) ([]sessionSpend, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		x.loaded = true
		x.byPath = x.load()
	}
	out := make([]sessionSpend, len(infos))
	var todo []int // the transcripts to read, read by a worker a core
	for i, in := range infos {
		e, ok := x.byPath[in.Path]
		if ok && e.Size == in.Size && e.LastActivity == in.LastActivity.UnixNano() {
			out[i] = e.Spend
		} else {
			todo = append(todo, i)
		}
	}
	errs := make([]error, len(todo))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for j := int(next.Add(1) - 1); j < len(todo) && ctx.Err() == nil; j = int(next.Add(1) - 1) {
				sess, err := transcript.Load(ctx, infos[todo[j]].Path, transcript.ReadOptions{Full: true})
				if err != nil {
					errs[j] = err
					continue
				}
				out[todo[j]] = spendOf(sess.Chain)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	fresh := 0
	for j, i := range todo {
		if errs[j] == nil {
			x.byPath[infos[i].Path] = spendEntry{infos[i].Size, infos[i].LastActivity.UnixNano(), out[i]}
			fresh++
		}
	}
	var saveErr error
	if fresh > 0 || len(x.byPath) > len(infos) {
		keep := make(map[string]spendEntry, len(infos))
		for _, in := range infos {
			if e, ok := x.byPath[in.Path]; ok {
				keep[in.Path] = e
			}
		}
		x.byPath = keep
		saveErr = x.save()
	}
	return out, errors.Join(append(errs, saveErr)...)
}

// load reads the index file; a missing, older or damaged one is an empty index (it only saves
// work).
func (x *spendIndex) load() map[string]spendEntry {
	m := map[string]spendEntry{}
	if x.path == "" {
		return m
	}
	data, err := os.ReadFile(x.path)
	if err != nil || !bytes.HasPrefix(data, []byte(spendIndexMagic)) {
		return m
	}
	if gob.NewDecoder(bytes.NewReader(data[len(spendIndexMagic):])).Decode(&m) != nil {
		return map[string]spendEntry{}
	}
	return m
}

func (x *spendIndex) save() error {
	if x.path == "" {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(spendIndexMagic)
	if err := gob.NewEncoder(&b).Encode(x.byPath); err != nil {
		return fmt.Errorf("webui: spend index: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(x.path), 0o700); err != nil {
		return fmt.Errorf("webui: spend index: %w", err)
	}
	if err := fsutil.WriteFile(x.path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("webui: spend index: %w", err)
	}
	return nil
}
