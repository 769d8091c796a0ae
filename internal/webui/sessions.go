package webui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/transcript"
)

// sessionRow is one session of the list with what its model calls took.
type sessionRow struct {
	transcript.Info
	Spend spend
}

type sessionsData struct {
	Now      time.Time
	Query    string
	Sessions []sessionRow
	Total    int
	Chart    chart
	Page     pager
	Hits     []transcript.Hit
	Problems []string
}

// listSessions lists the project's sessions (strata's and Claude Code's share the layout),
// newest first. Files that cannot be read are reported, the rest listed.
func (s *Server) listSessions(r *http.Request) ([]transcript.Info, []string, error) {
	infos, err := transcript.List(r.Context(), s.ws.TranscriptDir(), transcript.ListOptions{Index: s.opts.SessionIndex})
	var problems []string
	if err != nil {
		if infos == nil {
			return nil, nil, err
		}
		problems = append(problems, err.Error())
	}
	return infos, problems, nil
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	d := sessionsData{Now: s.ws.Now(), Query: strings.TrimSpace(r.URL.Query().Get("q"))}
	infos, problems, err := s.listSessions(r)
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	d.Problems = problems
	if d.Query != "" {
		paths := make([]string, len(infos))
		for i, in := range infos {
			paths[i] = in.Path
		}
		if paths, err = transcript.WithSubagents(paths); err != nil {
			d.Problems = append(d.Problems, err.Error())
		}
		if d.Hits, err = transcript.Search(r.Context(), paths, d.Query, transcript.SearchOptions{Limit: 200, PerSession: 20}); err != nil {
			d.Problems = append(d.Problems, err.Error())
		}
	}
	spends, err := s.spends.of(r.Context(), infos)
	if err != nil {
		d.Problems = append(d.Problems, err.Error())
	}
	d.Chart = spendChart(spends)
	d.Total = len(infos)
	var lo, hi int
	d.Page, lo, hi = newPager(r, len(infos))
	for i := lo; i < hi; i++ {
		d.Sessions = append(d.Sessions, sessionRow{infos[i], spends[i].Total})
	}
	s.render(w, "sessions", "Sessions", d)
}

// turn is one entry of a conversation as the session page shows it.
type turn struct {
	Line      int
	Role      string // user, assistant, summary, system, compacted
	Meta      bool
	Sidechain bool
	Time      time.Time
	Blocks    []block
}

// block is one content block: text shown, a tool call or result folded under its summary.
type block struct {
	Kind    string // text, thinking, tool, result, error, other
	Summary string
	Text    string
	Agent   string // the subagent a tool call started, "" for none
}

type sessionData struct {
	ID, Title, Path, CWD string
	Agent                string // the subagent shown, "" for the session itself
	Subagents            []subagentView
	Lines                int
	Turns                []turn
	Repairs              []string
	Problems             []string
	Resume               []string
	Query                string
	Cost                 spend
}

