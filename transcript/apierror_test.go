package transcript

import (
	"fmt"
	"strings"
	"testing"
)

// apiError is the assistant line Claude Code writes when a request failed: the error's text
// under the model "<synthetic>", flagged isApiErrorMessage.
func apiError(uuid, parent, text string, sec int) string {
	return fmt.Sprintf(`{"type":"assistant","uuid":%q,"parentUuid":%s,%s,"isApiErrorMessage":true,"error":"rate_limit","message":{"id":"m-%s","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":%q}],"usage":{"input_tokens":0,"output_tokens":0}}}`,
		uuid, quoteOrNull(parent), ts(sec), uuid, text)
}

// TestAPIErrorsAreNotReplies: a session in which requests failed (Claude Code wrote the
// errors as synthetic assistant lines, then the user tried again) resumes without those lines:
// the model never sees "API Error: …" or a usage-limit notice as its own words, and the user's
// retries merge into one message. A real reply under "<synthetic>" without the flag stays.
func TestAPIErrorsAreNotReplies(t *testing.T) {
	s := loadLines(t,
		prompt("u1", "", 1),
		apiError("e1", "u1", "API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.", 2),
		prompt("u2", "e1", 3),
		apiError("e2", "u2", "You've hit your session limit · resets 11:30am", 4),
		prompt("u3", "e2", 5),
		said("a1", "u3", "m1", 6),
		`{"type":"assistant","uuid":"a2","parentUuid":"a1",`+ts(7)+`,"message":{"id":"m2","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"No response requested."}]}}`,
	)
	if e := s.Lines()[1]; !e.IsAPIError() {
		t.Fatalf("line 2 not seen as an API error: %s", e.Raw)
	}
	msgs, err := Messages(s.Live())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, fmt.Sprintf("%s:%d", m.Role, len(m.Content)))
		if txt := m.TextOf(); strings.Contains(txt, "API Error") || strings.Contains(txt, "session limit") {
			t.Errorf("an API error is sent as the model's words: %q", txt)
		}
	}
	if want := "user:3 assistant:2"; strings.Join(got, " ") != want {
		t.Errorf("messages %v, want %s (the three prompts merged, then the reply and the synthetic one)", got, want)
	}
}
