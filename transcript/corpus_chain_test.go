package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/conversation"
)

// corpusChains pins what BuildChain rebuilds from each real transcript of the shared corpus:
// the entries of the chain and of its live part (after the last compact boundary), the
// messages of a resumed request (Messages of the live part), the tool calls left without a
// result, and the chain's problems. An independent reimplementation of Claude Code 2.1's
// loader (progress bridge, leaf selection, recoverOrphanedParallelToolResults) gives the same
// chains; the reason says what shape each file exercises.
var corpusChains = map[string]struct {
	chain, live, messages, problems int
	// checks are the request rules the live messages break before the repair, by kind.
	checks string
	reason string
}{
	"Crazytieguy__alignment-hive__6f2580aa.jsonl": {75, 75, 13, 0, "stray-tool-result×1",
		"2.0.76: 1,316 file-history-snapshot and 2,635 queue-operation lines are not messages; api_error system lines are; the newest user entry ending a branch is the leaf (the last line is an older branch's), 2 entries more than the newest-line rule gave; a reply written twice (once as one line, once a line per block) is recovered as a sibling and merges once; the second copy's result is left out by the repair"},
	"chiphuyen__sniffly__d3ad4cdc.jsonl": {136, 136, 124, 0, "unanswered-tool-use×1",
		"1.0.17: the file ends with an assistant tool_use whose result was never written (the session was cut): the request repair answers it as interrupted"},
	"d-kimuson__claude-code-viewer__5c0375b4.jsonl": {31, 31, 20, 0, "",
		"1.0.108 with 22 inline sidechain lines: they never form the main chain"},
	"d-kimuson__claude-code-viewer__agent-test-hash-123.jsonl": {2, 2, 2, 0, "",
		"2.0 agent-*.jsonl subagent file: all sidechain, its own chain"},
	"handgemacht-ai__claude-code-log__cclsample__07f2e15c.jsonl": {53, 53, 40, 0, "",
		"1.0.29: replies split over lines sharing message.id merge into one message"},
	"handgemacht-ai__claude-code-log__cclsample__12a546d1.jsonl": {111, 111, 72, 0, "",
		"1.0.56: system lines inside the chain stay, 32 split replies merge"},
	"handgemacht-ai__claude-code-log__cclsample__37f83ec9.jsonl": {340, 340, 210, 0, "",
		"1.0.51: 54 system lines, 72 split replies"},
	"handgemacht-ai__claude-code-log__cclsample__4fe49c7c_empty.jsonl": {0, 0, 0, 0, "",
		"a zero-byte file: no conversation"},
	"handgemacht-ai__claude-code-log__cclsample__fe869ecb.jsonl": {96, 96, 69, 0, "",
		"1.0.24 with 15 summary lines (metadata, never on the chain)"},
	"handgemacht-ai__claude-code-log__claudep__29ccd257.jsonl": {4, 4, 4, 0, "",
		"2.1.17 main file of a subagent session: its progress line is bridged, not a message"},
	"handgemacht-ai__claude-code-log__claudep__29ccd257__subagents__agent-a2271d1.jsonl": {59, 59, 20, 0, "",
		"2.1.17 subagent with 2- and 3-way parallel calls: 6 sibling calls and 15 results off the single parent path are recovered (38 entries and 9 unanswered calls before)"},
	"handgemacht-ai__claude-code-log__crhelper__agent-659acfed.jsonl": {1, 1, 1, 0, "first-not-user×1",
		"2.0.55 subagent file of one assistant line whose parent is in the main file: not a problem; a request from it gets a user message first"},
	"handgemacht-ai__claude-code-log__crhelper__agent-668b5ac2.jsonl": {20, 20, 10, 0, "",
		"2.0.37 subagent file: all sidechain"},
	"handgemacht-ai__claude-code-log__crhelper__cb2e607c.jsonl": {282, 282, 160, 0, "",
		"2.0.37: 80 split replies, queue-operation lines"},
	"handgemacht-ai__claude-code-log__ddnext__9e953218.jsonl": {248, 248, 202, 0, "",
		"2.0.5: 43 split replies"},
	"handgemacht-ai__claude-code-log__debug_image_message.jsonl": {1, 1, 1, 1, "",
		"one user line (an image) cut out of a session: its parent is missing, reported"},
	"handgemacht-ai__claude-code-log__ideas__03eb5929.jsonl": {28, 28, 13, 0, "empty-text×4",
		"2.1.42: 5 progress lines on the parent path are bridged, not messages; stop_hook_summary lines; 2.1 writes blank text blocks before thinking, which the API refuses: the repair leaves them out"},
	"handgemacht-ai__claude-code-log__worktrees__ef958aa1.jsonl": {156, 156, 35, 0, "",
		"2.1.114 with attachments and parallel calls: 4 sibling calls and 6 results recovered (2 calls were unanswered before)"},
	"handgemacht-ai__claude-code-log__worktrees__ef958aa1__subagents__agent-a4ca7529859c158c2.jsonl": {56, 56, 40, 0, "",
		"2.1.114 subagent: 2 sibling calls and 4 results recovered"},
	"marot__spotter__258c7280.jsonl": {495, 168, 100, 0, "empty-text×3",
		"2.1.39, 1,863 lines, 1,333 progress lines and a compact boundary: progress bridged (63 were on the old chain), the trailing stop_hook_summary is not the leaf, 3 sibling calls and 18 results recovered; every call is answered (15 were not, 5 of them after the boundary); 3 blank text blocks left out by the repair"},
	"marot__spotter__258c7280__subagents__agent-a881341.jsonl": {8, 8, 6, 0, "",
		"2.1.39 subagent: progress lines bridged"},
	"marot__spotter__258c7280__subagents__agent-acompact-fffbd0.jsonl": {2, 2, 2, 0, "",
		"2.1.39 compaction agent: three roots whose parents are in the main file, none a problem"},
	"marot__spotter__short.jsonl": {9, 9, 3, 0, "empty-text×1",
		"2.1.38: the session ends in two local_command system lines (not the leaf) after an interrupted parallel call whose sibling result is recovered"},
	"marot__spotter__tool_heavy.jsonl": {24, 24, 9, 0, "empty-text×1",
		"2.1.38: parallel calls whose results arrive out of order; the reply streamed across its tools' results merges into one message"},
	"slopus__happy-cli__duplicate-assistant-response-2_NOT_JSON.jsonl": {0, 0, 0, 0, "",
		"not a transcript (a debug log): every line skipped, no conversation"},
}

