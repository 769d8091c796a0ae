package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/llm"
	_ "github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
	_ "github.com/strata-mem/strata/llm/openai"
	"github.com/strata-mem/strata/memdir"
)

// judgeMems: two memories about deploying (the same name, different words, no key: value facts
// the offline checks could compare), and two unrelated ones.
var judgeMems = []mem{
	{"deploy-old.md", "deploy", "how we deploy", "We ship with Helm charts to the staging cluster, by hand, on Fridays.", 30 * day},
	{"deploy.md", "deploy", "how we deploy now", "Releases go through Argo CD from the main branch; nobody runs Helm by hand any more.", day},
	{"tabs.md", "tabs", "indentation", "The user indents Go code with tabs.", 2 * day},
	{"coffee.md", "coffee", "the team's coffee", "The team drinks its coffee black.", 3 * day},
}

const judgeReply = `{"merges": [{"archive": "coffee.md", "keep": "tabs.md", "reason": "Both are about team habits."}],
 "contradictions": [{"archive": "deploy-old.md", "keep": "deploy.md", "reason": "Helm by hand was replaced by Argo CD."}]}`

// With a model, Consolidate asks it once; the contradiction between memories of the same name
// is archived with the model's reason, the merge of unrelated memories stays a proposal.
func TestConsolidateAsksTheModel(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			ctx := t.Context()
			s := newStore(t, judgeMems)
			srv := llmtest.NewAnthropic(t)
			if format == "openai" {
				srv = llmtest.NewOpenAI(t)
			}
			// A code fence around the object is allowed.
			srv.Script(llmtest.Text("```json\n" + judgeReply + "\n```"))
			p, err := llm.New(srv.Config())
			if err != nil {
				t.Fatal(err)
			}
			c, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0, ForgetAfter: -1, Provider: p, Propose: true})
			if err != nil {
				t.Fatal(err)
			}
			want := []brief{{KindMerge, "coffee.md", "tabs.md", false}, {KindSupersede, "deploy-old.md", "deploy.md", true}}
			if diff := cmp.Diff(want, briefs(c.Plan)); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			for _, a := range c.Plan.Actions {
				if !a.Model || !strings.Contains(a.Reason, "the model: ") {
					t.Errorf("%s: not marked as the model's, or without its reason: %+v", a.File, a)
				}
				switch a.File {
				case "coffee.md":
					if !a.Proposed || a.Done || a.Guard == "" || !strings.Contains(a.Reason, "Both are about team habits.") || !strings.Contains(a.Reason, "not archived on the model's word alone") {
						t.Errorf("unrelated merge: %+v", a)
					}
				case "deploy-old.md":
					if !a.Done || a.ArchivedTo != ".archive/deploy-old.md" || !strings.Contains(a.Reason, "Helm by hand was replaced by Argo CD.") {
						t.Errorf("same-subject contradiction: %+v", a)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(s.Dir(), "coffee.md")); err != nil {
				t.Errorf("archived on the model's word alone: %v", err)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			body := string(reqs[0].Body)
			for _, w := range []string{"deploy-old.md", "Argo CD", "coffee.md", `\"contradictions\"`} {
				if !strings.Contains(body, w) {
					t.Errorf("the request lacks %s", w)
				}
			}
			recs, _ := memdir.ReadArchiveLog(s.Dir())
			if len(recs) != 1 || recs[0].Action != KindSupersede || !strings.Contains(recs[0].Reason, "Argo CD") {
				t.Errorf("archive log: %+v", recs)
			}
		})
	}
}

