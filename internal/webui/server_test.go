package webui

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/workspace"
)

// fixture is a project with memories, a session and an instruction file, served on loopback.
type fixture struct {
	ws     *workspace.Workspace
	store  *memdir.Store
	srv    *Server
	ts     *httptest.Server
	base   string // http://127.0.0.1:PORT
	client *http.Client
}

const sessionID = "5f0c1b2a-0000-4000-8000-000000000001"

// newFixture builds the project; memories are written through the store's Add.
func newFixture(t testing.TB, memories int) *fixture {
	t.Helper()
	return newFixtureAt(t, t.TempDir(), memories, nil)
}

// newFixtureAt is newFixture in root, where a test may have put settings first
// (home/.strata/settings.json), with the environment variables of getenv (nil: none).
func newFixtureAt(t testing.TB, root string, memories int, getenv func(string) string) *fixture {
	t.Helper()
	project := filepath.Join(root, "project")
	must(t, os.MkdirAll(project, 0o755))
	must(t, os.WriteFile(filepath.Join(project, "CLAUDE.md"), []byte("# Project\nRun `make test` before committing.\n"), 0o644))
	env := config.Env{Home: filepath.Join(root, "home", ".strata"), ManagedDir: filepath.Join(root, "managed"), UserHome: filepath.Join(root, "home"), Getenv: getenv}
	ctx := context.Background()
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: project, Env: env})
	must(t, err)
	st, err := ws.Store()
	must(t, err)
	f := &fixture{ws: ws, store: st}
	f.add(t, memdir.Input{Name: "deploy-steps", Description: "how to deploy the API to staging", Type: memdir.TypeProject,
		Body: "Run `make deploy ENV=staging`.\n\n**Why:** prod needs approval.\n**How to apply:** staging first."})
	f.add(t, memdir.Input{Name: "tabs", Description: "indent Go with tabs <script>alert(1)</script>", Type: memdir.TypeFeedback,
		Body: "gofmt decides.\n\n**Why:** review noise.\n**How to apply:** run gofmt."})
	for i := range memories {
		f.add(t, memdir.Input{Name: fmt.Sprintf("note-%05d", i), Description: fmt.Sprintf("note number %d about topic %d", i, i%97),
			Type: memdir.TypeReference, Body: fmt.Sprintf("Reference %d: see docs/topic-%d.md.", i, i%97)})
	}
	writeSession(t, ws.TranscriptDir(), project)

	ln := httptest.NewUnstartedServer(nil)
	f.srv, err = New(Options{Workspace: ws, Addr: ln.Listener.Addr().String(), SessionIndex: filepath.Join(root, "sessions.gob")})
	must(t, err)
	t.Cleanup(f.srv.Close)
	ln.Config.Handler = f.srv.Handler()
	ln.Start()
	t.Cleanup(ln.Close)
	f.ts, f.base = ln, ln.URL
	jar, _ := cookiejar.New(nil)
	f.client = &http.Client{Jar: jar}
	return f
}