// checkKinds counts the problems Check finds in msgs by kind ("" when none).
func checkKinds(msgs []conversation.Message) string {
	if len(msgs) == 0 {
		return ""
	}
	n := map[string]int{}
	for _, p := range conversation.Check(msgs) {
		n[string(p.Kind)]++
	}
	var out []string
	for _, k := range sortedKeys(n) {
		out = append(out, fmt.Sprintf("%s×%d", k, n[k]))
	}
	return strings.Join(out, ", ")
}

func TestCorpusChains(t *testing.T) {
	dir := corpusDir(t)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files in %s (%v)", dir, err)
	}
	seen := map[string]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			want, ok := corpusChains[name]
			if !ok {
				t.Fatalf("no pinned chain for %s: add it, with the reason", name)
			}
			s, err := Load(t.Context(), path, ReadOptions{Full: true})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := Messages(s.Live())
			if err != nil {
				t.Fatal(err)
			}
			checks := checkKinds(msgs)
			if all, _ := Messages(s.Chain); len(s.Chain) > len(s.Live()) {
				for _, p := range conversation.Check(all) {
					if p.Kind == conversation.Unanswered && p.Message < len(all)-2 {
						t.Errorf("before the boundary: %v", p)
					}
				}
			}
			var probs []string
			for _, p := range s.Problems {
				if !p.Skipped {
					probs = append(probs, p.String())
				}
			}
			for _, e := range s.Chain {
				if !messageTypes[e.Type] {
					t.Errorf("line %d (%s) is on the chain", e.Line, e.Type)
				}
			}
			got := [...]int{len(s.Chain), len(s.Live()), len(msgs), len(probs)}
			if got != [...]int{want.chain, want.live, want.messages, want.problems} || checks != want.checks {
				t.Errorf("chain %d, live %d, messages %d, problems %d %v, checks %q;\nwant %+v", got[0], got[1], got[2], got[3], probs, checks, want)
			}
			// The resume fixes what is left: the repaired request is valid.
			if fixed, _ := conversation.Repair(msgs); len(msgs) > 0 && len(conversation.Check(fixed)) != 0 {
				t.Errorf("repaired request still invalid: %v", conversation.Check(fixed))
			}
			// An export of the chain's lines loads back to the same chain.
			var data strings.Builder
			for _, e := range s.Lines() {
				data.Write(e.Raw)
				data.WriteByte('\n')
			}
			f, err := Read(t.Context(), strings.NewReader(data.String()), name)
			if err != nil {
				t.Fatal(err)
			}
			again := FromFile(f)
			if a, b := chainUUIDs(s), chainUUIDs(again); strings.Join(a, ",") != strings.Join(b, ",") {
				t.Errorf("exported lines load to a chain of %d entries, want the %d of the file", len(b), len(a))
			}
		})
	}
	for name := range corpusChains {
		if !seen[name] {
			if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
				t.Errorf("pinned %s is not in the corpus", name)
			}
		}
	}
}