// A proposal whose kept memory is the older one is not archived either; an automatic run
// (ExactOnly) archives none of the model's proposals; a person accepting one (Only) does.
func TestModelStepsGuard(t *testing.T) {
	s := newStore(t, judgeMems)
	props := []ModelProposal{
		{Kind: ProposeContradict, Archive: "deploy.md", Keep: "deploy-old.md", Reason: "backwards"},
		{Kind: ProposeMerge, Archive: "coffee.md", Keep: "tabs.md", Reason: "habits"},
		{Kind: ProposeMerge, Archive: "gone.md", Keep: "tabs.md", Reason: "a file that is not there"},
	}
	for _, tt := range []struct {
		name string
		opts Options
		want []brief
	}{
		{"checked", Options{}, []brief{{KindMerge, "coffee.md", "tabs.md", false}, {KindSupersede, "deploy.md", "deploy-old.md", false}}},
		{"automatic", Options{ExactOnly: true}, []brief{{KindMerge, "coffee.md", "tabs.md", false}, {KindSupersede, "deploy.md", "deploy-old.md", false}}},
		{"accepted", Options{Only: []string{"coffee.md"}}, []brief{{KindMerge, "coffee.md", "tabs.md", true}, {KindSupersede, "deploy.md", "deploy-old.md", false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Now, tt.opts.ForgetAfter, tt.opts.Model = t0, -1, props
			p, err := PlanDream(t.Context(), s, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, briefs(p)); diff != "" {
				t.Fatalf("plan (-want +got):\n%s", diff)
			}
			for _, a := range p.Actions {
				if a.File == "deploy.md" && !strings.Contains(a.Guard, "older") {
					t.Errorf("guard = %q, want the older one named", a.Guard)
				}
			}
		})
	}
}

// A reply that is not the asked JSON is an error naming the problem; nothing is archived.
func TestConsolidateMalformedModelReply(t *testing.T) {
	for _, tt := range []struct{ reply, want string }{
		{"I think deploy-old.md can go.", "invalid character"},
		{`{"merges": [], "contradictions": [], "notes": "x"}`, `unknown field "notes"`},
		{`{"merges": []}`, `"merges" and "contradictions" are both required`},
		{`{"merges": [{"archive": "coffee.md", "keep": "tabs.md"}], "contradictions": []}`, `merges[0]: "reason" is missing`},
		{`{"merges": [], "contradictions": [{"archive": "nope.md", "keep": "deploy.md", "reason": "r"}]}`, `contradictions[0]: "nope.md" is not one of the memory files`},
		{`{"merges": [{"archive": "tabs.md", "keep": "tabs.md", "reason": "r"}], "contradictions": []}`, `"tabs.md" is both archived and kept`},
		{`{"merges": [], "contradictions": []} {"more": 1}`, "text after the JSON object"},
	} {
		t.Run(tt.want, func(t *testing.T) {
			ctx := t.Context()
			// An exact duplicate too: the offline plan alone would archive it.
			s := newStore(t, append([]mem{{"tabs-copy.md", "tabs", "indentation", "The user indents Go code with tabs.", 5 * day}}, judgeMems...))
			before := snapshot(t, s.Dir())
			srv := llmtest.NewAnthropic(t)
			srv.Script(llmtest.Text(tt.reply))
			p, _ := llm.New(srv.Config())
			_, err := Consolidate(ctx, s, ConsolidateOptions{Now: t0, ForgetAfter: -1, Provider: p, Propose: true})
			if !errors.Is(err, ErrModelReply) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want ErrModelReply saying %q", err, tt.want)
			}
			if diff := cmp.Diff(before, snapshot(t, s.Dir())); diff != "" {
				t.Errorf("changed after a malformed reply (-before +after):\n%s", diff)
			}
			if _, err := os.Stat(filepath.Join(s.Dir(), ArchiveLog)); err == nil {
				t.Error("an archive log was written")
			}
		})
	}
}

// Fewer than two memories: nothing to compare, no request.
func TestAskModelNeedsTwoMemories(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	p, _ := llm.New(srv.Config())
	s := newStore(t, judgeMems[:1])
	mems, _, _ := s.List(t.Context())
	if got, err := AskModel(t.Context(), p, "", mems); got != nil || err != nil {
		t.Errorf("AskModel = %v, %v", got, err)
	}
}

