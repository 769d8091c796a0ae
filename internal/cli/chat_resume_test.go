package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/transcript"
)

func TestUniquePrefixes(t *testing.T) {
	ids := []string{
		"01a22b68-aaaa-7000-8000-000000000001",
		"01a22b68-aaab-7000-8000-000000000002",
		"01a22b69-0000-7000-8000-000000000003",
		"ffffffff-0000-7000-8000-000000000004",
	}
	got := UniquePrefixes(ids, 8)
	want := []string{"01a22b68-aaaa", "01a22b68-aaab", "01a22b69", "ffffffff"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := UniquePrefixes([]string{"abc"}, 8); got[0] != "abc" {
		t.Errorf("short id: %q", got)
	}
}

// writeSession writes a transcript of the user/assistant pairs given.
func writeSession(t *testing.T, env config.Env, cwd, id, title string, turns ...string) {
	t.Helper()
	path := transcript.SessionPath(env, cwd, id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	parent := "null"
	for i, text := range turns {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		uuid := fmt.Sprintf("%s-%d", id[:8], i)
		content := fmt.Sprintf("%q", text)
		if role == "assistant" {
			content = fmt.Sprintf(`[{"type":"text","text":%q}]`, text)
		}
		at := time.Date(2026, 1, 2, 3, 4, i, 0, time.UTC).Format(time.RFC3339)
		fmt.Fprintf(&b, `{"type":%q,"uuid":%q,"parentUuid":%s,"sessionId":%q,"timestamp":%q,"cwd":%q,"message":{"role":%q,"content":%s}}`+"\n",
			role, uuid, parent, id, at, cwd, role, content)
		parent = fmt.Sprintf("%q", uuid)
	}
	if title != "" {
		fmt.Fprintf(&b, `{"type":"custom-title","customTitle":%q,"sessionId":%q}`+"\n", title, id)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestResumeChoices: sessions whose ids share their first 12 characters get prefixes that are
// unique and resolve (transcript.Find) to their own session; titles in Chinese and Korean and
// message counts come with them.
func TestResumeChoices(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // where the sessions list index is kept
	root := t.TempDir()
	env := config.Env{Home: filepath.Join(root, "home"), UserHome: root, Getenv: func(string) string { return "" }}
	cwd := filepath.Join(root, "proj")
	os.MkdirAll(cwd, 0o700)
	writeSession(t, env, cwd, "01a22b68-1111-7000-8000-000000000001", "数据库迁移", "hello", "hi", "more", "ok")
	writeSession(t, env, cwd, "01a22b68-1112-7000-8000-000000000002", "배포 규칙", "안녕", "네")
	choices, err := ResumeChoices(t.Context(), env, cwd, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(choices) != 2 {
		t.Fatalf("%d choices", len(choices))
	}
	byTitle := map[string]ResumeChoice{}
	for _, c := range choices {
		byTitle[c.Title] = c
		if len(c.Prefix) < MinIDPrefix || !strings.HasPrefix(c.ID, c.Prefix) {
			t.Errorf("prefix %q of %s", c.Prefix, c.ID)
		}
		p, err := transcript.Find(env.ProjectsDir(), transcript.ProjectDir(env, cwd), c.Prefix)
		if err != nil || transcript.SessionIDOf(p) != c.ID {
			t.Errorf("Find(%q) = %s, %v; want %s", c.Prefix, p, err, c.ID)
		}
	}
	if c := byTitle["数据库迁移"]; c.Messages != 4 || c.Prefix != "01a22b68-1111" {
		t.Errorf("chinese-titled session: %+v", c)
	}
	if c := byTitle["배포 규칙"]; c.Messages != 2 || c.Prefix != "01a22b68-1112" {
		t.Errorf("korean-titled session: %+v", c)
	}
	// The picker keeps the index `sessions list` keeps, and lists the same from it.
	if _, err := os.Stat(listIndexPath(transcript.ProjectDir(env, cwd))); err != nil {
		t.Errorf("no list index kept: %v", err)
	}
	again, err := ResumeChoices(t.Context(), env, cwd, 10)
	if err != nil || !slices.Equal(again, choices) {
		t.Errorf("listed from the index: %v\n%+v\nwant\n%+v", err, again, choices)
	}
	// The list lines keep the time column aligned.
	lines := ResumeLines(choices)
	if i0, i1 := strings.Index(lines[0], "2026"), strings.Index(lines[1], "2026"); i0 != i1 || i0 < 0 {
		t.Errorf("time columns differ:\n%s", strings.Join(lines, "\n"))
	}
}

func TestRecentTurns(t *testing.T) {
	var entries []conversation.Entry
	add := func(m conversation.Message, meta bool) {
		entries = append(entries, conversation.Entry{UUID: fmt.Sprint(len(entries)), Message: m, IsMeta: meta})
	}
	add(conversation.NewText(conversation.User, "first"), false)
	add(conversation.NewText(conversation.Assistant, "one"), false)
	add(conversation.NewText(conversation.User, "second \x1b[31mred"), false)
	add(conversation.NewText(conversation.User, "<system-reminder>injected</system-reminder>"), true)
	add(conversation.Message{Role: conversation.Assistant, Content: []conversation.Block{{Type: conversation.ToolUse, ID: "t1", Name: "Bash", Input: []byte(`{"command":"ls"}`)}}}, false)
	add(conversation.Message{Role: conversation.User, Content: []conversation.Block{{Type: conversation.ToolResult, ToolUseID: "t1", Content: []conversation.Block{{Type: conversation.Text, Text: "a.go"}}}}}, false)
	add(conversation.NewText(conversation.Assistant, "two"), false)
	got := RecentTurns(entries, 1)
	want := "› second red\n· Bash {\"command\":\"ls\"}\ntwo\n"
	if got != want {
		t.Errorf("RecentTurns(1) = %q, want %q", got, want)
	}
	if got := RecentTurns(entries, 5); !strings.HasPrefix(got, "› first\none\n› second") {
		t.Errorf("RecentTurns(5) = %q", got)
	}
}
