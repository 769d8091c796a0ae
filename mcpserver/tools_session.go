package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/transcript"
)

// Limits of session_search.
const (
	sessionHitsDefault = 20
	sessionHitsMax     = 100
	sessionHitsPer     = 5 // per session, so one long session cannot fill the answer
)

// SessionSearchInput is session_search's input.
type SessionSearchInput struct {
	Query string `json:"query" jsonschema:"text to look for in earlier sessions of this project (case-insensitive, any language)"`
	Limit int    `json:"limit,omitempty" jsonschema:"the most snippets to return, 1 to 100 (default 20)"`
}

// SessionHit is one message of an earlier session that contains the query.
type SessionHit struct {
	SessionID string `json:"session_id" jsonschema:"the session (strata sessions show ID prints it whole)"`
	AgentID   string `json:"agent_id,omitempty" jsonschema:"the subagent whose conversation holds the message, when it is a subagent's"`
	Title     string `json:"title,omitempty" jsonschema:"the session's title as Claude Code's resume list shows it (custom or AI title, summary, else first prompt)"`
	Time      string `json:"time,omitempty" jsonschema:"when the message was written (RFC 3339)"`
	Type      string `json:"type" jsonschema:"user, assistant, summary …"`
	Line      int    `json:"line" jsonschema:"line of the transcript file"`
	Snippet   string `json:"snippet" jsonschema:"the matching text with some context"`
	Resume    string `json:"resume" jsonschema:"the command that resumes the session: claude --resume ID for Claude Code's, strata chat --resume ID for strata's"`
}

// SessionSearchOutput is session_search's result.
type SessionSearchOutput struct {
	Hits     []SessionHit `json:"hits" jsonschema:"matching messages, in session order"`
	Sessions int          `json:"sessions" jsonschema:"how many session transcripts were searched"`
}

// sessionDirs returns the transcript directories of the working directory and the project
// root under each home, in that order.
func sessionDirs(homes []config.Env, dir, root string) []string {
	var out []string
	for _, env := range homes {
		for _, cwd := range []string{dir, root} {
			out = append(out, transcript.ProjectDir(env, cwd))
		}
	}
	return out
}

// addSessionTools registers session_search.
func (s *Server) addSessionTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "session_search",
		Description: "Search the transcripts of earlier sessions in this project, strata's and Claude Code's, their subagents' included, for a word or phrase, " +
			"and return short snippets of the messages that contain it, with the session they come from and the command that resumes it. Use it to recall what was decided or tried before.",
		Annotations: readOnly("Search past sessions"),
	}, s.sessionSearch)
}

func (s *Server) sessionSearch(ctx context.Context, req *mcp.CallToolRequest, in SessionSearchInput) (*mcp.CallToolResult, SessionSearchOutput, error) {
	p, err := s.project(ctx, req.Session)
	if err != nil {
		return nil, SessionSearchOutput{}, err
	}
	switch {
	case strings.TrimSpace(in.Query) == "":
		return nil, SessionSearchOutput{}, errors.New("query is empty: say what to look for")
	case len(in.Query) > maxQueryBytes:
		return nil, SessionSearchOutput{}, fmt.Errorf("query is %d bytes; the limit is %d", len(in.Query), maxQueryBytes)
	case in.Limit < 0 || in.Limit > sessionHitsMax:
		return nil, SessionSearchOutput{}, fmt.Errorf("limit is %d; it must be between 1 and %d (0 means %d)", in.Limit, sessionHitsMax, sessionHitsDefault)
	}
	limit := in.Limit
	if limit == 0 {
		limit = sessionHitsDefault
	}
	var paths []string
	seen := map[string]bool{}
	homes := []config.Env{p.env}
	if h := s.opts.ClaudeHome; h != "" && h != p.env.Home {
		ce := p.env
		ce.Home = h
		homes = append(homes, ce)
	}
	claudeDirs := map[string]bool{}
	titles := map[string]string{} // by transcript
	for _, dir := range sessionDirs(homes, p.dir, p.root) {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		if s.opts.ClaudeHome != "" && strings.HasPrefix(dir, filepath.Join(s.opts.ClaudeHome, "projects")+string(filepath.Separator)) {
			claudeDirs[dir] = true
		}
		infos, err := transcript.List(ctx, dir, transcript.ListOptions{})
		if err != nil { // what could be read is still searched
			s.log.Warn("session_search: transcripts left out", "dir", dir, "err", err)
		}
		for _, info := range infos {
			// Directory names are slugs: "/x/项目" and "/x/资料", "my-app" and "my_app" share
			// one. A session whose cwd is another project's is not this project's to show.
			if cwd := filepath.Clean(info.CWD); info.CWD == "" || within(cwd, p.dir) || within(cwd, p.root) {
				paths = append(paths, info.Path)
				titles[info.Path] = info.Label()
			}
		}
	}
	sessions := len(paths)
	// Subagents in every layout (2.1's subagents/ directories, 2.0's agent-*.jsonl files; 1.x
	// kept them inline), as strata sessions search does.
	paths, err = transcript.WithSubagents(paths)
	if err != nil {
		s.log.Warn("session_search: subagents", "err", err)
	}
	hits, err := transcript.Search(ctx, paths, in.Query, transcript.SearchOptions{Limit: limit, PerSession: sessionHitsPer})
	if err != nil {
		return nil, SessionSearchOutput{}, fmt.Errorf("session_search: %w", err)
	}
	out := SessionSearchOutput{Hits: make([]SessionHit, 0, len(hits)), Sessions: sessions}
	for _, h := range hits {
		// A hit in a subagent's file carries its session's title, as listing shows it.
		parent := transcript.ParentPath(h.Path, h.SessionID)
		hit := SessionHit{SessionID: h.SessionID, AgentID: h.AgentID, Title: titles[parent], Type: h.Type, Line: h.Line, Snippet: h.Snippet,
			Resume: "strata chat --resume " + h.SessionID}
		if claudeDirs[filepath.Dir(parent)] {
			hit.Resume = "claude --resume " + h.SessionID
		}
		if !h.Time.IsZero() {
			hit.Time = h.Time.UTC().Format(time.RFC3339)
		}
		out.Hits = append(out.Hits, hit)
	}
	return nil, out, nil
}