// A rejected step is left out while its files are unchanged; an edit brings it back under a new
// id. The model's saved proposals come back as they were and are dropped once a file changed.
func TestRejectionsAndSavedProposals(t *testing.T) {
	ctx := t.Context()
	long := "the user prefers tabs for indentation in go files and runs gofmt before every commit"
	s := newStore(t, []mem{
		{"a.md", "tabs", "indentation", long, 2 * day},
		{"b.md", "tabs2", "indentation", long, day},
		{"deploy-old.md", "deploy", "how we deploy", "We ship with Helm charts.", 30 * day},
		{"deploy.md", "deploy", "how we deploy now", "Releases go through Argo CD.", day},
	})
	props := []ModelProposal{{Kind: ProposeContradict, Archive: "deploy-old.md", Keep: "deploy.md", Reason: "Argo CD replaced Helm."}}
	mems, _, _ := s.List(ctx)
	byFile := map[string]memdir.Memory{}
	for _, m := range mems {
		byFile[m.File] = m
	}
	props[0].Content = pairContent(byFile["deploy-old.md"], byFile["deploy.md"])
	if err := SaveModelProposals(s.Dir(), props); err != nil {
		t.Fatal(err)
	}
	saved, err := LoadModelProposals(s.Dir())
	if err != nil || !cmp.Equal(props, saved) {
		t.Fatalf("LoadModelProposals = %+v, %v; want %+v", saved, err, props)
	}
	plan := func() Plan {
		t.Helper()
		rejected, err := ReadRejections(s.Dir())
		if err != nil {
			t.Fatal(err)
		}
		p, err := PlanDream(ctx, s, Options{Now: t0, ForgetAfter: -1, Rejected: rejected, Model: saved})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := plan()
	if diff := cmp.Diff([]brief{{KindMerge, "a.md", "b.md", true}, {KindSupersede, "deploy-old.md", "deploy.md", true}}, briefs(p)); diff != "" {
		t.Fatalf("plan (-want +got):\n%s", diff)
	}
	if p.Actions[0].ID == p.Actions[1].ID || len(p.Actions[0].ID) != 12 {
		t.Fatalf("ids %q %q", p.Actions[0].ID, p.Actions[1].ID)
	}
	if again := plan(); !cmp.Equal(p.Actions, again.Actions) {
		t.Fatalf("ids not stable across runs:\n%+v\n%+v", p.Actions, again.Actions)
	}
	if err := RejectSteps(s.Dir(), t0, p.Actions[:1]); err != nil {
		t.Fatal(err)
	}
	rp := plan()
	if diff := cmp.Diff([]brief{{KindSupersede, "deploy-old.md", "deploy.md", true}}, briefs(rp)); diff != "" || rp.Rejected != 1 {
		t.Fatalf("after rejecting the merge: rejected %d, plan (-want +got):\n%s", rp.Rejected, diff)
	}
	// Editing a.md makes it a new proposal; editing deploy.md drops the model's stale one.
	for _, f := range []string{"a.md", "deploy.md"} {
		p := filepath.Join(s.Dir(), f)
		data, _ := os.ReadFile(p)
		st, _ := os.Stat(p)
		if err := os.WriteFile(p, append(data, []byte("One more line.\n")...), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, st.ModTime(), st.ModTime()) // the same age: only the content changed
	}
	ep := plan()
	if len(ep.Actions) != 1 || ep.Actions[0].File != "a.md" || ep.Actions[0].ID == p.Actions[0].ID || ep.Rejected != 0 {
		t.Fatalf("after the edits: %+v (rejected %d)", ep.Actions, ep.Rejected)
	}
	data, _ := os.ReadFile(filepath.Join(s.Dir(), RejectLog))
	if !strings.Contains(string(data), `"id":"`+p.Actions[0].ID+`","kind":"merge","file":"a.md","survivor":"b.md"`) {
		t.Errorf("%s = %s", RejectLog, data)
	}
}

// Summary is one line even for a store with many proposals (the real corpus has 176 dangling
// index lines): it names five files and counts the rest.
func TestSummaryNamesAFewFiles(t *testing.T) {
	var c Consolidation
	c.Plan.Actions = append(c.Plan.Actions, Action{Kind: KindMerge, File: "a.md", Done: true})
	for i := range 8 {
		c.Plan.Actions = append(c.Plan.Actions, Action{Kind: KindDangling, File: string(rune('p'+i)) + ".md", Proposed: true})
	}
	want := "auto-dream archived 1 (a.md); proposes 8 more for review (p.md, q.md, r.md, s.md, t.md and 3 more): run `strata memory dream --review`, then `strata memory dream --accept FILE` to accept; undo: `strata memory restore --last-dream`"
	if got := c.Summary(); got != want {
		t.Errorf("Summary =\n%s\nwant\n%s", got, want)
	}
}
