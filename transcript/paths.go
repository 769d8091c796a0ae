package transcript

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/strata-mem/strata/config"
)

// NewSessionID returns a new session id: a time-ordered UUID (version 7), so ids sort by
// creation time.
func NewSessionID() string {
	id, err := uuid.NewV7()
	if err != nil { // only when the random source fails; a v4 id is still unique
		return uuid.NewString()
	}
	return id.String()
}

// ProjectDir returns the directory that holds the transcripts of sessions started in cwd:
// $STRATA_HOME/projects/<slug of cwd>. Like Claude Code, transcripts use the working directory
// itself, not the repository root that auto-memory uses.
func ProjectDir(env config.Env, cwd string) string {
	return filepath.Join(env.ProjectsDir(), config.Slug(cwd))
}

// SessionPath returns the transcript file of session id started in cwd.
func SessionPath(env config.Env, cwd, id string) string {
	return filepath.Join(ProjectDir(env, cwd), id+".jsonl")
}

// SubagentPath returns the transcript of subagent agentID of the session whose transcript is
// sessionPath: <dir>/<sessionId>/subagents/agent-<agentID>.jsonl.
func SubagentPath(sessionPath, agentID string) string {
	dir := strings.TrimSuffix(sessionPath, ".jsonl")
	return filepath.Join(dir, "subagents", "agent-"+agentID+".jsonl")
}

// SubagentMetaPath returns the .meta.json file next to a subagent transcript.
func SubagentMetaPath(subagentPath string) string {
	return strings.TrimSuffix(subagentPath, ".jsonl") + ".meta.json"
}

// SessionIDOf returns the session id a transcript path names (its base name without .jsonl).
func SessionIDOf(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

// ValidID reports whether id can name a session or agent file: non-empty, no path separators,
// no leading dot.
func ValidID(id string) error {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") || strings.ContainsRune(id, 0) {
		return fmt.Errorf("transcript: invalid id %q", id)
	}
	return nil
}

// isSessionFile reports whether name (a base name in a project directory) is a session
// transcript: *.jsonl, except Claude Code 2.0's agent-*.jsonl subagent files.
func isSessionFile(name string) bool {
	return strings.HasSuffix(name, ".jsonl") && !strings.HasPrefix(name, "agent-") && !strings.HasPrefix(name, ".")
}
