package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// SubagentMeta is the .meta.json that Claude Code writes next to a subagent's transcript.
type SubagentMeta struct {
	AgentID         string    `json:"agentId"`
	AgentType       string    `json:"agentType,omitempty"`
	Description     string    `json:"description,omitempty"`
	ParentSessionID string    `json:"parentSessionId,omitempty"`
	ParentToolUseID string    `json:"parentToolUseId,omitempty"`
	Created         time.Time `json:"created,omitzero"`
}

// Subagent is a subagent transcript of a session.
type Subagent struct {
	AgentID string
	Path    string
	Meta    SubagentMeta // zero when the .meta.json is missing
	// MetaErr says why the .meta.json could not be read (nil when it was read or is absent).
	MetaErr error
}

// Subagents lists the subagent transcripts of the session whose transcript is sessionPath,
// ordered by agent id.
func Subagents(sessionPath string) ([]Subagent, error) {
	dir := filepath.Join(strings.TrimSuffix(sessionPath, ".jsonl"), "subagents")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	var out []Subagent
	for _, d := range ents {
		name := d.Name()
		if !d.Type().IsRegular() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		p := filepath.Join(dir, name)
		s := Subagent{AgentID: strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl"), Path: p}
		data, err := os.ReadFile(SubagentMetaPath(p))
		switch {
		case err == nil:
			if err := json.Unmarshal(data, &s.Meta); err != nil {
				s.MetaErr = fmt.Errorf("transcript: %s: %w", SubagentMetaPath(p), err)
			}
		case !errors.Is(err, fs.ErrNotExist):
			s.MetaErr = fmt.Errorf("transcript: %w", err)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].AgentID < out[b].AgentID })
	return out, nil
}

// WithSubagents returns sessions (transcript paths) followed by the subagent transcripts that
// belong to them in each of Claude Code's layouts: 2.1's <session>/subagents/agent-*.jsonl and
// 2.0's agent-*.jsonl files in the sessions' project directories. 1.x kept subagents inline, as
// sidechain lines of the session's own file, so they are searched with it. The subagents of a
// session whose file is gone are included too (their directory is still in the project). Each
// file appears once; a directory that cannot be read is reported in the error and the rest is returned.
func WithSubagents(sessions []string) ([]string, error) {
	out := append([]string(nil), sessions...)
	seen := map[string]bool{}
	for _, p := range sessions {
		seen[p] = true
	}
	var errs []error
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	dirs := map[string]bool{}
	var order []string
	for _, p := range sessions {
		subs, err := Subagents(p)
		if err != nil {
			errs = append(errs, err)
		}
		for _, s := range subs {
			add(s.Path)
		}
		if d := filepath.Dir(p); !dirs[d] {
			dirs[d] = true
			order = append(order, d)
		}
	}
	for _, d := range order {
		ents, err := os.ReadDir(d)
		if err != nil {
			errs = append(errs, fmt.Errorf("transcript: %w", err))
			continue
		}
		for _, e := range ents {
			n := e.Name()
			switch {
			case e.Type().IsRegular() && IsSubagentFile(n):
				add(filepath.Join(d, n))
			case e.IsDir() && n != "memory":
				// A 2.1 session directory: its subagents are searched even when the
				// session's own file is gone.
				subs, _ := Subagents(filepath.Join(d, n) + ".jsonl")
				for _, s := range subs {
					add(s.Path)
				}
			}
		}
	}
	return out, errors.Join(errs...)
}

// IsSubagentFile reports whether name, the base name of a transcript, is a subagent's
// (agent-<id>.jsonl, in either the 2.0 or the 2.1 layout).
func IsSubagentFile(name string) bool {
	return strings.HasPrefix(name, "agent-") && strings.HasSuffix(name, ".jsonl")
}

// SubagentOf returns the agent id and the parent session id of a subagent transcript path:
// 2.1's <sessionId>/subagents/agent-<id>.jsonl names its session; a 2.0 agent-<id>.jsonl does
// not, and sessionID is "" then (its entries' sessionId field says). ok is false for a path
// that is not a subagent's.
func SubagentOf(path string) (agentID, sessionID string, ok bool) {
	name := filepath.Base(path)
	if !IsSubagentFile(name) {
		return "", "", false
	}
	agentID = strings.TrimSuffix(strings.TrimPrefix(name, "agent-"), ".jsonl")
	if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" {
		sessionID = filepath.Base(filepath.Dir(dir))
	}
	return agentID, sessionID, true
}

// IsSubagent reports whether the loaded file is a subagent's transcript: every conversation
// entry in it is on a sidechain.
func (s *Session) IsSubagent() bool { return s.sidechainOnly() }

// ParentPath returns the transcript of the session a subagent transcript belongs to: 2.1's
// <dir>/<sessionId>/subagents/agent-<id>.jsonl belongs to <dir>/<sessionId>.jsonl; 2.0's
// <dir>/agent-<id>.jsonl to <dir>/<sessionID>.jsonl, sessionID being what its entries name.
// It returns path itself for a session's own transcript.
func ParentPath(path, sessionID string) string {
	_, parent, ok := SubagentOf(path)
	switch {
	case !ok:
		return path
	case parent != "":
		return filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(path))), parent+".jsonl")
	case sessionID != "" && ValidID(sessionID) == nil:
		return filepath.Join(filepath.Dir(path), sessionID+".jsonl")
	}
	return path
}
