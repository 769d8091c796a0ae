package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
)

// A malformed frame over stdio is answered with a JSON-RPC error and the session goes on: the
// calls after it are answered too.
func TestStdioMalformedFrames(t *testing.T) {
	f := newFixture(t)
	s := f.server(t, nil)
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"`, // cut short
		`not json at all`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"} trailing`,
		`{"jsonrpc":"1.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"五"}`, // neither a call nor a response
		`[{"jsonrpc":"2.0","id":6,"method":"tools/list"}]`,
		`[]`,
		`  `,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_list","arguments":{}}}`,
	}, "\n") // no newline after the last frame
	var out bytes.Buffer
	if err := s.RunStdio(t.Context(), io.NopCloser(strings.NewReader(in)), nopWriter{&out}); err != nil {
		t.Fatal(err)
	}
	type reply struct {
		Method string `json:"method"`
		ID     any    `json:"id"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		if r.Method != "" {
			continue // a notification (list_changed, once the memories are read), not a reply
		}
		s, _ := json.Marshal(r.ID)
		if r.Error != nil {
			got = append(got, string(s)+":"+itoa(r.Error.Code))
		} else {
			got = append(got, string(s)+":ok")
		}
	}
	want := []string{
		"1:ok",
		"null:-32700", // cut short
		"null:-32700", // not JSON
		"null:-32700", // trailing text
		"4:-32600",    // wrong version, its id kept
		// the id-only message is a response (to nothing): the SDK drops it, no reply
		"null:-32600", // a batch under 2025-06-18
		"null:-32600", // empty batch
		"7:ok",
	}
	// Replies to bad frames are written as the frames are read, calls when they finish.
	slices.Sort(got)
	slices.Sort(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("replies:\n got %v\nwant %v\noutput:\n%s", got, want, out.String())
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A line over the length limit is consumed and answered with a parse error; the next line is
// passed on whole.
func TestFrameFilterLongLine(t *testing.T) {
	var out bytes.Buffer
	in := strings.Repeat("x", 100) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n"
	f := newFrameFilter(io.NopCloser(strings.NewReader(in)), &lockedWriter{w: nopWriter{&out}}, 64, nil)
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"; string(got) != want {
		t.Errorf("passed on %q, want %q", got, want)
	}
	if want := `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: frame longer than 64 bytes"}}` + "\n"; out.String() != want {
		t.Errorf("replied %q, want %q", out.String(), want)
	}
}

// FuzzFrameFilter: whatever the input, every line passed on is one JSON-RPC message (or batch)
// and every reply is a JSON-RPC error object on a line of its own.
func FuzzFrameFilter(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		"not json\n{}\n[]\n",
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]` + "\r\n",
		`{"jsonrpc":"2.0","id":{"x":1},"method":7}`,
		strings.Repeat("x", 200) + "\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var out bytes.Buffer
		ff := newFrameFilter(io.NopCloser(strings.NewReader(in)), &lockedWriter{w: nopWriter{&out}}, 128, nil)
		passed, err := io.ReadAll(ff)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(passed), "\n"), "\n") {
			if line == "" {
				continue
			}
			fresh := newFrameFilter(nil, nil, 128, nil) // no protocol version seen: batches pass
			if !json.Valid([]byte(line)) || fresh.check([]byte(line), false) != nil {
				t.Fatalf("passed on %q", line)
			}
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var r struct {
				Version string              `json:"jsonrpc"`
				ID      json.RawMessage     `json:"id"`
				Error   *struct{ Code int } `json:"error"`
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil || r.Version != "2.0" || r.Error == nil || len(r.ID) == 0 {
				t.Fatalf("bad reply %q (%v)", line, err)
			}
		}
	})
}
