package webui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/strata-mem/strata/internal/sharedtest"
	"github.com/strata-mem/strata/memdir"
)

// chromium returns the headless browser to drive: $STRATA_CHROMIUM, else Debian's chromium
// (or a Chrome) on PATH; it skips the test when there is none.
func chromium(t *testing.T) string {
	if p := os.Getenv("STRATA_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH (apt-get install chromium, or set STRATA_CHROMIUM): the browser test needs one")
	return ""
}

// TestBrowser drives the pages in headless Chromium as a user would: open the tokened URL,
// search a memory as you type, edit it, accept an inbox proposal, apply and undo a dream step,
// find a message across sessions, open it and its subagent; the store
// passes memory lint afterwards. With STRATA_SCREENSHOTS=dir (relative to the repository
// root) it saves a screenshot of each page there.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	bin := chromium(t)
	f := newFixture(t, 40)
	inbox := filepath.Join(f.store.Dir(), memdir.InboxDir)
	must(t, os.MkdirAll(inbox, 0o700))
	must(t, os.WriteFile(filepath.Join(inbox, "ci-cache.md"), []byte("---\nname: ci-cache\ndescription: the CI cache is keyed on go.sum\ntype: project\n---\n\nKey the module cache on go.sum.\n\n**Why:** stale modules.\n**How to apply:** in every workflow.\n"), 0o600))
	shots := os.Getenv("STRATA_SCREENSHOTS")
	if shots != "" && !filepath.IsAbs(shots) {
		shots = filepath.Join(sharedtest.Root(t), shots)
	}

	// The first Run starts the browser, which lives as long as that call's context. Chromium
	// now and then dies at start on a machine busy with other tests ("chrome failed to start",
	// a crash before it prints its address): a fresh one is tried, up to three times.
	var ctx context.Context
	for try := 1; ; try++ {
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
			chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 860),
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
		bctx, cancel := chromedp.NewContext(actx)
		tctx, cancelT := context.WithTimeout(bctx, 90*time.Second)
		err := chromedp.Do(tctx)
		if err == nil {
			ctx = tctx
			defer cancelAlloc()
			defer cancel()
			defer cancelT()
			break
		}
		cancelT()
		cancel()
		cancelAlloc()
		if try == 3 || !strings.Contains(err.Error(), "failed to start") {
			t.Fatalf("start %s: %v", bin, err)
		}
		t.Logf("start %s (try %d): %v", bin, try, err)
	}
	do := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, steps...); err != nil {
			page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
			t.Fatalf("%s: %v; the page:\n%s", what, err, page)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	shot := func(name string) {
		t.Helper()
		if shots == "" {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(shots, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// loaded waits until a page that a click navigated to has loaded and cond (JavaScript) holds;
	// evaluating while the page navigates fails, so it tries again.
	loaded := func(what, cond string) {
		t.Helper()
		var err error
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			var ok bool
			if ok, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.readyState === "complete" && (`+cond+`)`)); err == nil && ok {
				return
			}
		}
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("%s: not loaded (%v); the page:\n%s", what, err, page)
	}

	// The tokened URL sets the cookie and lands on the memory page without the token.
	do("open the URL", chromedp.Navigate(f.srv.URL()), chromedp.WaitVisible("#q"))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	must(t, err)
	if count := text("#count"); strings.Contains(loc, "token") || !strings.Contains(count, "42 memories") {
		t.Fatalf("after opening the URL: at %s, count %q", loc, count)
	}
	shot("ui-memory")

	// Search as you type: the list is replaced without a page load.
	do("search", chromedp.SendKeys("#q", "deploying to staging"),
		chromedp.Poll[chromedp.Void](`document.getElementById("count").textContent.includes("for “deploying to staging”")`))
	if first := text("#results a.mem"); first != "deploy-steps" {
		t.Fatalf("first hit = %q, want deploy-steps", first)
	}
	shot("ui-search")

	// Edit it: the textarea is posted with the CSRF token, the file and its index line change.
	do("open the memory", chromedp.Click("#results a.mem"), chromedp.WaitVisible("#text"))
	was, err := chromedp.Run(ctx, chromedp.Value("#text"))
	must(t, err)
	edited := strings.Replace(was, "how to deploy the API to staging", "how to deploy the API to staging (make deploy)", 1)
	if edited == was {
		t.Fatalf("the editor does not hold the memory's text:\n%s", was)
	}
	do("save", chromedp.SetValue("#text", edited), chromedp.Click("#save"), chromedp.WaitVisible("#saved"))
	if saved := text("#saved"); !strings.Contains(saved, "index line updated") {
		t.Fatalf("after saving: %q", saved)
	}
	shot("ui-edit")
	data, err := os.ReadFile(filepath.Join(f.store.Dir(), "deploy-steps.md"))
	must(t, err)
	idx, err := os.ReadFile(f.store.IndexPath())
	must(t, err)
	if !strings.Contains(string(data), "(make deploy)") || !strings.Contains(string(idx), "(make deploy)") {
		t.Fatalf("the edit did not reach the store:\n%s\n%s", data, idx)
	}

	// Accept the extractor's proposal from the inbox.
	do("inbox", chromedp.Navigate(f.base+"/"), chromedp.WaitVisible("button.accept"))
	shot("ui-inbox")
	do("accept", chromedp.Click("button.accept"))
	// The post redirects to the memory page; wait until it has loaded without the proposal.
	loaded("the memory page without the proposal", `!document.querySelector("button.accept") && !!document.getElementById("q")`)
	if _, err := os.Stat(filepath.Join(f.store.Dir(), "ci-cache.md")); err != nil {
		t.Fatalf("the accepted proposal is not live: %v", err)
	}

	// Apply one step of the dream's plan, then undo it from the journal.
	f.addDuplicates(t, "backup-old", "backup-new", "backup")
	for i := range 97 { // the files the notes name, so that the plan flags none of them as stale
		p := filepath.Join(f.ws.Root(), "docs", fmt.Sprintf("topic-%d.md", i))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, nil, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(f.ws.Root(), "go.sum"), nil, 0o644))
	do("dream", chromedp.Navigate(f.base+"/dream"), chromedp.WaitVisible("button.apply"))
	if plan := text("table.plan"); !strings.Contains(plan, "backup-old.md") || !strings.Contains(plan, "backup-new.md") {
		t.Fatalf("the plan lacks the duplicate:\n%s", plan)
	}
	shot("ui-dream")
	old := filepath.Join(f.store.Dir(), "backup-old.md")
	do("apply", chromedp.Click("button.apply"), chromedp.WaitVisible("#done"), chromedp.WaitVisible("button.undo"))
	if done := text("#done"); !strings.Contains(done, "applied: merge backup-old.md") {
		t.Fatalf("after apply: %q", done)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("the applied merge left backup-old.md: %v", err)
	}
	do("undo", chromedp.Click("button.undo"))
	loaded("the dream page after undo", `(d => !!d && d.textContent.includes("undone"))(document.getElementById("done"))`)
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("undo did not bring backup-old.md back: %v", err)
	}

	// Find a message across sessions, open the session at it.
	writeSubagent(t, f, "a7e1")
	for i := range 14 { // two weeks of other sessions, for the chart of tokens and cost
		id := fmt.Sprintf("5f0c1b2a-0000-4000-8000-1000000000%02d", i)
		day := time.Date(2026, 2, 16+i, 15, 0, 0, 0, time.UTC).Format(time.RFC3339)
		line := `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"` + id + `","cwd":"` + f.ws.Root() + `","timestamp":"` + day + `","message":{"role":"user","content":"Review change ` + fmt.Sprint(100+i) + `"}}` + "\n" +
			`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"` + id + `","timestamp":"` + day + `","message":{"role":"assistant","id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":` + fmt.Sprint(2000+900*(i%5)) + `,"output_tokens":` + fmt.Sprint(400+300*(i%3)) + `,"cache_read_input_tokens":` + fmt.Sprint(20000*(i%4)) + `},"content":[{"type":"text","text":"Looks good."}]}}` + "\n"
		must(t, os.WriteFile(filepath.Join(f.ws.TranscriptDir(), id+".jsonl"), []byte(line), 0o600))
	}
	do("search sessions", chromedp.Navigate(f.base+"/sessions"), chromedp.WaitVisible("#sq"),
		chromedp.SendKeys("#sq", "ticker\n"), chromedp.WaitVisible("a.hit"))
	if bars, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#chart rect.tok").length`)); err != nil || bars < 14 {
		t.Fatalf("the chart has %d bars (%v), want a day each", bars, err)
	}
	shot("ui-sessions")
	do("open the hit", chromedp.Click("a.hit"), chromedp.WaitVisible("#L5"))
	class, err := chromedp.Run(ctx, chromedp.AttributeValue("#L5", "class"))
	must(t, err)
	if !strings.Contains(class.Value, "match") {
		t.Fatalf("the message found is not marked: class %q", class.Value)
	}
	hidden, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(".conv .turn.hidden").length`))
	must(t, err)
	if hidden == 0 {
		t.Fatal("find in the session hides no turn that lacks the text")
	}
	// The whole conversation again, tool calls folded, for the picture.
	do("clear the find", chromedp.Evaluate[chromedp.Void](`void (f => { f.value = ""; f.dispatchEvent(new Event("input")) })(document.getElementById("find"))`))
	shot("ui-session")
	do("open the subagent", chromedp.Click("ul.subagents a.agent"), chromedp.WaitVisible("#parent"))
	if conv := text(".conv"); !strings.Contains(conv, "The ticker is created in newWidget") {
		t.Fatalf("the subagent page lacks its reply:\n%s", conv)
	}

	do("context", chromedp.Navigate(f.base+"/context"), chromedp.WaitVisible("table.ctx"))
	if ctxText := text("table.ctx"); !strings.Contains(ctxText, "CLAUDE.md") {
		t.Fatalf("context table lacks CLAUDE.md:\n%s", ctxText)
	}
	shot("ui-context")
	lintClean(t, f.store)
}
