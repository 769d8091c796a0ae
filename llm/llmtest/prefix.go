package llmtest

import (
	"bytes"
	"encoding/json"
)

// Prompt returns the request's prompt in the order providers build their prompt cache —
// tools, then system, then messages — canonically encoded (object keys sorted) and without
// cache_control markers, which mark the cache but are not part of it. Comparing the prompts
// of consecutive requests shows how much of the cached prefix each one reuses, whatever order
// the JSON keys of the raw body come in.
func (r Request) Prompt() []byte {
	var buf bytes.Buffer
	enc := func(v any) {
		b, err := json.Marshal(stripCache(v))
		if err != nil {
			return // values decoded from JSON always encode
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	enc(r.JSON["tools"])
	enc(r.JSON["system"])
	msgs, _ := r.JSON["messages"].([]any)
	for _, m := range msgs {
		enc(m)
	}
	return buf.Bytes()
}

// SharedPrefix returns how many leading bytes of prev's prompt next repeats exactly, and the
// length of prev's prompt; shared/total is the part of prev a prompt cache can serve to next.
func SharedPrefix(prev, next Request) (shared, total int) {
	a, b := prev.Prompt(), next.Prompt()
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i, len(a)
}

func stripCache(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k != "cache_control" {
				out[k] = stripCache(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripCache(e)
		}
		return out
	}
	return v
}
