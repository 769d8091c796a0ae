package mcpserver

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	aliceToken = "alice-token-0123456789"
	bobToken   = "bob-token-0123456789ab"
)

func sha(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }

// teamServer is the team server of storesFixture over HTTP: alice may read the project's
// memory and write the team's; bob may only read the org's.
func teamServer(t *testing.T) (f *fixture, url string) {
	t.Helper()
	f = storesFixture(t)
	tokens := f.write(t, "tokens.json", `[
  {"user": "Alice", "email": "alice@example.com", "token_sha256": "`+sha(aliceToken)+`", "stores": {"project": "r", "team": "rw"}},
  {"user": "鲍勃", "token_sha256": "`+sha(bobToken)+`", "stores": {"org": "r"}}
]`)
	tk, warnings, err := LoadTokens(tokens)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("LoadTokens: %v %q", err, warnings)
	}
	s := f.server(t, nil)
	if w := s.CheckGrants(tk); len(w) != 0 {
		t.Errorf("CheckGrants: %q", w)
	}
	ts := httptest.NewServer(s.Handler(HTTPOptions{Tokens: tk}))
	t.Cleanup(ts.Close)
	return f, ts.URL + Endpoint
}

func teamClient(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "team-test"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Two users on the team server: each sees only what their token grants (tools, stores,
// memories, resources), a store not granted is "not found" like one that does not exist, a
// read-only grant cannot write, and writes are attributed to their user.
func TestTeamServerTwoUsers(t *testing.T) {
	f, url := teamServer(t)
	alice, bob := teamClient(t, url, aliceToken), teamClient(t, url, bobToken)

	// Alice writes to the team store; the file records her as its author.
	var saved SaveOutput
	mustCall(t, alice, "memory_save", map[string]any{"store": "team", "name": "release train", "type": "project", "description": "The team's weekly release train", "body": "Weekly."}, &saved)
	data, err := os.ReadFile(filepath.Join(f.dir, "team", "release-train.md"))
	if err != nil || !strings.Contains(string(data), "\nauthor: Alice <alice@example.com>\n") {
		t.Errorf("team file (%v):\n%s", err, data)
	}
	// Her project grant is read-only: the default store refuses, nothing is written.
	if msg := call(t, alice, "memory_save", map[string]any{"name": "x", "type": "user", "description": "x", "body": "x"}, nil); !strings.Contains(msg, `the memory store "project" is read-only for you`) {
		t.Errorf("alice's project write: %q", msg)
	}
	// Bob may read org only: his writes are refused, the team store does not exist for him.
	if msg := call(t, bob, "memory_save", map[string]any{"store": "org", "name": "x", "type": "user", "description": "x", "body": "x"}, nil); !strings.Contains(msg, `the memory store "org" is mounted read-only`) {
		t.Errorf("bob's org write: %q", msg)
	}
	for _, store := range []string{"team", "nope"} {
		msg := call(t, bob, "memory_save", map[string]any{"store": store, "name": "x", "type": "user", "description": "x", "body": "x"}, nil)
		if want := `no memory store "` + store + `" (your stores: org)`; !strings.Contains(msg, want) {
			t.Errorf("bob's write to %s: %q, want %q", store, msg, want)
		}
	}
	if msg := call(t, bob, "memory_save", map[string]any{"name": "x", "type": "user", "description": "x", "body": "x"}, nil); !strings.Contains(msg, "name a store") || strings.Contains(msg, "team") {
		t.Errorf("bob's default write: %q", msg)
	}
	if msg := call(t, bob, "memory_forget", map[string]any{"store": "team", "name": "release train"}, nil); !strings.Contains(msg, `no memory store "team"`) {
		t.Errorf("bob's forget in team: %q", msg)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "team", "release-train.md")); err != nil {
		t.Errorf("bob changed the team store: %v", err)
	}
	for _, p := range []string{"x.md"} {
		for _, d := range []string{"org", "team"} {
			if _, err := os.Stat(filepath.Join(f.dir, d, p)); err == nil {
				t.Errorf("a refused write left %s/%s", d, p)
			}
		}
	}

	// What each one lists and finds. A binary file in the org's store is a diagnostic, named
	// inside its store: no path of the server's reaches a team user.
	f.write(t, "org/scan.md", "\x00\x01binary")
	diagnosed := 0
	stores := func(cs *mcp.ClientSession) []string {
		var l ListOutput
		mustCall(t, cs, "memory_list", map[string]any{}, &l)
		if l.Dir != "" {
			t.Errorf("a team user is told the server's directory %s", l.Dir)
		}
		for _, d := range l.Diagnostics {
			if strings.Contains(d.Path, f.dir) || d.Path != "org:scan.md" {
				t.Errorf("a team user is told the diagnostic's path %q, want org:scan.md", d.Path)
			}
			diagnosed++
		}
		var out []string
		for _, m := range l.Memories {
			out = append(out, m.Store+":"+m.Name)
		}
		for _, s := range l.Stores {
			out = append(out, "store "+s.Name+map[bool]string{true: " rw", false: " r"}[s.Writable])
		}
		return out
	}
	if diff := cmp.Diff([]string{"team:release train", "store project r", "store team rw"}, stores(alice)); diff != "" {
		t.Errorf("alice lists (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"org:holidays", "store org r"}, stores(bob)); diff != "" {
		t.Errorf("bob lists (-want +got):\n%s", diff)
	}
	if diagnosed != 1 {
		t.Errorf("%d diagnostics listed, want 1 (the binary file, to bob only)", diagnosed)
	}
	var found SearchOutput
	mustCall(t, bob, "memory_search", map[string]any{"query": "release train weekly freeze"}, &found)
	for _, h := range found.Results {
		if h.Memory.Store != "org" {
			t.Errorf("bob found %+v", h.Memory)
		}
	}
	// Bob reaches one store, not the project: the answer names the place it looked.
	if msg := call(t, bob, "memory_get", map[string]any{"name": "release train"}, nil); !strings.Contains(msg, "no memory called") || strings.Contains(msg, "this project") {
		t.Errorf("bob got the team's memory: %q", msg)
	}
	var got GetOutput
	mustCall(t, alice, "memory_get", map[string]any{"name": "release train"}, &got)
	if got.Memory.Author != "Alice <alice@example.com>" || got.Memory.Store != "team" {
		t.Errorf("alice's get: %+v", got.Memory)
	}

	// The project's tools and resources: alice (granted the project) has them, bob does not.
	tools := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tl := range res.Tools {
			out = append(out, tl.Name)
		}
		return out
	}
	if at, bt := tools(alice), tools(bob); !slices.Contains(at, "instructions") || slices.Contains(bt, "instructions") || slices.Contains(bt, "session_search") || !slices.Contains(bt, "memory_search") {
		t.Errorf("tools: alice %v, bob %v", at, bt)
	}
	if msg := call(t, bob, "session_search", map[string]any{"query": "x"}, nil); !strings.Contains(msg, "unknown tool") {
		t.Errorf("bob's session_search: %q", msg)
	}
	rl, err := bob.ListResources(t.Context(), nil)
	if err != nil || len(rl.Resources) != 0 {
		t.Errorf("bob's resources: %v %v", rl, err)
	}
	if rl, err := alice.ListResources(t.Context(), nil); err != nil || len(rl.Resources) == 0 || rl.Resources[0].URI != IndexURI {
		t.Errorf("alice's resources: %v %v", rl, err)
	}
	if _, err := bob.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: IndexURI}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("bob read the project's index: %v", err)
	}
	if _, err := alice.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: IndexURI}); err != nil && !strings.Contains(err.Error(), "not found") {
		t.Errorf("alice's read: %v", err)
	}
}

