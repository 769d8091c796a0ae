package transcript

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// SubagentMeta is the .meta.json written next to a subagent's transcript.
type SubagentMeta struct {
	AgentID         string    `json:"agentId"`
	AgentType       string    `json:"agentType,omitempty"`
	Description     string    `json:"description,omitempty"`
	ParentSessionID string    `json:"parentSessionId,omitempty"`
	ParentToolUseID string    `json:"parentToolUseId,omitempty"`
	Created         time.Time `json:"created,omitzero"`
	// Extra keeps keys strata does not know (written by other tools).
	Extra map[string]json.RawMessage `json:"-"`
}

// OpenSubagent writes the subagent's .meta.json (atomically) and returns a journal for its
// transcript, <session>/subagents/agent-<id>.jsonl, whose conversation entries are all marked
// isSidechain with the agent's id.
func OpenSubagent(ctx context.Context, sessionPath string, meta SubagentMeta, opts Options) (*Journal, error) {
	if err := ValidID(meta.AgentID); err != nil {
		return nil, err
	}
	path := SubagentPath(sessionPath, meta.AgentID)
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("transcript: subagent meta: %w", err)
	}
	afs := opts.AtomicFS
	if afs == nil {
		afs = fsutil.OS
	}
	if err := fsutil.WriteFileFS(afs, SubagentMetaPath(path), append(data, '\n'), fsutil.FileMode); err != nil {
		return nil, fmt.Errorf("transcript: subagent meta: %w", err)
	}
	opts.Sidechain = true
	opts.AgentID = meta.AgentID
	if opts.SessionID == "" {
		opts.SessionID = meta.ParentSessionID
	}
	return Open(ctx, path, opts)
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
