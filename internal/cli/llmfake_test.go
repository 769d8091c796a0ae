package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/strata-mem/strata/llm/llmtest"
)

// scriptTB lets llmtest run inside a testscript: failures are collected and reported by
// "llmfake done", cleanups run when the script ends. The embedded testing.TB is never called.
type scriptTB struct {
	testing.TB
	ts   *testscript.TestScript
	mu   sync.Mutex
	errs []string
}

func (s *scriptTB) Helper()          {}
func (s *scriptTB) Cleanup(f func()) { s.ts.Defer(f) }
func (s *scriptTB) Errorf(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
}

type fakeModel struct {
	tb  *scriptTB
	srv *llmtest.Server
}

var fakeModels sync.Map // *testscript.TestScript → *fakeModel

// llmfakeCmd implements
//
//	llmfake anthropic|openai FILE   start a fake model server whose replies are the JSON array
//	                                in FILE (llmtest.Reply objects: {"blocks":[{"type":"text",
//	                                "text":"hi"}]}, {"fault":{"kind":1,"status":529}} …) and
//	                                point the provider variables of later commands at it
//	llmfake add FILE                script more replies
//	llmfake done                    fail unless every reply was used and no call was unexpected
//	llmfake requests N FILE         write the body of the Nth request (1-based) to FILE
func llmfakeCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: llmfake anthropic|openai FILE | add FILE | done | requests N FILE")
	}
	load := func(file string) []llmtest.Reply {
		var replies []llmtest.Reply
		if err := json.Unmarshal([]byte(ts.ReadFile(file)), &replies); err != nil {
			ts.Fatalf("llmfake: %s: %v", file, err)
		}
		return replies
	}
	get := func() *fakeModel {
		v, ok := fakeModels.Load(ts)
		if !ok {
			ts.Fatalf("llmfake: no server started in this script")
		}
		return v.(*fakeModel)
	}
	switch args[0] {
	case "anthropic", "openai":
		if len(args) != 2 {
			ts.Fatalf("usage: llmfake anthropic|openai FILE")
		}
		tb := &scriptTB{ts: ts}
		var srv *llmtest.Server
		if args[0] == "anthropic" {
			srv = llmtest.NewAnthropic(tb)
			ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
			ts.Setenv("ANTHROPIC_API_KEY", llmtest.Key)
		} else {
			srv = llmtest.NewOpenAI(tb)
			ts.Setenv("OPENAI_BASE_URL", srv.URL)
			ts.Setenv("OPENAI_API_KEY", llmtest.Key)
		}
		ts.Setenv("STRATA_PROVIDER", args[0])
		ts.Setenv("STRATA_MODEL", "test-model")
		ts.Setenv("STRATA_STALL_TIMEOUT", "2s")
		srv.Script(load(args[1])...)
		fakeModels.Store(ts, &fakeModel{tb: tb, srv: srv})
		ts.Defer(func() { fakeModels.Delete(ts) })
	case "add":
		get().srv.Script(load(args[1])...)
	case "done":
		m := get()
		m.tb.mu.Lock()
		errs := strings.Join(m.tb.errs, "\n")
		m.tb.mu.Unlock()
		if errs != "" {
			ts.Fatalf("llmfake: %s", errs)
		}
		if n := m.srv.Pending(); n > 0 {
			ts.Fatalf("llmfake: %d scripted replies were never requested", n)
		}
	case "requests":
		if len(args) != 3 {
			ts.Fatalf("usage: llmfake requests N FILE")
		}
		reqs := get().srv.Requests()
		var n int
		fmt.Sscan(args[1], &n)
		if n < 1 || n > len(reqs) {
			ts.Fatalf("llmfake: request %d of %d", n, len(reqs))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), reqs[n-1].Body, 0o600))
	default:
		ts.Fatalf("llmfake: unknown subcommand %q", args[0])
	}
}