func (f *fixture) add(t testing.TB, in memdir.Input) {
	t.Helper()
	if _, err := f.store.Add(context.Background(), in); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// writeSession writes a small Claude Code transcript: a prompt, a tool call and its result,
// a compaction, and an answer.
func writeSession(t testing.TB, dir, cwd string) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o700))
	ts := "2026-03-01T10:00:0%dZ"
	line := func(i int, typ, uuid, parent, msg string, extra string) string {
		p := "null"
		if parent != "" {
			p = fmt.Sprintf("%q", parent)
		}
		return fmt.Sprintf(`{"type":%q,"uuid":%q,"parentUuid":%s,"sessionId":%q,"cwd":%q,"timestamp":%q,"message":%s%s}`,
			typ, uuid, p, sessionID, cwd, fmt.Sprintf(ts, i), msg, extra) + "\n"
	}
	// The first reply is two lines, as Claude Code writes one a content block, each with the
	// reply's usage: it counts once.
	usage1 := `"id":"msg_1","model":"claude-sonnet-4-5","usage":{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":1000,"cache_creation_input_tokens":0}`
	data := line(1, "user", "u1", "", `{"role":"user","content":"Why does the flaky widget test fail on CI?"}`, "") +
		line(2, "assistant", "a1", "u1", `{"role":"assistant",`+usage1+`,"content":[{"type":"text","text":"Let me look."}]}`, "") +
		line(3, "assistant", "a1b", "a1", `{"role":"assistant",`+usage1+`,"content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"widget_test.go"}}]}`, "") +
		line(4, "user", "u2", "a1b", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"func TestWidget(t *testing.T) { time.Sleep(1) }"}]}`, "") +
		line(5, "assistant", "a2", "u2", `{"role":"assistant","id":"msg_2","model":"claude-sonnet-4-5","usage":{"input_tokens":50,"output_tokens":30},"content":[{"type":"text","text":"The test sleeps instead of waiting on a channel: a race with the ticker."}]}`, "")
	must(t, os.WriteFile(filepath.Join(dir, sessionID+".jsonl"), []byte(data), 0o600))
}

// login exchanges the token for the cookie, as the first visit does.
func (f *fixture) login(t testing.TB) {
	t.Helper()
	resp, err := f.client.Get(f.srv.URL())
	must(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" {
		t.Fatalf("login: %s at %s: %s", resp.Status, resp.Request.URL, body)
	}
}

// get returns the status and body of a GET of path with the fixture's cookies.
func (f *fixture) get(t testing.TB, path string) (int, string) {
	t.Helper()
	resp, err := f.client.Get(f.base + path)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// post sends a form as the page's own form would (same Origin, the CSRF token).
func (f *fixture) post(t testing.TB, path string, form url.Values) (int, string) {
	t.Helper()
	if form.Get("csrf") == "" {
		form.Set("csrf", f.srv.csrf)
	}
	req, err := http.NewRequest("POST", f.base+path, strings.NewReader(form.Encode()))
	must(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", f.base)
	resp, err := f.client.Do(req)
	must(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestRefusals(t *testing.T) {
	f := newFixture(t, 0)
	raw := func(method, path string, hdr map[string]string, body string, cookie bool) int {
		t.Helper()
		req, err := http.NewRequest(method, f.base+path, strings.NewReader(body))
		must(t, err)
		for k, v := range hdr {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		if cookie {
			req.AddCookie(&http.Cookie{Name: cookieName, Value: f.srv.session})
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		must(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	// Before login: nothing without the token.
	if got := raw("GET", "/", nil, "", false); got != http.StatusForbidden {
		t.Errorf("no token: %d, want 403", got)
	}
	if got := raw("GET", "/?token=wrong", nil, "", false); got != http.StatusForbidden {
		t.Errorf("wrong token: %d, want 403", got)
	}
	u, _ := url.Parse(f.srv.URL())
	if got := raw("GET", "/?"+u.RawQuery, map[string]string{"Host": "evil.example:" + u.Port()}, "", false); got != http.StatusMisdirectedRequest {
		t.Errorf("token sent to a rebound name: %d, want 421", got)
	}
	f.login(t)
	if got := raw("GET", "/?"+u.RawQuery, nil, "", false); got != http.StatusForbidden {
		t.Errorf("token used twice: %d, want 403", got)
	}
	edit := url.Values{"csrf": {f.srv.csrf}, "store": {"project"}, "file": {"tabs.md"}, "base": {"x"}, "text": {"x"}}.Encode()
	for _, tc := range []struct {
		name   string
		method string
		hdr    map[string]string
		body   string
		cookie bool
		want   int
	}{
		{"session cookie", "GET", nil, "", true, http.StatusOK},
		{"no cookie", "GET", nil, "", false, http.StatusForbidden},
		{"other Host (DNS rebinding)", "GET", map[string]string{"Host": "rebind.example:" + u.Port()}, "", true, http.StatusMisdirectedRequest},
		{"other Origin", "GET", map[string]string{"Origin": "http://evil.example"}, "", true, http.StatusForbidden},
		{"cross-site fetch", "GET", map[string]string{"Sec-Fetch-Site": "cross-site"}, "", true, http.StatusForbidden},
		{"cross-site POST", "POST", map[string]string{"Origin": "http://evil.example"}, edit, true, http.StatusForbidden},
		{"POST without Origin", "POST", nil, edit, true, http.StatusForbidden},
		{"POST without CSRF token", "POST", map[string]string{"Origin": f.base}, "store=project&file=tabs.md&text=x", true, http.StatusForbidden},
		{"POST with a wrong CSRF token", "POST", map[string]string{"Origin": f.base}, "csrf=0&store=project&file=tabs.md&text=x", true, http.StatusForbidden},
	} {
		path := "/"
		if tc.method == "POST" {
			path = "/memory/edit"
		}
		if got := raw(tc.method, path, tc.hdr, tc.body, tc.cookie); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(f.store.Dir(), "tabs.md")); !strings.Contains(string(data), "gofmt decides") {
		t.Fatalf("a refused POST changed the memory:\n%s", data)
	}
}

func TestMemoryPage(t *testing.T) {
	f := newFixture(t, 3)
	f.login(t)
	code, body := f.get(t, "/")
	if code != 200 {
		t.Fatalf("memory page: %d\n%s", code, body)
	}
	for _, want := range []string{"deploy-steps", "note-00002", "5 memories", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("memory page lacks %q", want)
		}
	}
	if strings.Contains(body, "<script>alert(1)") {
		t.Error("a memory's description reached the page unescaped")
	}
	// Search: the same ranker as strata memory search puts the deploy memory first.
	code, frag := f.get(t, "/memory/search?q=deploying+staging")
	if code != 200 {
		t.Fatalf("search: %d", code)
	}
	first := strings.Index(frag, `class="mem"`)
	if first < 0 || !strings.Contains(frag[first:first+120], "deploy-steps") {
		t.Fatalf("search for deploying staging: first hit is not deploy-steps:\n%s", frag)
	}
	if strings.Contains(frag, "note-00001") {
		t.Errorf("search lists a memory that does not match")
	}
}

func TestEdit(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	code, page := f.get(t, "/memory/edit?store=project&file=tabs.md")
	if code != 200 {
		t.Fatalf("edit page: %d\n%s", code, page)
	}
	path := filepath.Join(f.store.Dir(), "tabs.md")
	old, _ := os.ReadFile(path)
	base := memdir.ContentHash(old)
	// Lost the description: refused, nothing written.
	bad := strings.Replace(string(old), "description:", "descr:", 1)
	code, body := f.post(t, "/memory/edit", url.Values{"store": {"project"}, "file": {"tabs.md"}, "base": {base}, "text": {bad}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "lost its description") {
		t.Fatalf("bad edit: %d, want 422 naming the lost description\n%s", code, body)
	}
	if now, _ := os.ReadFile(path); string(now) != string(old) {
		t.Fatal("a refused edit changed the file")
	}
	// Outside the store: refused.
	code, _ = f.post(t, "/memory/edit", url.Values{"store": {"project"}, "file": {"../escape.md"}, "base": {base}, "text": {string(old)}})
	if code == http.StatusOK || code == http.StatusSeeOther {
		t.Fatalf("edit of ../escape.md: %d, want a refusal", code)
	}
	good := strings.Replace(string(old), "indent Go with tabs <script>alert(1)</script>", "indent Go code with tabs", 1)
	good = strings.ReplaceAll(good, "\n", "\r\n") // as a browser sends a textarea
	code, body = f.post(t, "/memory/edit", url.Values{"store": {"project"}, "file": {"tabs.md"}, "base": {base}, "text": {good}})
	if code != 200 || !strings.Contains(body, "index line updated") {
		t.Fatalf("good edit: %d\n%s", code, body)
	}
	now, _ := os.ReadFile(path)
	if strings.Contains(string(now), "\r") || !strings.Contains(string(now), "indent Go code with tabs") {
		t.Fatalf("file after the edit:\n%q", now)
	}
	idx, _ := os.ReadFile(f.store.IndexPath())
	if !strings.Contains(string(idx), "indent Go code with tabs") {
		t.Fatalf("index not in step:\n%s", idx)
	}
	// The same base again: the file changed since, refused.
	code, body = f.post(t, "/memory/edit", url.Values{"store": {"project"}, "file": {"tabs.md"}, "base": {base}, "text": {string(old)}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(body, "changed since") {
		t.Fatalf("stale edit: %d\n%s", code, body)
	}
	lintClean(t, f.store)
}

// lintClean fails t when memory lint finds an error in s.
func lintClean(t testing.TB, s *memdir.Store) {
	t.Helper()
	diags, err := s.Lint(context.Background())
	must(t, err)
	if n := memdir.Errors(diags); n > 0 {
		t.Fatalf("memory lint: %d errors: %v", n, diags)
	}
}

func TestRestore(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	if _, err := f.store.Forget(context.Background(), "deploy-steps", true); err != nil {
		t.Fatal(err)
	}
	_, body := f.get(t, "/")
	i := strings.Index(body, `name="key" value="`)
	if i < 0 {
		t.Fatalf("the archive lists nothing to restore:\n%s", body)
	}
	key := body[i+len(`name="key" value="`):]
	key = key[:strings.IndexByte(key, '"')]
	key = strings.ReplaceAll(key, "&#43;", "+")
	code, body := f.post(t, "/memory/restore", url.Values{"store": {"project"}, "key": {key}})
	if code != 200 {
		t.Fatalf("restore: %d\n%s", code, body)
	}
	if _, err := f.store.Get(context.Background(), "deploy-steps"); err != nil {
		t.Fatalf("after restore: %v", err)
	}
	if code, _ := f.post(t, "/memory/restore", url.Values{"store": {"project"}, "key": {key}}); code != http.StatusNotFound {
		t.Fatalf("restoring twice: %d, want 404", code)
	}
	lintClean(t, f.store)
}

