package llm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReorderJSON(t *testing.T) {
	in := `{"max_tokens":10,"messages":[{"role":"user","content":"你好"}],"model":"m","system":[{"type":"text","text":"s"}],"stream":true,"tools":[{"name":"t"}]}`
	got, err := ReorderJSON([]byte(in), "tools", "system", "messages")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"max_tokens":10,"model":"m","stream":true,"tools":[{"name":"t"}],"system":[{"type":"text","text":"s"}],"messages":[{"role":"user","content":"你好"}]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// Same object, only the order changed.
	var a, b map[string]any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(got, &b)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("content changed (-in +out):\n%s", diff)
	}
	// Not an object, or broken: unchanged.
	for _, s := range []string{`[1,2]`, `"x"`} {
		if out, _ := ReorderJSON([]byte(s), "tools"); string(out) != s {
			t.Errorf("ReorderJSON(%s) = %s", s, out)
		}
	}
	if out, err := ReorderJSON([]byte(`{"a":`), "a"); err == nil || string(out) != `{"a":` {
		t.Errorf("broken body: out %s err %v", out, err)
	}
}

func FuzzReorderJSON(f *testing.F) {
	f.Add([]byte(`{"messages":[],"tools":[1],"system":"x","n":1.50}`))
	f.Add([]byte(`{"a":{"b":[1,{"c":null}]},"messages":"\u00e9"}`))
	f.Add([]byte(`{"tools":1,"x":2,"tools":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := ReorderJSON(data, "tools", "system", "messages")
		if err != nil {
			return
		}
		var a, b any
		if json.Unmarshal(data, &a) != nil {
			return
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("reordered %s is not JSON: %v (%s)", data, err, out)
		}
		if diff := cmp.Diff(a, b); diff != "" {
			t.Fatalf("content changed for %s:\n%s", data, diff)
		}
	})
}
