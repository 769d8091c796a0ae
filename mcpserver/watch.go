package mcpserver

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pruneCountedAt is the number of counted sessions from which sessions that have ended are
// dropped from the set, so that a long-running HTTP server does not keep every session.
const pruneCountedAt = 64

// recordRecall records an MCP session's recall (memory_search, memory_get) as an agent's is
// recorded, so forgetting counts MCP sessions too: the session once as watched
// (recall.Stats.RecordSession), each file once a session as recalled (Stats.Record). It does
// not wait for the disk: the job is queued and one goroutine at a time writes the queue in
// order; Close waits for it (at most shutdownGrace), and a call after Close records at once.
func (s *Server) recordRecall(ctx context.Context, p *project, ss *mcp.ServerSession, files []string) {
	job := recallJob{ctx: context.WithoutCancel(ctx), p: p, ss: ss, files: files, now: p.now()}
	s.recMu.Lock()
	if s.recClosed {
		s.recMu.Unlock()
		s.record(job)
		return
	}
	s.recQueue = append(s.recQueue, job)
	if !s.recRunning {
		s.recRunning = true
		s.wg.Add(1)
		go s.recordQueued()
	}
	s.recMu.Unlock()
}

// recallJob is one recording recordRecall queued.
type recallJob struct {
	ctx   context.Context
	p     *project
	ss    *mcp.ServerSession
	files []string
	now   time.Time
}

// recordQueued writes the queued recordings in order until the queue is empty.
func (s *Server) recordQueued() {
	defer s.wg.Done()
	for {
		s.recMu.Lock()
		if len(s.recQueue) == 0 {
			s.recRunning = false
			s.recQueue = nil
			s.recIdle.Broadcast()
			s.recMu.Unlock()
			return
		}
		job := s.recQueue[0]
		s.recQueue = s.recQueue[1:]
		s.recMu.Unlock()
		s.record(job)
	}
}

// waitRecorded returns once every recording queued so far is written.
func (s *Server) waitRecorded() {
	s.recMu.Lock()
	defer s.recMu.Unlock()
	for s.recRunning {
		s.recIdle.Wait()
	}
}

// closeRecorder makes later recordings synchronous; Close then waits for the queue with the
// watcher.
func (s *Server) closeRecorder() {
	s.recMu.Lock()
	s.recClosed = true
	s.recMu.Unlock()
}

// record writes one recording (see recordRecall).
func (s *Server) record(job recallJob) {
	ctx, p, files := job.ctx, job.p, job.files
	// One recording at a time, so a session's count always comes before its recalls (which
	// set the idle sessions the count raised back to 0).
	s.countMu.Lock()
	defer s.countMu.Unlock()
	stats, err := p.ws.Stats()
	if err != nil {
		s.log.Warn("mcpserver: recall statistics", "err", err)
		return
	}
	first, files := s.newRecalls(job.ss, files)
	if first {
		if err := stats.RecordSession(ctx, p.ranker.Index().Files(), job.now); err != nil {
			s.log.Warn("mcpserver: recording the session in the recall statistics", "err", err)
		}
	}
	if len(files) == 0 {
		return
	}
	if err := stats.Record(ctx, files, job.now); err != nil {
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
