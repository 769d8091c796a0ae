package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/conversation"
)

// reply is an assistant line of reply msgID holding the given content blocks (JSON).
func reply(uuid, parent, msgID, blocks string, sec int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"parentUuid":%s,%s,"message":{"id":%q,"role":"assistant","content":[%s]}}`,
		uuid, quoteOrNull(parent), ts(sec), msgID, blocks)
}

// TestRequestFixesNameTheirLines: every repair a resume makes names the transcript line it
// concerns, the newer kinds too — unsigned thinking, a web search's server-side blocks, a reply
// cut off after its thinking, a blank text block, a failed request's error line — so that
// `strata sessions show` can point at it.
func TestRequestFixesNameTheirLines(t *testing.T) {
	s := loadLines(t,
		prompt("u1", "", 1), // line 1
		reply("a1", "u1", "m1", `{"type":"thinking","thinking":"no signature"}`, 2),                                          // 2
		reply("a2", "a1", "m1", `{"type":"server_tool_use","id":"srv1","name":"web_search","input":{"query":"go 1.26"}}`, 3), // 3
		reply("a3", "a2", "m1", `{"type":"web_search_tool_result","tool_use_id":"srv1","content":[]}`, 4),                    // 4
		reply("a4", "a3", "m1", `{"type":"text","text":"found it"}`, 5),                                                      // 5
		`{"type":"user","uuid":"u2","parentUuid":"a4",`+ts(6)+`,"message":{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},{"type":"text","text":"读这个 PDF"}]}}`, // 6
		apiError("e1", "u2", "API Error: 529 Overloaded", 7),                                      // 7
		prompt("u3", "e1", 8),                                                                     // 8
		reply("a5", "u3", "m2", `{"type":"text","text":"  "}`, 9),                                 // 9
		reply("a6", "a5", "m2", `{"type":"thinking","thinking":"cut off","signature":"sig"}`, 10), // 10
	)
	type fix struct {
		Kind conversation.ProblemKind
		Line int
	}
	var got []fix
	for _, f := range s.RequestFixes() {
		got = append(got, fix{f.Kind, f.Line})
		if !strings.HasPrefix(f.String(), fmt.Sprintf("line %d: ", f.Line)) {
			t.Errorf("fix text %q does not start with its line", f.String())
		}
	}
	want := []fix{
		{APIErrorLine, 7},
		{conversation.Unsendable, 2}, // unsigned thinking
		{conversation.Unsendable, 3}, // server_tool_use
		{conversation.Unsendable, 4}, // web_search_tool_result
		{conversation.ThinkingLast, 10},
		{conversation.EmptyMessage, 9}, // the blank text left alone
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fixes (-want +got):\n%s", diff)
	}
}

// TestRequestFixesToolLines: the fixes of tool calls name the line of the very block: each
// copy of a repeated call, the stray result, the call left without a result.
func TestRequestFixesToolLines(t *testing.T) {
	s := loadLines(t,
		prompt("u1", "", 1),             // 1
		call("a1", "u1", "m1", "t1", 2), // 2
		answer("r1", "a1", "t1", 3),     // 3
		answer("r2", "r1", "t9", 4),     // 4: answers no call
		call("a2", "r2", "m2", "t1", 5), // 5: repeats t1's id
		call("a3", "a2", "m3", "t2", 6), // 6: never answered
	)
	var got []string
	for _, f := range s.RequestFixes() {
		got = append(got, fmt.Sprintf("%s@%d", f.Kind, f.Line))
	}
	for _, f := range got {
		if strings.HasSuffix(f, "@0") {
			t.Errorf("a fix without a line: %v", got)
		}
	}
	for _, w := range []string{"stray-tool-result@4", "duplicate-tool-use@5", "unanswered-tool-use@6"} {
		if !strings.Contains(strings.Join(got, " "), w) {
			t.Errorf("fixes %v lack %s", got, w)
		}
	}
}
