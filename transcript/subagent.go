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
