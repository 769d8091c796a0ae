package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

// claudeView is what Claude Code shows for a transcript, computed its way: the resume list's
// fields as readLiteMetadata takes them from the first and last 64 KB (the last customTitle,
// else aiTitle, of the tail then the head; the last summary and tag of the tail; the last
// lastPrompt of the tail, else the head's first prompt), and the full loader's maps (summary by
// leafUuid, custom title by session, the last line winning).
type claudeView struct {
	Title, Summary, Prompt, Tag string
	Summaries, CustomTitles     map[string]string
}

const liteWindow = 64 << 10

func viewOf(t *testing.T, path string) claudeView {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head, tail := data[:min(len(data), liteWindow)], data[max(0, len(data)-liteWindow):]
	v := claudeView{Summaries: map[string]string{}, CustomTitles: map[string]string{}}
	v.Title = firstOf(lastField(tail, "customTitle"), lastField(head, "customTitle"), lastField(tail, "aiTitle"), lastField(head, "aiTitle"))
	v.Summary = lastField(tail, "summary")
	var tagLine []byte
	for _, l := range bytes.Split(tail, []byte{'\n'}) {
		if bytes.HasPrefix(l, []byte(`{"type":"tag"`)) {
			tagLine = l
		}
	}
	v.Tag = lastField(tagLine, "tag")
	var p promptScan
	for _, l := range bytes.Split(head, []byte{'\n'}) {
		if e, _ := ParseEntry(l); e != nil && p.entry(e) {
			break
		}
	}
	v.Prompt = firstOf(lastField(tail, "lastPrompt"), p.result())
	for _, l := range bytes.Split(data, []byte{'\n'}) {
		var e struct {
			Type, Summary, LeafUUID, SessionID, CustomTitle string
		}
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		switch e.Type {
		case TypeSummary:
			v.Summaries[e.LeafUUID] = e.Summary
		case TypeCustomTitle:
			v.CustomTitles[e.SessionID] = e.CustomTitle
		}
	}
	return v
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

// lastField is Claude Code's extractLastJsonStringField: the value of the last "key":"…" (or
// "key": "…") in text.
func lastField(text []byte, key string) string {
	best := -1
	var val []byte
	for _, pat := range []string{`"` + key + `":"`, `"` + key + `": "`} {
		if i := bytes.LastIndex(text, []byte(pat)); i > best {
			best, val = i, text[i+len(pat):]
		}
	}
	if best < 0 {
		return ""
	}
	for i := 0; i < len(val); i++ {
		switch val[i] {
		case '\\':
			i++
		case '"':
			var s string
			if json.Unmarshal(append(append([]byte{'"'}, val[:i]...), '"'), &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}

// resumeAndAppend does what `strata run --resume` does to a transcript: load it, open a journal
// seeded with its metadata at its leaf, append a turn (large enough to push everything that was
// in the tail window out of it) and close.
func resumeAndAppend(t *testing.T, path string) {
	t.Helper()
	s, err := Load(t.Context(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := Open(t.Context(), path, Options{SessionID: s.ID, CWD: t.TempDir(), Metadata: s.Meta.List(), FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Leaf(); l != nil {
		j.SetLeaf(l.UUID)
	}
	if _, err := j.AppendMessage(conversation.NewText(conversation.User, "continue: "+strings.Repeat("more words ", 4000)), false); err != nil {
		t.Fatal(err)
	}
	if _, err := j.AppendMessage(conversation.NewText(conversation.Assistant, strings.Repeat("done. ", 8000)), false); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// synthetic21 writes a Claude Code 2.1-style session: four summaries of the previous session at
// the top (their leaves are not in this file), 3-way and 5-way parallel tool calls (one
// assistant line per call sharing message.id, each result under its own call), progress lines,
// a compact boundary in the middle, last-prompt lines, and tailMeta lines at the end.
func synthetic21(t *testing.T, path string, tailMeta ...string) {
	t.Helper()
	var lines []string
	for i := range 4 {
		lines = append(lines, fmt.Sprintf(`{"type":"summary","summary":"Previous session %d","leafUuid":"prev-%d"}`, i, i))
	}
	base := `"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s21","version":"2.1.39","gitBranch":"main"`
	parent := "null"
	add := func(uuid, body string) {
		lines = append(lines, fmt.Sprintf(`{"parentUuid":%s,%s,%s,"uuid":"%s","timestamp":"2026-03-01T10:00:00.000Z"}`, parent, base, body, uuid))
		parent = `"` + uuid + `"`
	}
	pad := strings.Repeat("x", 3000)
	parallel := func(turn string, n int) {
		add(turn+"-u", `"type":"user","message":{"role":"user","content":"run `+turn+` `+pad+`"}`)
		calls := parent
		for k := range n {
			parent = calls
			if k > 0 {
				parent = fmt.Sprintf(`"%s-c%d"`, turn, k-1)
			}
			add(fmt.Sprintf("%s-c%d", turn, k), fmt.Sprintf(`"type":"assistant","message":{"id":"msg_%s","role":"assistant","content":[{"type":"tool_use","id":"t_%s_%d","name":"Read","input":{"file_path":"/w/f%d"}}]}`, turn, turn, k, k))
		}
		for k := range n {
			parent = fmt.Sprintf(`"%s-c%d"`, turn, k)
			add(fmt.Sprintf("%s-p%d", turn, k), `"type":"progress","data":{"type":"hook_progress"}`)
			add(fmt.Sprintf("%s-r%d", turn, k), fmt.Sprintf(`"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t_%s_%d","content":"%s"}]}`, turn, k, pad))
		}
		add(turn+"-a", `"type":"assistant","message":{"id":"msg_`+turn+`_end","role":"assistant","content":[{"type":"text","text":"read them"}]}`)
		lines = append(lines, `{"type":"last-prompt","lastPrompt":"run `+turn+`","sessionId":"s21"}`)
	}
	for i := range 6 {
		parallel(fmt.Sprintf("t%d", i), 3+2*(i%2))
	}
	before := strings.Trim(parent, `"`)
	parent = "null"
	add("cb", `"type":"system","subtype":"compact_boundary","content":"Conversation compacted","logicalParentUuid":"`+before+`"`)
	add("cs", `"type":"user","isCompactSummary":true,"message":{"role":"user","content":"Summary of what came before"}`)
	for i := 6; i < 12; i++ {
		parallel(fmt.Sprintf("t%d", i), 3+2*(i%2))
	}
	lines = append(lines, tailMeta...)
	writeLines(t, path, lines...)
}

// TestAppendKeepsClaudeCodeView: a strata turn appended to a Claude Code transcript changes
// nothing Claude Code shows for it: not the title, summary, prompt or tag of its resume list,
// not the summaries and custom titles its loader reads.
func TestAppendKeepsClaudeCodeView(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, c := range []struct {
		name string
		meta []string
	}{
		{"plain", nil},
		{"summary and AI title in the tail", []string{`{"type":"summary","summary":"This session","leafUuid":"t11-a"}`, `{"type":"ai-title","aiTitle":"Parallel reads","sessionId":"s21"}`}},
		{"custom title and tag", []string{`{"type":"custom-title","customTitle":"我的会话","sessionId":"s21"}`, `{"type":"tag","tag":"wip","sessionId":"s21"}`}},
	} {
		p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".jsonl")
		synthetic21(t, p, c.meta...)
		paths = append(paths, p)
	}
	if corpus, ok := corpusDirOK(t); ok {
		files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
		for _, f := range files {
			// Only sessions a user would resume: a main conversation with a prompt (not a
			// subagent's file, not an empty file, not the debug log named .jsonl); a prompt
			// typed into one without any becomes its first prompt, as in Claude Code.
			s, err := Load(t.Context(), f, ReadOptions{})
			if err != nil || s.IsSubagent() || s.FirstPrompt() == "" {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "corpus-"+filepath.Base(f))
			os.WriteFile(p, data, 0o600)
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			before := viewOf(t, p)
			title := statTitle(t, p)
			resumeAndAppend(t, p)
			after := viewOf(t, p)
			if diff := cmp.Diff(before, after); diff != "" {
				t.Errorf("Claude Code's view changed (-before +after):\n%s", diff)
			}
			if got := statTitle(t, p); got != title {
				t.Errorf("strata's title changed: %q -> %q", title, got)
			}
			// And a second resume changes nothing either (the re-appended lines are stable).
			resumeAndAppend(t, p)
			if diff := cmp.Diff(before, viewOf(t, p)); diff != "" {
				t.Errorf("second resume changed Claude Code's view (-before +after):\n%s", diff)
			}
		})
	}
	// The plain synthetic session's summaries describe the previous session: neither strata nor
	// Claude Code's resume list takes its title from them.
	if v := viewOf(t, paths[0]); v.Summary != "" {
		t.Errorf("a foreign summary reached the tail: %q", v.Summary)
	}
}

func statTitle(t *testing.T, p string) string {
	t.Helper()
	i, err := Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return i.Title
}

// corpusDirOK returns the corpus directory when it is there (the test also runs without it).
func corpusDirOK(t *testing.T) (string, bool) {
	var dir string
	ok := t.Run("corpus", func(t *testing.T) { dir = corpusDir(t) })
	return dir, ok && dir != ""
}

// TestJournalSummaryLeaf: a summary strata writes names the entry it summarises, as Claude
// Code's do; one known only from a resumed session's history is never moved to the tail.
func TestJournalSummaryLeaf(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	j, err := Open(t.Context(), path, Options{SessionID: "s", FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	u, err := j.AppendMessage(conversation.NewText(conversation.User, "hello"), false)
	if err != nil {
		t.Fatal(err)
	}
	j.Append(&Entry{Type: TypeSummary, Summary: "Greeting"})
	j.Close(t.Context())
	f := checkFile(t, path)
	last := f.Entries[len(f.Entries)-1]
	if last.Type != TypeSummary || last.LeafUUID != u.UUID {
		t.Fatalf("summary line = %s, want leafUuid %s", last.Raw, u.UUID)
	}

	// Resume with a foreign summary in the metadata: it stays where it was.
	foreign := &Entry{Type: TypeSummary, Summary: "Other session", LeafUUID: "elsewhere"}
	title := &Entry{Type: TypeCustomTitle, CustomTitle: "kept", SessionID: "s"}
	j, err = Open(t.Context(), path, Options{SessionID: "s", FlushInterval: -1, Metadata: []*Entry{foreign, title}})
	if err != nil {
		t.Fatal(err)
	}
	j.SetLeaf(u.UUID)
	j.AppendMessage(conversation.NewText(conversation.User, strings.Repeat("long ", 20000)), false)
	j.Close(t.Context())
	data, _ := os.ReadFile(path)
	if bytes.Contains(data, []byte("Other session")) {
		t.Errorf("a summary from the resumed history was appended")
	}
	if !bytes.Contains(data[max(0, len(data)-liteWindow):], []byte(`"customTitle":"kept"`)) {
		t.Errorf("the custom title was not re-appended to the tail")
	}
	// The session's own summary was in the tail when the journal opened: it is kept there
	// (the same line, so the same leaf), as the title readers of the tail see.
	if bytes.Count(data, []byte(`"summary":"Greeting"`)) != 2 || !bytes.Contains(data[max(0, len(data)-liteWindow):], []byte(`"summary":"Greeting","leafUuid":"`+u.UUID+`"`)) {
		t.Errorf("own summary not kept in the tail")
	}
}
