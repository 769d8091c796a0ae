package mcpserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var uris []string
	for r, err := range cs.Resources(t.Context(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	return uris
}

func readText(cs *mcp.ClientSession, ctx context.Context, uri string) (string, error) {
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	cs := connect(t, s, nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "prefer tabs", Type: "feedback", Description: "tabs in Go", Body: "Use tabs.\n"}, nil)
	mustCall(t, cs, "memory_save", SaveInput{Name: "部署", Type: "project", Description: "部署流程", Body: "先预发布。\n"}, nil)

	uris := resourceURIs(t, cs)
	for _, want := range []string{IndexURI, MemoryURI("prefer-tabs.md"), MemoryURI("部署.md")} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources %v lack %s", uris, want)
		}
	}
	ix, err := readText(cs, t.Context(), IndexURI)
	if err != nil || !strings.Contains(ix, "[prefer tabs](prefer-tabs.md)") || !strings.Contains(ix, "部署") {
		t.Errorf("read %s = %q, %v", IndexURI, ix, err)
	}
	body, err := readText(cs, t.Context(), MemoryURI("部署.md"))
	if err != nil || !strings.Contains(body, "先预发布") || !strings.Contains(body, "name: 部署") {
		t.Errorf("read 部署.md = %q, %v", body, err)
	}

	// Paths that lead out of the memory dir, hidden files and non-markdown files are refused.
	mem := s.MemoryDir()
	f.write(t, "secret.md", "outside the memory dir\n")
	if err := os.Symlink(filepath.Join(f.dir, "secret.md"), filepath.Join(mem, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, uri := range []string{
		URIPrefix + "../secret.md",
		URIPrefix + "%2e%2e/secret.md",
		URIPrefix + "%2e%2e%2fsecret.md",
		URIPrefix + "link.md",
		URIPrefix + ".archive/x.md",
		URIPrefix + ".strata.lock",
		URIPrefix + "nope.md",
		"file:///etc/passwd",
	} {
		if text, err := readText(cs, t.Context(), uri); err == nil {
			t.Errorf("read %s succeeded: %q", uri, text)
		}
	}
	// A refused URI is the client's mistake, answered with a JSON-RPC code it can act on
	// (it was 0, which JSON-RPC does not define); a missing memory is "resource not found".
	for uri, want := range map[string]int64{
		URIPrefix + "%2e%2e%2fsecret.md": jsonrpc.CodeInvalidParams,
		URIPrefix + ".archive/x.md":      jsonrpc.CodeInvalidParams,
		"file:///etc/passwd":             jsonrpc.CodeInvalidParams,
		URIPrefix + "缺失.md":              mcp.CodeResourceNotFound,
	} {
		_, err := readText(cs, t.Context(), uri)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != want {
			t.Errorf("read %s: %v (%T), want JSON-RPC code %d", uri, err, err, want)
		}
	}
}

func TestResourceNotifications(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, func(o *Options) { o.PollInterval = 20 * time.Millisecond })
	updated := make(chan string, 16)
	listChanged := make(chan struct{}, 16)
	cs := connect(t, s, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			updated <- r.Params.URI
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			listChanged <- struct{}{}
		},
	})
	mustCall(t, cs, "memory_save", SaveInput{Name: "a", Type: "user", Description: "first", Body: "one\n"}, nil)
	uri := MemoryURI("a.md")
	for _, u := range []string{uri, IndexURI} {
		if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: u}); err != nil {
			t.Fatal(err)
		}
	}
	drain(listChanged)
	drain(updated)

	// Someone else edits the file: subscribers hear of it.
	path := filepath.Join(s.MemoryDir(), "a.md")
	if err := os.WriteFile(path, []byte("---\nname: a\ndescription: first\ntype: user\n---\none, edited from outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, updated, uri)

	// A new file appears: the list changes and the new resource is listed.
	f.write(t, strings.TrimPrefix(filepath.Join(s.MemoryDir(), "b.md"), f.dir+string(filepath.Separator)), "---\nname: b\ndescription: second\ntype: user\n---\ntwo\n")
	waitListed(t, cs, listChanged, MemoryURI("b.md"), true)

	// memory_forget changes the index; subscribers of MEMORY.md hear of it.
	drain(updated)
	mustCall(t, cs, "memory_forget", ForgetInput{Name: "a"}, nil)
	waitFor(t, updated, IndexURI)
	waitListed(t, cs, listChanged, uri, false)
}

func drain[T any](c chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

func waitFor(t *testing.T, c chan string, want string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-c:
			if got == want {
				return
			}
		case <-timeout:
			t.Fatalf("no notification for %s", want)
		}
	}
}

// waitListed waits for list_changed notifications until uri is listed (or not, per want).
func waitListed(t *testing.T, cs *mcp.ClientSession, c chan struct{}, uri string, want bool) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case <-c:
			if slices.Contains(resourceURIs(t, cs), uri) == want {
				return
			}
		case <-timeout:
			t.Fatalf("no resources/list_changed after which %s is listed=%v", uri, want)
		}
	}
}

func TestWatcherStopsOnClose(t *testing.T) {
	f := newFixture(t)
	s, err := New(t.Context(), Options{Env: f.env, Project: f.project, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return: the watcher did not stop")
	}
}

func TestFileOfURI(t *testing.T) {
	tests := []struct {
		uri, want string
		ok        bool
	}{
		{MemoryURI("a.md"), "a.md", true},
		{MemoryURI("部署 流程.md"), "部署 流程.md", true},
		{MemoryURI("logs/2026/01/2026-01-02.md"), "logs/2026/01/2026-01-02.md", true},
		{URIPrefix + "../a.md", "", false},
		{URIPrefix + "a/../../b.md", "", false},
		{URIPrefix + "/etc/x.md", "", false},
		{URIPrefix + "a.txt", "", false},
		{URIPrefix + ".hidden.md", "", false},
		{URIPrefix + "a%00.md", "", false},
		{URIPrefix + "a\\..\\b.md", "", false},
		{URIPrefix + "%zz.md", "", false},
		{"other://memory/a.md", "", false},
	}
	for _, tt := range tests {
		got, err := fileOfURI(tt.uri)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("fileOfURI(%q) = %q, %v; want %q, ok=%v", tt.uri, got, err, tt.want, tt.ok)
		}
	}
}

func FuzzFileOfURI(f *testing.F) {
	for _, s := range []string{"a.md", "../x.md", "%2e%2e/x.md", "a/b.md", "部署.md", ".x.md"} {
		f.Add(URIPrefix + s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		file, err := fileOfURI(uri)
		if err != nil {
			return
		}
		if filepath.IsAbs(file) || strings.HasPrefix(file, "..") || strings.Contains(file, "/../") || strings.HasPrefix(file, ".") {
			t.Fatalf("fileOfURI(%q) = %q: escapes or hidden", uri, file)
		}
		back, err := fileOfURI(MemoryURI(file))
		if err != nil || back != file {
			t.Fatalf("round trip of %q: %q, %v", file, back, err)
		}
	})
}