func TestSessions(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	code, body := f.get(t, "/sessions")
	if code != 200 || !strings.Contains(body, sessionID) || !strings.Contains(body, "flaky widget test") {
		t.Fatalf("sessions page: %d\n%s", code, body)
	}
	_, body = f.get(t, "/sessions?q=RACE+with+the+ticker")
	if !strings.Contains(body, "1 message contains") || !strings.Contains(body, "#L5") {
		t.Fatalf("search did not find the answer on line 5:\n%s", body)
	}
	code, body = f.get(t, "/session?id="+sessionID[:8])
	if code != 200 {
		t.Fatalf("session page: %d\n%s", code, body)
	}
	for _, want := range []string{`<details class="tool"><summary>Read {&#34;file_path&#34;:&#34;widget_test.go&#34;}`, "a race with the ticker", "strata chat --resume " + sessionID, `id="L5"`,
		// 0.0009 for the first reply (once), 0.0006 for the second, at claude-sonnet-4's list price.
		"2 model replies · input 150 · cache write 0 · cache read 1000 · output 50 tokens · $0.0015 at list price"} {
		if !strings.Contains(body, want) {
			t.Errorf("session page lacks %q", want)
		}
	}
	if code, _ := f.get(t, "/session?id=nosuch"); code != http.StatusNotFound {
		t.Errorf("unknown session: %d, want 404", code)
	}
}