// subagentView is one subagent of a session as its page links it.
type subagentView struct {
	transcript.Subagent
	Spend spend
}

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id, agent := q.Get("id"), q.Get("agent")
	if id == "" {
		s.fail(w, http.StatusBadRequest, errors.New("no session id"))
		return
	}
	path, err := transcript.Find(s.ws.Env().ProjectsDir(), s.ws.TranscriptDir(), id)
	if err != nil {
		s.fail(w, http.StatusNotFound, err)
		return
	}
	parent := path
	if agent != "" {
		if path, err = subagentPath(parent, agent); err != nil {
			s.fail(w, http.StatusNotFound, err)
			return
		}
	}
	sess, err := transcript.Load(r.Context(), path, transcript.ReadOptions{Full: true})
	if err != nil {
		s.fail(w, http.StatusInternalServerError, err)
		return
	}
	d := sessionData{ID: transcript.SessionIDOf(parent), Agent: agent, Title: sess.Title(), Path: path, Lines: sess.File.Lines, Query: q.Get("q"),
		Cost: spendOf(sess.Chain).Total}
	if len(sess.Chain) > 0 {
		d.CWD = sess.Chain[0].CWD
	}
	for _, p := range transcript.ProblemLines(sess.Problems, transcript.ShownProblems) {
		d.Problems = append(d.Problems, p)
	}
	for _, f := range sess.RequestFixes() {
		d.Repairs = append(d.Repairs, f.String())
	}
	byToolUse := map[string]string{} // the tool call that started a subagent → the subagent
	if agent == "" {
		d.Resume = []string{"strata chat --resume " + d.ID}
		if d.CWD != "" {
			d.Resume = append(d.Resume, "cd "+shellQuote(d.CWD)+" && claude --resume "+d.ID)
		}
		subs, err := transcript.Subagents(path)
		if err != nil {
			d.Problems = append(d.Problems, err.Error())
		}
		for _, sub := range subs {
			v := subagentView{Subagent: sub}
			if sub.MetaErr != nil {
				d.Problems = append(d.Problems, sub.MetaErr.Error())
			}
			if ss, err := transcript.Load(r.Context(), sub.Path, transcript.ReadOptions{Full: true}); err != nil {
				d.Problems = append(d.Problems, err.Error())
			} else {
				v.Spend = spendOf(ss.Chain).Total
			}
			d.Subagents = append(d.Subagents, v)
			if sub.Meta.ParentToolUseID != "" {
				byToolUse[sub.Meta.ParentToolUseID] = sub.AgentID
			}
		}
	}
	for _, e := range sess.Chain {
		if t, ok := turnOf(e, byToolUse); ok {
			d.Turns = append(d.Turns, t)
		}
	}
	title := "Session " + d.ID
	if agent != "" {
		title = "Subagent " + agent + " of session " + d.ID
	}
	s.render(w, "session", title, d)
}

// subagentPath is the transcript of subagent agent of the session whose transcript is
// parent: Claude Code 2.1's <session>/subagents/agent-<id>.jsonl, else 2.0's agent-<id>.jsonl
// beside the session.
func subagentPath(parent, agent string) (string, error) {
	if err := transcript.ValidID(agent); err != nil {
		return "", err
	}
	p := transcript.SubagentPath(parent, agent)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	old := filepath.Join(filepath.Dir(parent), "agent-"+agent+".jsonl")
	if _, err := os.Stat(old); err != nil {
		return "", fmt.Errorf("session %s has no subagent %q (neither %s nor %s)", transcript.SessionIDOf(parent), agent, p, old)
	}
	return old, nil
}

// turnOf is e as the conversation shows it; ok is false for entries that are not part of what
// was said (progress, attachments).
func turnOf(e *transcript.Entry, byToolUse map[string]string) (t turn, ok bool) {
	t = turn{Line: e.Line, Role: e.Type, Meta: e.IsMeta, Sidechain: e.IsSidechain, Time: e.Timestamp}
	switch {
	case e.IsCompactBoundary():
		t.Role = "compacted"
		return t, true
	case e.Type == transcript.TypeSystem:
		var text string
		if json.Unmarshal(e.Content, &text) != nil || text == "" {
			return t, false
		}
		t.Blocks = []block{{Kind: "text", Text: text}}
		return t, true
	case e.Type != transcript.TypeUser && e.Type != transcript.TypeAssistant:
		return t, false
	}
	m, ok, err := e.DecodeMessage()
	if err != nil || !ok {
		return t, false
	}
	if e.IsCompactSummary {
		t.Role = "summary"
	}
	for _, b := range m.Content {
		switch b.Type {
		case conversation.Text:
			if strings.TrimSpace(b.Text) != "" {
				t.Blocks = append(t.Blocks, block{Kind: "text", Text: b.Text})
			}
		case conversation.Thinking:
			t.Blocks = append(t.Blocks, block{Kind: "thinking", Summary: "thinking", Text: b.Thinking})
		case conversation.ToolUse:
			t.Blocks = append(t.Blocks, block{Kind: "tool", Summary: b.Name + " " + transcript.Shorten(string(b.Input), 100), Text: indentJSON(b.Input), Agent: byToolUse[b.ID]})
		case conversation.ToolResult:
			text := conversation.Message{Content: b.Content}.TextOf()
			kind := "result"
			if b.IsError {
				kind = "error"
			}
			t.Blocks = append(t.Blocks, block{Kind: kind, Summary: kind + ": " + transcript.Shorten(text, 100), Text: text})
		default:
			t.Blocks = append(t.Blocks, block{Kind: "other", Summary: string(b.Type)})
		}
	}
	return t, len(t.Blocks) > 0
}

func indentJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return string(raw)
	}
	return string(b)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
