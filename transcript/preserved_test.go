package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

// keptSession writes the shape Claude Code 2.1.328 leaves after /compact (measured with the
// real CLI): the messages u2..a3 from before the boundary are kept after the summary s, the
// summary's other children hang under it, and the re-read file is an attachment with its
// rendering. padding lines before the segment make the file large.
func keptSession(t *testing.T, padding int) string {
	t.Helper()
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	user := func(id, parent, text string) {
		line(`{"parentUuid":%s,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":%q,"timestamp":"2026-12-04T10:00:00Z"}`, parent, text, id)
	}
	asst := func(id, parent, msg, text string) {
		line(`{"parentUuid":%q,"isSidechain":false,"type":"assistant","message":{"id":%q,"role":"assistant","content":[{"type":"text","text":%q}]},"uuid":%q,"timestamp":"2026-12-04T10:00:01Z"}`, parent, msg, text, id)
	}
	user("u1", "null", "first request")
	parent := "u1"
	for i := range padding {
		id := fmt.Sprintf("p%d", i)
		asst(id, parent, "msg_p"+id, strings.Repeat("older work ", 40))
		parent = id
	}
	user("u2", fmt.Sprintf("%q", parent), "second request")
	asst("a2", "u2", "msg_2", "done two")
	user("u3", `"a2"`, "third turn plain")
	asst("a3", "u3", "msg_3", "done three")
	line(`{"type":"mode","mode":"default"}`)
	line(`{"parentUuid":null,"logicalParentUuid":"a3","isSidechain":false,"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"uuid":"b1","timestamp":"2026-12-04T10:01:00Z","compactMetadata":{"trigger":"manual","preTokens":16,"preservedSegment":{"headUuid":"u2","anchorUuid":"s1","tailUuid":"a3"}}}`)
	line(`{"parentUuid":"b1","isSidechain":false,"type":"user","message":{"role":"user","content":"SUMMARY"},"isVisibleInTranscriptOnly":true,"isCompactSummary":true,"uuid":"s1","timestamp":"2026-12-04T10:01:00Z"}`)
	user("c1", `"s1"`, "<command-name>/compact</command-name>")
	line(`{"parentUuid":"c1","isSidechain":false,"attachment":{"type":"file","filename":"/w/b.txt"},"type":"attachment","uuid":"f1","timestamp":"2026-12-04T10:01:00Z","rendered":[{"content":"<system-reminder>\nResult of calling the Read tool:\n1\tbeta\n</system-reminder>"}],"renderedRole":"user"}`)
	line(`{"parentUuid":"f1","isSidechain":false,"attachment":{"type":"skill_listing","content":"- a skill"},"type":"attachment","uuid":"f2","timestamp":"2026-12-04T10:01:00Z","rendered":[{"content":"<system-reminder>skills</system-reminder>"}],"renderedRole":"user"}`)
	user("u4", `"f2"`, "after compaction")
	asst("a4", "u4", "msg_4", "ok")
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func liveTexts(t *testing.T, s *Session) []string {
	t.Helper()
	msgs, err := Messages(s.Live())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		for _, b := range m.Content {
			out = append(out, string(m.Role)+": "+strings.SplitN(b.Text, "\n", 3)[0])
		}
	}
	return out
}

func TestResumeKeepsPreservedSegment(t *testing.T) {
	want := []string{
		"user: SUMMARY", "user: second request", "assistant: done two", "user: third turn plain", "assistant: done three",
		"user: <system-reminder>", "user: <command-name>/compact</command-name>", "user: after compaction", "assistant: ok",
	}
	for _, tc := range []struct {
		name    string
		padding int
		opts    ReadOptions
	}{
		{"whole file", 3, ReadOptions{}},
		{"large file read from the boundary", 200, ReadOptions{LargeFile: 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Load(t.Context(), keptSession(t, tc.padding), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Problems) != 0 {
				t.Fatalf("problems: %v", s.Problems)
			}
			if diff := cmp.Diff(want, liveTexts(t, s)); diff != "" {
				t.Errorf("resumed messages (-want +got):\n%s", diff)
			}
			if tc.opts.LargeFile > 0 && s.File.StartLine == 1 {
				t.Errorf("a large file was read whole")
			}
			seen := map[string]bool{}
			for _, e := range s.Chain {
				if seen[e.UUID] {
					t.Errorf("%s twice on the chain", e.UUID)
				}
				seen[e.UUID] = true
			}
			if tc.opts.LargeFile == 0 && !seen["u1"] {
				t.Errorf("the history before the kept messages is not on the chain")
			}
			if leaf := s.Leaf(); leaf == nil || leaf.UUID != "a4" {
				t.Errorf("leaf %v, want a4", leaf)
			}
		})
	}
}

// A boundary naming kept messages that are not in the file resumes from the summary alone.
func TestResumePreservedSegmentMissing(t *testing.T) {
	path := keptSession(t, 0)
	data, _ := os.ReadFile(path)
	var kept []string
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, `"uuid":"u2"`) {
			kept = append(kept, l)
		}
	}
	os.WriteFile(path, []byte(strings.Join(kept, "\n")), 0o600)
	s, err := Load(t.Context(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := liveTexts(t, s)
	if len(got) == 0 || got[0] != "user: SUMMARY" || strings.Contains(strings.Join(got, "|"), "third turn") {
		t.Errorf("resumed %q, want the summary and what followed it only", got)
	}
}

func TestAttachmentMessage(t *testing.T) {
	for _, tc := range []struct {
		line string
		want string
	}{
		{`{"type":"attachment","uuid":"a","attachment":{"type":"queued_command","prompt":"also fix 测试"},"rendered":[{"content":"also fix 测试"}],"renderedRole":"user"}`, "also fix 测试"},
		{`{"type":"attachment","uuid":"a","attachment":{"type":"hook_additional_context"},"rendered":[{"content":[{"type":"text","text":"ctx"}]}]}`, "ctx"},
		{`{"type":"attachment","uuid":"a","attachment":{"type":"environment"},"rendered":[{"content":"env"}],"renderedRole":"user"}`, ""},
		{`{"type":"attachment","uuid":"a","attachment":{"type":"file"},"rendered":[{"content":"model"}],"renderedRole":"system"}`, ""},
		{`{"type":"attachment","uuid":"a","attachment":{"type":"file"}}`, ""},
	} {
		e, err := ParseEntry([]byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		m, ok := e.attachmentMessage()
		got := ""
		if ok {
			if m.Role != conversation.User {
				t.Errorf("role %s", m.Role)
			}
			got = m.Content[0].Text
		}
		if got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.line, got, tc.want)
		}
	}
}
