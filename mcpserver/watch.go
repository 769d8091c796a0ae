package mcpserver

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/strata-mem/strata/recall"
)

// pruneCountedAt is the number of counted sessions from which sessions that have ended are
// dropped from the set, so that a long-running HTTP server does not keep every session.
const pruneCountedAt = 64

// recordRecall is what an agent's recall records, for an MCP session that recalled from the
// store (memory_search, memory_get): on the session's first recall it counts the session as one
// session strata watched in the store (recall.Stats.RecordSession: every memory then in the
// index was eligible and, until it is recalled, idle), and it records files as recalled
// (Stats.Record). Forgetting's evidence thus counts MCP sessions as it counts chat and run
// sessions. A file is recorded once a session (what forgetting needs is whether it surfaced in
// the session), so a client searching in a loop does not write the statistics on every call.
// A failure to write the statistics is logged, never the call's error.
func (s *Server) recordRecall(ctx context.Context, p *project, ss *mcp.ServerSession, files []string) {
	ctx = context.WithoutCancel(ctx)
	// One recording at a time, so a session's count always comes before its recalls (which
	// set the idle sessions the count raised back to 0).
	s.countMu.Lock()
	defer s.countMu.Unlock()
	stats := recall.NewStats(p.store.Dir())
	first, files := s.newRecalls(ss, files)
	if first {
		mems := p.index.Memories()
		eligible := make([]string, len(mems))
		for i, m := range mems {
			eligible[i] = m.File
		}
		if err := stats.RecordSession(ctx, eligible, p.now()); err != nil {
			s.log.Warn("mcpserver: recording the session in the recall statistics", "err", err)
		}
	}
	if len(files) == 0 {
		return
	}
	if err := stats.Record(ctx, files, p.now()); err != nil {
		s.log.Warn("mcpserver: recording recalled memories", "err", err)
	}
}

// newRecalls marks files as recalled in ss and returns those it had not recalled before, and
// whether this is the session's first recall. The caller holds countMu.
func (s *Server) newRecalls(ss *mcp.ServerSession, files []string) (first bool, fresh []string) {
	if s.counted == nil {
		s.counted = map[*mcp.ServerSession]map[string]bool{}
	}
	seen, ok := s.counted[ss]
	if !ok {
		seen = s.countSession(ss)
	}
	for _, f := range files {
		if !seen[f] {
			seen[f] = true
			fresh = append(fresh, f)
		}
	}
	return !ok, fresh
}

// countSession adds ss to the counted sessions, first dropping those that have ended once
// there are many. The caller holds countMu.
func (s *Server) countSession(ss *mcp.ServerSession) map[string]bool {
	if len(s.counted) >= pruneCountedAt {
		live := map[*mcp.ServerSession]bool{}
		for l := range s.mcp.Sessions() {
			live[l] = true
		}
		for c := range s.counted {
			if !live[c] {
				delete(s.counted, c)
			}
		}
	}
	seen := map[string]bool{}
	s.counted[ss] = seen
	return seen
}