// A request without a token, or with one the file does not hold, is answered 401 (and no
// client connects); a plain-text token file others may read is refused.
func TestTeamServerRefusesBadTokens(t *testing.T) {
	_, url := teamServer(t)
	for name, h := range map[string]map[string]string{
		"none":  {},
		"wrong": {"Authorization": "Bearer not-a-token-of-the-file"},
		"basic": {"Authorization": "Basic " + aliceToken},
	} {
		if code := post(t, url, h); code != http.StatusUnauthorized {
			t.Errorf("%s: status %d, want 401", name, code)
		}
	}
	if code := post(t, url, map[string]string{"Authorization": "Bearer " + aliceToken}); code != http.StatusOK {
		t.Errorf("alice: status %d", code)
	}
	if cs, err := mcp.NewClient(&mcp.Implementation{Name: "x"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, nil); err == nil {
		cs.Close()
		t.Error("a client without a token connected")
	}
}

func TestLoadTokens(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.json", `[
  {"user": "a", "token_sha256": "`+sha("a")+`", "stores": {"team": "rw"}},
  {"user": "b", "token_sha256": "nothex", "stores": {}},
  {"user": "c", "token_sha256": "`+sha("c")+`", "stores": {"team": "write"}},
  {"token_sha256": "`+sha("d")+`"},
  {"user": "A", "token_sha256": "`+sha("e")+`"},
  {"user": "f", "token_sha256": "`+sha("a")+`"},
  {"user": "g", "token": "short"},
  {"user": "h", "token_sha256": "`+sha("h")+`", "stores": {"bad name": "r"}},
  {"user": "i", "token_sha256": "`+sha("i")+`", "extra": 1}
]`, 0o600)
	_, _, err := LoadTokens(bad)
	if err == nil {
		t.Fatal("a bad tokens file was loaded")
	}
	for _, want := range []string{
		bad + `:3: entry 2: user "b": token_sha256 is not 64 hex digits`,
		bad + `:4: entry 3: user "c": store "team": want "r" or "rw", got "write"`,
		bad + `:5: entry 4: no user`,
		bad + `:6: entry 5: user "A" is given twice`,
		bad + `:7: entry 6: user "f" has the same token as "a"`,
		bad + `:8: entry 7: user "g": the token is shorter than 16 characters`,
		bad + `:9: entry 8: user "h": the store name "bad name"`,
		bad + `:10: entry 9: want {`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
	plain := `[{"user": "a", "token": "` + aliceToken + `", "stores": {"team": "r"}}]`
	if _, _, err := LoadTokens(write("open.json", plain, 0o644)); err == nil || !strings.Contains(err.Error(), "others may read it") {
		t.Errorf("a readable plain-text file: %v", err)
	}
	tk, warnings, err := LoadTokens(write("own.json", plain, 0o600))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "plain text") || tk.verify(aliceToken) == nil || tk.verify(bobToken) != nil {
		t.Errorf("a private plain-text file: %v %q", err, warnings)
	}
	hashed := `[{"user": "a", "token_sha256": "` + sha(aliceToken) + `", "stores": {"team": "r"}}]`
	if _, warnings, err := LoadTokens(write("hashed.json", hashed, 0o644)); err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "chmod 600") {
		t.Errorf("a readable hashed file: %v %q", err, warnings)
	}
}

// TestParseTokensSyntax: a tokens file that is not JSON is named with the line of the
// mistake; one an editor saved with a byte-order mark is read.
func TestParseTokensSyntax(t *testing.T) {
	comma := "[\n  {\"user\": \"a\", \"token_sha256\": \"" + sha("a") + "\", \"stores\": {\"team\": \"rw\"}},\n]\n"
	if _, _, err := ParseTokens("t.json", []byte(comma)); err == nil || !strings.Contains(err.Error(), "t.json:3: ") {
		t.Errorf("a trailing comma: %v; want the file and line 3", err)
	}
	bom := "\ufeff[{\"user\": \"a\", \"token_sha256\": \"" + sha("a") + "\", \"stores\": {\"team\": \"rw\"}}]"
	if tk, _, err := ParseTokens("t.json", []byte(bom)); err != nil || len(tk.grants) != 1 {
		t.Errorf("a file with a byte-order mark: %v", err)
	}
}

// TestParseTokensStoreTwice: a store granted twice in one entry, in any letter case, is a
// bad entry: which grant held would depend on the order a map is read in (or on JSON's last
// key winning), so a user could get write access sometimes.
func TestParseTokensStoreTwice(t *testing.T) {
	for _, stores := range []string{`{"team": "r", "Team": "rw"}`, `{"team": "r", "team": "rw"}`} {
		data := `[{"user": "a", "token_sha256": "` + sha("a") + `", "stores": ` + stores + `}]`
		if _, _, err := ParseTokens("t.json", []byte(data)); err == nil || !strings.Contains(err.Error(), `t.json:1: entry 1: user "a": the store "team" is given twice`) {
			t.Errorf("%s: %v", stores, err)
		}
	}
}

func FuzzParseTokens(f *testing.F) {
	f.Add([]byte(`[{"user": "a", "token_sha256": "` + sha("a") + `", "stores": {"team": "rw"}}]`))
	f.Add([]byte(`[{"user": "b", "token": "0123456789abcdef0", "stores": {"project": "r"}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tk, _, err := ParseTokens("f", data)
		if err != nil {
			return
		}
		for _, g := range tk.grants {
			if g.User == "" || len(g.Stores) > 0 && func() bool {
				for _, a := range g.Stores {
					if a != AccessRead && a != AccessWrite {
						return true
					}
				}
				return false
			}() {
				t.Fatalf("bad grant taken: %+v", g)
			}
		}
	})
}

// A session belongs to the user who opened it: its id with another user's token is refused.
func TestTeamSessionBoundToUser(t *testing.T) {
	_, url := teamServer(t)
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+aliceToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	for token, want := range map[string]int{bobToken: http.StatusForbidden, aliceToken: http.StatusOK} {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(list))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("token %s…: status %d, want %d", token[:5], resp.StatusCode, want)
		}
	}
}
