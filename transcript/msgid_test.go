package transcript

import (
	"encoding/json"
	"testing"
)

// TestProviderMessageIDScan: the quick scan of a reply's top-level keys agrees with decoding,
// whatever the key order, spacing, nesting, escapes and repeated keys.
func TestProviderMessageIDScan(t *testing.T) {
	for _, msg := range []string{
		`{"id":"msg_1","role":"assistant","content":[]}`,
		`{"model":"claude","id":"msg_2","content":[{"type":"text","text":"a \"quoted\" id: {\"id\":\"no\"}"}]}`,
		`{ "content" : [ {"id":"toolu_x","input":{"id":"nested"}} ] , "id" : "msg_3" }`,
		`{"usage":{"input_tokens":3},"stop_reason":null,"n":-1.5e3,"ok":true,"id":"msg_\u00e9"}`,
		`{"role":"assistant","content":"no id"}`,
		`{"id":7}`,
		`{"i\u0064":"msg_escaped_key"}`,
		`{"content":[1,2,[3,{"x":"]"}]],"id":"msg_4"}`,
		`{"id":"中文_id"}`,
		`{"ID":"other case","id":"msg_5"}`,
		`{"id":"first","id":"last"}`,
	} {
		e := &Entry{Message: json.RawMessage(msg)}
		if got, want := e.ProviderMessageID(), decodedID(msg); got != want {
			t.Errorf("%s: id %q, want %q", msg, got, want)
		}
	}
}

func FuzzProviderMessageID(f *testing.F) {
	f.Add(`{"model":"m","id":"msg_1","content":[{"type":"text","text":"}"}]}`)
	f.Fuzz(func(t *testing.T, msg string) {
		if !json.Valid([]byte(msg)) {
			return
		}
		e := &Entry{Message: json.RawMessage(msg)}
		if got, want := e.ProviderMessageID(), decodedID(msg); got != want {
			t.Fatalf("%s: id %q, want %q", msg, got, want)
		}
	})
}

// decodedID is the "id" string of a JSON object as JSON.parse reads it: the exact key, the last
// when repeated.
func decodedID(msg string) string {
	var m map[string]json.RawMessage
	var id string
	if json.Unmarshal([]byte(msg), &m) != nil || json.Unmarshal(m["id"], &id) != nil {
		return ""
	}
	return id
}
