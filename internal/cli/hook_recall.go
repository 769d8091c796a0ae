package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/tokens"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

// memoryTag opens each memory strata hook adds; its ref is how a later prompt of the same
// session knows the memory is already in context.
const memoryTag = "<strata-memory ref="

// hookShortlist is the longest shortlist a prompt's recall uses (recall's default).
const hookShortlist = 20

var memoryRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<strata-memory ref="([^"]+)"`) })

// hookRecall runs recall for a prompt over the project's memory stores and returns the
// memories to add, within budget tokens; "" when none is worth adding.
func hookRecall(ctx context.Context, app *App, env config.Env, in hookInput, budget int) (string, error) {
	if strings.TrimSpace(in.Prompt) == "" || budget <= 0 {
		return "", nil
	}
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: in.Cwd, Env: env, Now: app.Now})
	if err != nil {
		return "", err
	}
	if !ws.AutoMemory() {
		return "", nil
	}
	stores, err := ws.Stores()
	if err != nil {
		return "", err
	}
	var seen []string
	spent := 0
	if in.TranscriptPath != "" {
		if seen, spent, err = surfacedIn(ctx, in.TranscriptPath, stores); err != nil {
			return "", err
		}
	}
	// The session's budget is recall's, less what this session already got since the last
	// compaction (by strata or by Claude Code's own recall, counted as Claude Code counts it).
	b := recall.DefaultBudget()
	if b.SessionBytes -= spent; b.SessionBytes <= 0 {
		return "", nil
	}
	// The default selector keeps the ranker's order, so the shortlist needs no more than this
	// turn's picks past what the session already has (those are skipped); every place past it
	// is a candidate the ranker must score exactly for nothing.
	slices.Sort(seen)
	seen = slices.Compact(seen)
	rc, err := ws.Recaller(workspace.RecallOptions{NoStats: true, Budget: b, Shortlist: min(b.Files+len(seen), hookShortlist)})
	if err != nil {
		return "", err
	}
	s := recall.NewSession()
	for _, ref := range seen {
		s.Mark(ref)
	}
	res, err := rc.Recall(ctx, s, recall.Turn{Query: in.Prompt})
	if err != nil {
		return "", err
	}
	return renderRecalled(res.Memories, budget), nil
}

// renderRecalled writes the memories as the hook adds them, best first, as many as fit budget
// tokens; "" for none.
func renderRecalled(ms []recall.Recalled, budget int) string {
	const head = "Memories strata recalled for this prompt (the files' current text; older ones carry an age note):\n"
	var b strings.Builder
	used := tokens.Estimate(head)
	for _, m := range ms {
		var one strings.Builder
		fmt.Fprintf(&one, "\n%s%q path=%q type=%q>\n", memoryTag, recall.Ref(m.Store, m.File), m.Path, m.Type)
		if m.Description != "" {
			fmt.Fprintf(&one, "%s — %s\n", m.Name, m.Description)
		}
		one.WriteString(strings.TrimSpace(m.Content) + "\n</strata-memory>\n")
		t := tokens.Estimate(one.String())
		if used+t > budget {
			continue // a shorter one further down may still fit
		}
		used += t
		b.WriteString(one.String())
	}
	if b.Len() == 0 {
		return ""
	}
	return head + b.String()
}

// transcriptLine is what surfacedIn reads of a Claude Code transcript line.
type transcriptLine struct {
	Attachment struct {
		Type     string          `json:"type"`
		Content  json.RawMessage `json:"content"`
		Memories []struct {
			Path    string `json:"path"`
			Content string `json:"content"`
		} `json:"memories"`
	} `json:"attachment"`
}

// surfacedIn returns the memories (as recall Refs) a Claude Code session already has in its
// context, and the bytes of memory text they took: those strata hook added and those Claude
// Code's own recall attached (relevant_memories) since the last compaction, which is found
// from the end (transcript.LastBoundary), so a long session costs what its context holds, not
// its whole history. A missing transcript has none; a line that does not parse is skipped (the
// last one may be half written).
func surfacedIn(ctx context.Context, path string, stores []workspace.NamedStore) (refs []string, spent int, err error) {
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, 0, err
	}
	start, err := transcript.LastBoundary(ctx, fh, fi.Size())
	if err != nil {
		return nil, 0, fmt.Errorf("reading the transcript %s: %w", path, err)
	}
	sc := bufio.NewScanner(io.NewSectionReader(fh, start, fi.Size()-start))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var l transcriptLine
		if !hasMarker(line) || json.Unmarshal(line, &l) != nil {
			continue
		}
		switch l.Attachment.Type {
		case "hook_additional_context":
			var texts []string
			if json.Unmarshal(l.Attachment.Content, &texts) != nil {
				continue
			}
			for _, t := range texts {
				ms := memoryRef().FindAllStringSubmatch(t, -1)
				for _, m := range ms {
					refs = append(refs, m[1])
				}
				if len(ms) > 0 {
					spent += len(t)
				}
			}
		case "relevant_memories":
			for _, m := range l.Attachment.Memories {
				spent += len(m.Content)
				if ref, ok := refOf(m.Path, stores); ok {
					refs = append(refs, ref)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("reading the transcript %s: %w", path, err)
	}
	return refs, spent, nil
}

// transcriptMarkers are the attachment types that put a transcript line in surfacedIn's view,
// split at their first underscore.
var transcriptMarkers = [...][2]string{{"hook", "_additional_context"}, {"relevant", "_memories"}}

// hasMarker reports whether line holds one of transcriptMarkers. It looks around each
// underscore of the line: a byte that vector code skips to (a pass over the line per word
// cost 2.5 times as much on a 2.7 MB transcript).
func hasMarker(line []byte) bool {
	for {
		i := bytes.IndexByte(line, '_')
		if i < 0 {
			return false
		}
		for _, m := range transcriptMarkers {
			if bytes.HasPrefix(line[i:], []byte(m[1])) && bytes.HasSuffix(line[:i], []byte(m[0])) {
				return true
			}
		}
		line = line[i+1:]
	}
}

// refOf returns the recall Ref of the memory file at path, when it lies in one of stores.
func refOf(path string, stores []workspace.NamedStore) (string, bool) {
	for _, s := range stores {
		rel, err := filepath.Rel(s.Dir, path)
		if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
			continue
		}
		name := s.Name
		if s.Project() {
			name = ""
		}
		return recall.Ref(name, filepath.ToSlash(rel)), true
	}
	return "", false
}
