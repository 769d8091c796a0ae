package webui

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/strata-mem/strata/extract"
	_ "github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/workspace"
)

// addDuplicates adds two memories whose text is the same: the dream merges the older into the
// newer.
func (f *fixture) addDuplicates(t testing.TB, older, newer, topic string) {
	t.Helper()
	body := "The " + topic + " job runs nightly at 02:00 UTC and retries twice before paging.\n\n**Why:** flaky network.\n**How to apply:** check its log first."
	f.add(t, memdir.Input{Name: older, Description: topic + " schedule", Type: memdir.TypeProject, Body: body})
	f.add(t, memdir.Input{Name: newer, Description: topic + " schedule", Type: memdir.TypeProject, Body: body})
}

// formValues are the values of the hidden inputs called name in body, in order.
func formValues(body, name string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`name="`+name+`" value="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

func TestDream(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	f.addDuplicates(t, "backup-old", "backup-new", "backup")
	f.addDuplicates(t, "report-old", "report-new", "report")
	ctx := context.Background()

	code, body := f.get(t, "/dream")
	ids := formValues(body, "id")
	if code != http.StatusOK || len(ids) != 2 || !strings.Contains(body, "backup-new.md") || !strings.Contains(body, "duplicate") ||
		!strings.Contains(body, "No model to ask") || strings.Contains(body, `value="ask"`) {
		t.Fatalf("the plan: %d, ids %q\n%s", code, ids, body)
	}
	// The page only plans: nothing moved.
	if _, err := f.store.Get(ctx, "backup-old"); err != nil {
		t.Fatalf("showing the plan changed the store: %v", err)
	}

	// Apply the first step alone: its file is archived, the other pair stays.
	code, body = f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[0]}, "action": {"apply"}})
	if code != http.StatusOK || !strings.Contains(body, "applied: merge backup-old.md") {
		t.Fatalf("apply: %d\n%s", code, body)
	}
	if _, err := f.store.Get(ctx, "backup-old"); !errors.Is(err, memdir.ErrNotFound) {
		t.Fatalf("backup-old after apply: %v, want archived", err)
	}
	if _, err := f.store.Get(ctx, "report-old"); err != nil {
		t.Fatalf("applying one step moved another: %v", err)
	}
	lintClean(t, f.store)
	// Applying it again finds it gone from the plan.
	if code, body := f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[0]}, "action": {"apply"}}); code != http.StatusConflict {
		t.Fatalf("apply twice: %d, want 409\n%s", code, body)
	}

	// Reject the second: recorded, no longer planned, its files untouched.
	code, body = f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[1]}, "action": {"reject"}})
	if code != http.StatusOK || !strings.Contains(body, "rejected: merge report-old.md") || len(formValues(body, "id")) != 0 {
		t.Fatalf("reject: %d\n%s", code, body)
	}
	rejected, err := extract.ReadRejections(f.store.Dir())
	must(t, err)
	if !rejected[ids[1]] {
		t.Fatalf("rejections %v lack %s", rejected, ids[1])
	}
	if _, err := f.store.Get(ctx, "report-old"); err != nil {
		t.Fatalf("rejecting moved the file: %v", err)
	}

	// Undo the applied step from the journal: the file and its index line come back.
	keys := formValues(body, "key")
	if len(keys) != 1 {
		t.Fatalf("journal keys %q, want the one applied step\n%s", keys, body)
	}
	code, body = f.post(t, "/dream", url.Values{"store": {"project"}, "key": {keys[0]}, "action": {"undo"}})
	if code != http.StatusOK || !strings.Contains(body, "undone: merge backup-old.md") || len(formValues(body, "key")) != 0 {
		t.Fatalf("undo: %d\n%s", code, body)
	}
	if _, err := f.store.Get(ctx, "backup-old"); err != nil {
		t.Fatalf("after undo: %v", err)
	}
	idx, err := os.ReadFile(f.store.IndexPath())
	must(t, err)
	if !strings.Contains(string(idx), "backup-old.md") {
		t.Fatalf("the index line did not come back:\n%s", idx)
	}
	lintClean(t, f.store)

	if code, _ := f.post(t, "/dream", url.Values{"store": {"project"}, "action": {"delete"}}); code != http.StatusConflict {
		t.Fatalf("an unknown action: %d, want 409", code)
	}
	if code, _ := f.post(t, "/dream", url.Values{"store": {"nosuch"}, "action": {"apply"}, "id": {ids[0]}}); code != http.StatusForbidden {
		t.Fatalf("an unknown store: %d, want 403", code)
	}
}

// TestDreamStepChangedSincePlanned: a step whose file changed after the page showed it is
// not carried out (Apply's planned hashes), and the page says why.
func TestDreamStepChangedSincePlanned(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	f.addDuplicates(t, "backup-old", "backup-new", "backup")
	_, body := f.get(t, "/dream")
	ids := formValues(body, "id")
	if len(ids) != 1 {
		t.Fatalf("ids %q", ids)
	}
	p := filepath.Join(f.store.Dir(), "backup-old.md")
	data, err := os.ReadFile(p)
	must(t, err)
	must(t, os.WriteFile(p, append(data, "Also on Sundays.\n"...), 0o600))
	code, body := f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[0]}, "action": {"apply"}})
	if code != http.StatusConflict {
		t.Fatalf("apply after a change: %d, want 409\n%s", code, body)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("the changed file was moved: %v", err)
	}
}

// TestDreamAskModel: the page asks the configured model once; its proposal is in the plan with
// its reason, only proposed when the rules do not back it, and applying it asks nothing more.
// A reply that is not the asked JSON changes nothing.
func TestDreamAskModel(t *testing.T) {
	srv := llmtest.NewAnthropic(t)
	vars := map[string]string{"ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_API_KEY": llmtest.Key, "STRATA_PROVIDER": "anthropic", "STRATA_MODEL": "test-model"}
	f := newFixtureAt(t, t.TempDir(), 0, func(k string) string { return vars[k] })
	f.login(t)
	f.add(t, memdir.Input{Name: "coffee", Description: "the team coffee", Type: memdir.TypeUser, Body: "The team drinks its coffee black."})

	_, body := f.get(t, "/dream")
	if !strings.Contains(body, `value="ask" class="ask">Ask test-model</button>`) || len(formValues(body, "id")) != 0 {
		t.Fatalf("before asking:\n%s", body)
	}
	srv.Script(llmtest.Text(`{"merges": [{"archive": "coffee.md", "keep": "tabs.md", "reason": "both are <b>team</b> habits"}], "contradictions": []}`))
	code, body := f.post(t, "/dream", url.Values{"store": {"project"}, "action": {"ask"}})
	if code != http.StatusOK || !strings.Contains(body, "test-model proposed 1 merge(s)") {
		t.Fatalf("ask: %d\n%s", code, body)
	}
	ids := formValues(body, "id")
	if len(ids) != 1 || !strings.Contains(body, "the model: both are &lt;b&gt;team&lt;/b&gt; habits") || !strings.Contains(body, "only proposed: ") {
		t.Fatalf("the model's proposal is not in the plan, escaped, with why it is only proposed (ids %q):\n%s", ids, body)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests, want 1", n)
	}
	if _, err := f.store.Get(context.Background(), "coffee"); err != nil {
		t.Fatalf("asking archived: %v", err)
	}

	code, body = f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[0]}, "action": {"apply"}})
	if code != http.StatusOK || !strings.Contains(body, "applied: merge coffee.md") {
		t.Fatalf("apply the model's proposal: %d\n%s", code, body)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("applying asked the model again: %d requests", n)
	}
	lintClean(t, f.store)

	saved, err := os.ReadFile(filepath.Join(f.store.Dir(), filepath.FromSlash(extract.ModelProposalsFile)))
	must(t, err)
	srv.Script(llmtest.Text(`{"merges": [{"archive": "deploy-steps.md"}]}`))
	code, body = f.post(t, "/dream", url.Values{"store": {"project"}, "action": {"ask"}})
	if code != http.StatusConflict || !strings.Contains(body, "not the asked JSON") || !strings.Contains(body, "nothing was changed") {
		t.Fatalf("a malformed reply: %d\n%s", code, body)
	}
	after, err := os.ReadFile(filepath.Join(f.store.Dir(), filepath.FromSlash(extract.ModelProposalsFile)))
	must(t, err)
	if string(after) != string(saved) {
		t.Fatalf("a malformed reply changed the saved proposals:\n%s", after)
	}
}

// TestDreamPlansInBackground: a plan that takes long does not hold the page: it says it is
// planning, then shows the plan once made; the plan is made once per state of the store, and
// a change of the store plans again, cancelling a plan of the old state.
func TestDreamPlansInBackground(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	f.addDuplicates(t, "backup-old", "backup-new", "backup")
	release := make(chan struct{})
	var calls, cancelled atomic.Int32
	f.srv.planDream = func(ctx context.Context, ns workspace.NamedStore) (extract.Plan, []string, error) {
		calls.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
			cancelled.Add(1)
			return extract.Plan{}, nil, ctx.Err()
		}
		return f.srv.dreamPlan(ctx, ns)
	}
	code, body := f.get(t, "/dream")
	if code != http.StatusOK || !strings.Contains(body, `id="planning"`) || strings.Contains(body, `value="apply"`) {
		t.Fatalf("a slow plan: %d\n%s", code, body)
	}
	// The store changes while it plans: the old plan is cancelled, a new one starts.
	f.addDuplicates(t, "report-old", "report-new", "report")
	f.srv.changed(t.Context())
	if _, body = f.get(t, "/dream"); !strings.Contains(body, `id="planning"`) {
		t.Fatalf("after a change, not planning:\n%s", body)
	}
	close(release)
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(body, `id="planning"`) && time.Now().Before(deadline) {
		_, body = f.get(t, "/dream")
	}
	if ids := formValues(body, "id"); len(ids) != 2 {
		t.Fatalf("the plan once made: %d steps, want 2\n%s", len(ids), body)
	}
	f.get(t, "/dream")
	if calls.Load() != 2 || cancelled.Load() != 1 {
		t.Errorf("planned %d times (%d cancelled), want 2 (1 cancelled): one plan per state of the store", calls.Load(), cancelled.Load())
	}
}

// TestDreamApplyUsesThePagePlan: applying a step carries out the step the page showed, from
// its plan (the archive record has that plan's reason), without planning the store again.
func TestDreamApplyUsesThePagePlan(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	f.addDuplicates(t, "backup-old", "backup-new", "backup")
	var calls atomic.Int32
	f.srv.planDream = func(ctx context.Context, ns workspace.NamedStore) (extract.Plan, []string, error) {
		calls.Add(1)
		plan, problems, err := f.srv.dreamPlan(ctx, ns)
		for i := range plan.Actions {
			plan.Actions[i].Reason = "as the page showed it"
		}
		return plan, problems, err
	}
	_, body := f.get(t, "/dream")
	ids := formValues(body, "id")
	if len(ids) != 1 || calls.Load() != 1 {
		t.Fatalf("ids %q after %d plans", ids, calls.Load())
	}
	code, body := f.post(t, "/dream", url.Values{"store": {"project"}, "id": {ids[0]}, "action": {"apply"}})
	if code != http.StatusOK || !strings.Contains(body, "applied: merge backup-old.md") {
		t.Fatalf("apply: %d\n%s", code, body)
	}
	recs, err := memdir.ReadArchiveLog(f.store.Dir())
	must(t, err)
	if len(recs) != 1 || recs[0].Reason != "as the page showed it" {
		t.Fatalf("archive records %+v, want the page's step", recs)
	}
	lintClean(t, f.store)
}