func TestContext(t *testing.T) {
	f := newFixture(t, 0)
	rules := filepath.Join(f.ws.Root(), ".claude", "rules")
	must(t, os.MkdirAll(rules, 0o755))
	must(t, os.WriteFile(filepath.Join(rules, "go.md"), []byte("---\npaths: \"**/*.go\"\n---\nWrap errors with %w.\n"), 0o644))
	f.login(t)
	code, body := f.get(t, "/context")
	if code != 200 {
		t.Fatalf("context page: %d\n%s", code, body)
	}
	for _, want := range []string{"<td>1</td><td>project</td>", filepath.Join(f.ws.Root(), "CLAUDE.md"), "make test", "<td>2</td><td>automem</td>"} {
		if !strings.Contains(body, want) {
			t.Errorf("context page lacks %q", want)
		}
	}
	if strings.Contains(body, "Wrap errors") {
		t.Error("a rule for Go files is loaded before any Go file is touched")
	}
	_, body = f.get(t, "/context?touch=src/a.go")
	if !strings.Contains(body, "Wrap errors with %w.") || !strings.Contains(body, "added by touching "+filepath.Join(f.ws.Root(), "src", "a.go")) {
		t.Errorf("touching src/a.go does not add the Go rule, marked:\n%s", body)
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{30 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago", 72 * time.Hour: "3d ago"} {
		if got := age(now, now.Add(-d)); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:0": true, "localhost:80": true, "[::1]:9": true, "127.1.2.3:5": true,
		"0.0.0.0:0": false, ":80": false, "[::]:80": false, "10.0.0.1:80": false, "example.com:80": false, "127.0.0.1": false} {
		if got := Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestInbox(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	inbox := filepath.Join(f.store.Dir(), memdir.InboxDir)
	must(t, os.MkdirAll(inbox, 0o700))
	proposed := "---\nname: tabs\ndescription: indent Go with tabs, width 8\ntype: feedback\n---\n\ngofmt decides; tabs are 8 wide in review.\n\n**Why:** review noise.\n**How to apply:** run gofmt.\n"
	must(t, os.WriteFile(filepath.Join(inbox, "tabs.md"), []byte(proposed), 0o600))
	must(t, os.WriteFile(filepath.Join(inbox, "ci-cache.md"), []byte("---\nname: ci-cache\ndescription: the CI cache key <b>includes</b> go.sum\ntype: project\n---\n\nKey on go.sum.\n"), 0o600))

	_, body := f.get(t, "/")
	for _, want := range []string{"Inbox: 2 proposed", "replaces the live file", "&#43;gofmt decides; tabs are 8 wide in review.", "-gofmt decides.", "&lt;b&gt;includes&lt;/b&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("memory page lacks %q", want)
		}
	}
	if code, body := f.post(t, "/memory/inbox", url.Values{"store": {"project"}, "file": {"tabs.md"}, "action": {"accept"}}); code != 200 {
		t.Fatalf("accept: %d\n%s", code, body)
	}
	if data, _ := os.ReadFile(filepath.Join(f.store.Dir(), "tabs.md")); string(data) != proposed {
		t.Fatalf("after accept, tabs.md:\n%s", data)
	}
	if code, body := f.post(t, "/memory/inbox", url.Values{"store": {"project"}, "file": {"ci-cache.md"}, "action": {"reject"}}); code != 200 {
		t.Fatalf("reject: %d\n%s", code, body)
	}
	if _, err := os.Stat(filepath.Join(f.store.Dir(), "ci-cache.md")); !os.IsNotExist(err) {
		t.Fatalf("a rejected proposal went live: %v", err)
	}
	_, body = f.get(t, "/")
	if strings.Contains(body, "Inbox:") {
		t.Error("the inbox still lists proposals after both were decided")
	}
	// The replaced version is in the archive, restorable.
	if !strings.Contains(body, ">replace<") {
		t.Error("the archive does not offer the version the accepted proposal replaced")
	}
	lintClean(t, f.store)
}

// A live file that is a symlink out of the store is not read into the proposal's diff.
func TestInboxDiffDoesNotFollowLinkOut(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	must(t, os.WriteFile(outside, []byte("outside-the-store-text\n"), 0o600))
	if err := os.Symlink(outside, filepath.Join(f.store.Dir(), "leak.md")); err != nil {
		t.Skip(err)
	}
	inbox := filepath.Join(f.store.Dir(), memdir.InboxDir)
	must(t, os.MkdirAll(inbox, 0o700))
	must(t, os.WriteFile(filepath.Join(inbox, "leak.md"), []byte("---\nname: leak\ndescription: d\ntype: project\n---\n\nx\n"), 0o600))
	if _, body := f.get(t, "/"); strings.Contains(body, "outside-the-store-text") {
		t.Error("the memory page shows a file outside the store")
	}
}

func TestRecallStats(t *testing.T) {
	f := newFixture(t, 0)
	st, err := f.ws.Stats()
	must(t, err)
	ctx := context.Background()
	for range 3 {
		must(t, st.Record(ctx, []string{"deploy-steps.md"}, time.Now().Add(-2*time.Hour)))
	}
	f.login(t)
	_, body := f.get(t, "/")
	row := func(name string) string {
		i := strings.Index(body, ">"+name+"</a>")
		if i < 0 {
			t.Fatalf("no row for %s", name)
		}
		end := strings.Index(body[i:], "</tr>")
		return body[i : i+end]
	}
	if r := row("deploy-steps"); !strings.Contains(r, "3× · 2h ago") {
		t.Errorf("deploy-steps row does not say it was recalled 3 times 2h ago:\n%s", r)
	}
	if r := row("tabs"); !strings.Contains(r, "never") {
		t.Errorf("tabs row does not say it was never recalled:\n%s", r)
	}
}

func TestEvents(t *testing.T) {
	f := newFixture(t, 0)
	f.srv.poll = 20 * time.Millisecond
	f.login(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", f.base+"/events", nil)
	must(t, err)
	resp, err := f.client.Do(req)
	must(t, err)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
		t.Fatalf("events: %s, %s", resp.Status, ct)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			for _, l := range strings.Split(string(buf[:n]), "\n") {
				if strings.HasPrefix(l, "event: ") {
					lines <- strings.TrimPrefix(l, "event: ")
				}
			}
			if err != nil {
				return
			}
		}
	}()
	expect := func(want string) {
		t.Helper()
		select {
		case got, ok := <-lines:
			if !ok || got != want {
				t.Fatalf("event = %q (open %v), want %q", got, ok, want)
			}
		case <-ctx.Done():
			t.Fatalf("no %q event", want)
		}
	}
	inbox := filepath.Join(f.store.Dir(), memdir.InboxDir)
	must(t, os.MkdirAll(inbox, 0o700))
	must(t, os.WriteFile(filepath.Join(inbox, "new.md"), []byte("---\nname: new\ndescription: d\ntype: project\n---\n\nx\n"), 0o600))
	expect("memory")
	must(t, os.WriteFile(filepath.Join(f.ws.TranscriptDir(), "other.jsonl"), []byte("{}\n"), 0o600))
	expect("sessions")
	cancel()
	for range lines {
	}
}

// TestServeEndsEventStreams: stopping the server ends the open event streams instead of
// waiting for them.
func TestServeEndsEventStreams(t *testing.T) {
	f := newFixture(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	srv, err := New(Options{Workspace: f.ws, Addr: ln.Addr().String()})
	must(t, err)
	ctx, stop := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	resp, err := c.Get(srv.URL())
	must(t, err)
	resp.Body.Close()
	resp, err = c.Get("http://" + ln.Addr().String() + "/events")
	must(t, err)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("events: %s", resp.Status)
	}
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(4 * time.Second):
		t.Fatal("Serve still waits for the event stream 4 s after the stop")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Serve took %v to stop", d)
	}
}

// due makes the recall index older than refreshEvery, so that the next request starts a scan.
func (s *Server) due() {
	s.mu.Lock()
	s.fresh = time.Now().Add(-refreshEvery)
	s.mu.Unlock()
}

// TestBackgroundRescan: a request when a scan is due answers from the last scan and starts
// one in the background; a later request sees what it found.
func TestBackgroundRescan(t *testing.T) {
	f := newFixture(t, 0)
	f.login(t)
	if _, body := f.get(t, "/"); !strings.Contains(body, "2 memories, newest first") {
		t.Fatalf("first page:\n%s", body)
	}
	f.add(t, memdir.Input{Name: "written-elsewhere", Description: "a memory another process wrote", Type: memdir.TypeUser, Body: "Prefers short answers."})
	f.srv.due()
	if _, body := f.get(t, "/"); !strings.Contains(body, "2 memories, newest first") {
		t.Fatalf("the request that starts the scan waited for it:\n%s", body)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, body := f.get(t, "/")
		if strings.Contains(body, "3 memories, newest first") && strings.Contains(body, "written-elsewhere") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the background scan never showed the new memory:\n%s", body)
		}
	}
}
