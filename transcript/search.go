package transcript

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/strata-mem/strata/internal/fsutil"
)

// Hit is one entry whose text contains the query.
type Hit struct {
	// SessionID is the session the entry belongs to; for a hit in a subagent's transcript,
	// the parent session, and AgentID names the subagent.
	SessionID string `json:"sessionId"`
	AgentID   string `json:"agentId,omitempty"`
	// Sidechain is set for a hit in a subagent's conversation (its own file, or a 1.x
	// transcript's inline sidechain lines).
	Sidechain bool      `json:"sidechain,omitempty"`
	Path      string    `json:"path"`
	Line      int       `json:"line"`
	UUID      string    `json:"uuid,omitempty"`
	Type      string    `json:"type"`
	Time      time.Time `json:"time,omitzero"`
	// Snippet is the matching text with some context around it, on one line.
	Snippet string `json:"snippet"`
}

// SearchOptions control Search.
type SearchOptions struct {
	// Limit stops after this many hits (0: no limit).
	Limit int
	// PerSession caps the hits reported for one session (0: no cap).
	PerSession int
}

// Search looks for query (case-insensitive, Unicode-aware) in the text of user and assistant
// messages (text and tool results), summaries and titles of the transcripts in paths, reading
// each file once from start to end. Lines that do not parse are skipped, as when loading. Pass
// WithSubagents(sessions) to search the sessions' subagents too; a hit in a subagent's file
// (or on a 1.x inline sidechain) is marked Sidechain and names its parent session.
func Search(ctx context.Context, paths []string, query string, opts SearchOptions) ([]Hit, error) {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return nil, fmt.Errorf("transcript: empty search query")
	}
	// A cheap pre-filter on raw lines works when the query needs no JSON escaping.
	plain := !strings.ContainsAny(q, "\"\\\n\t\r<>&") && utf8.ValidString(q)
	ascii := true
	for i := 0; i < len(q); i++ {
		if q[i] >= 0x80 {
			ascii = false
		}
	}
	var hits []Hit
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return hits, err
		}
		n := 0
		err := scanLines(p, func(lineNo int, line []byte) bool {
			// A writer may escape non-ASCII text as \uXXXX; such lines skip the pre-filter.
			if plain && !containsFold(line, q) && (ascii || !bytes.Contains(line, []byte(`\u`))) {
				return true
			}
			e, _ := ParseEntry(line)
			if e == nil {
				return true
			}
			text := searchText(e)
			i := strings.Index(strings.ToLower(text), q)
			if i < 0 {
				return true
			}
			h := Hit{SessionID: SessionIDOf(p), Path: p, Line: lineNo, UUID: e.UUID, Type: e.Type,
				Time: e.Timestamp, Snippet: snippet(text, strings.ToLower(text), i, len(q))}
			if agent, session, ok := SubagentOf(p); ok {
				h.AgentID, h.SessionID, h.Sidechain = agent, cmp.Or(session, e.SessionID, h.SessionID), true
			} else if e.IsSidechain {
				h.AgentID, h.Sidechain = e.AgentID, true
			}
			hits = append(hits, h)
			n++
			if opts.Limit > 0 && len(hits) >= opts.Limit {
				return false
			}
			return opts.PerSession <= 0 || n < opts.PerSession
		})
		if err != nil {
			return hits, err
		}
		if opts.Limit > 0 && len(hits) >= opts.Limit {
			break
		}
	}
	return hits, nil
}

// containsFold reports whether line, lowered, contains the lowered query q. Lowering ASCII
// only is enough to reject; the final check is on the decoded text.
func containsFold(line []byte, q string) bool {
	if bytes.Contains(line, []byte(q)) {
		return true
	}
	return bytes.Contains(bytes.ToLower(line), []byte(q))
}

func searchText(e *Entry) string {
	switch e.Type {
	case TypeUser, TypeAssistant:
		m, ok, err := e.DecodeMessage()
		if err != nil || !ok {
			return ""
		}
		return m.TextOf()
	case TypeSummary:
		return e.Summary
	case TypeCustomTitle:
		return e.CustomTitle
	case TypeAITitle:
		return e.AITitle
	}
	return ""
}

// snippet returns about 60 runes either side of the match at byte offset i (of length n in
// lower) in text, on one line.
func snippet(text, lower string, i, n int) string {
	if len(lower) != len(text) { // lowering changed byte lengths: fall back to the lowered text
		text = lower
	}
	const side = 60
	start, end := i, min(len(text), i+n)
	for k := 0; k < side && start > 0; k++ {
		_, sz := utf8.DecodeLastRuneInString(text[:start])
		start -= sz
	}
	for k := 0; k < side && end < len(text); k++ {
		_, sz := utf8.DecodeRuneInString(text[end:])
		end += sz
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}

// scanLines calls fn with each line of the file (without newline) until fn returns false.
func scanLines(path string, fn func(lineNo int, line []byte) bool) error {
	f, _, err := fsutil.OpenRegular(path, math.MaxInt64) // read line by line: no cap
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(line) > 0 {
			if !fn(n, lineBody(n, line)) {
				return nil
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("transcript: %s: %w", path, err)
		}
	}
}
