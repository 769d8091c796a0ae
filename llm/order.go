package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// ReorderJSON rewrites a JSON object so that the top-level keys named in last come at its end,
// in that order; every other key keeps its place and every value its bytes. The providers use it
// so that the parts of a request that grow (the messages) come after the parts that do not
// (tools, system): the SDKs serialise messages first, which makes consecutive request bodies
// share only a short byte prefix even though the prompt they describe shares almost all of it.
// A body that is not a JSON object is returned unchanged.
func ReorderJSON(body []byte, last ...string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return body, fmt.Errorf("llm: reorder request body: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return body, nil
	}
	type kv struct {
		key string
		val json.RawMessage
	}
	var front []kv
	tail := make([]*kv, len(last))
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return body, fmt.Errorf("llm: reorder request body: %w", err)
		}
		key, _ := kt.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return body, fmt.Errorf("llm: reorder request body: %w", err)
		}
		placed := false
		for i, l := range last {
			if l == key { // a repeated key: the later value wins, as when decoding
				tail[i] = &kv{key, val}
				placed = true
				break
			}
		}
		if !placed {
			front = append(front, kv{key, val})
		}
	}
	for _, t := range tail {
		if t != nil {
			front = append(front, *t)
		}
	}
	var out bytes.Buffer
	out.Grow(len(body))
	out.WriteByte('{')
	for i, e := range front {
		if i > 0 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(e.key)
		out.Write(k)
		out.WriteByte(':')
		out.Write(e.val)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// CacheOrder returns an SDK middleware (the anthropic and openai SDKs share its signature) that
// moves the named top-level keys of every JSON request body to its end, with ReorderJSON. A body
// it cannot read or parse is sent as it was.
func CacheOrder(last ...string) func(*http.Request, func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	return func(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
		if req.Body == nil || req.Method != http.MethodPost {
			return next(req)
		}
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("llm: read request body: %w", err)
		}
		if out, err := ReorderJSON(body, last...); err == nil {
			body = out
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		return next(req)
	}
}
