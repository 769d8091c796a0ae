package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

type ev struct{ Name, Data string }

// all decodes body, returning the events and the error that ended it.
func all(r io.Reader) ([]ev, error) {
	d := NewDecoder(r)
	var out []ev
	for {
		e, err := d.Next()
		if err != nil {
			return out, err
		}
		out = append(out, ev{e.Name, string(e.Data)})
	}
}

func TestDecoder(t *testing.T) {
	tests := []struct {
		name, body string
		want       []ev
	}{
		{"named", "event: a\ndata: {\"x\":1}\n\n", []ev{{"a", `{"x":1}`}}},
		{"unnamed", "data: 1\n\ndata: 2\n\n", []ev{{"", "1"}, {"", "2"}}},
		{"multi-line data", "data: a\ndata:  b\ndata:\n\n", []ev{{"", "a\n b\n"}}},
		{"no space after colon", "event:x\ndata:y\n\n", []ev{{"x", "y"}}},
		{"field without colon", "event: x\ndata\n\n", []ev{{"x", ""}}},
		{"comments and other fields", ": hi\nid: 3\nretry: 100\nevent: x\n: mid\ndata: y\n\n", []ev{{"x", "y"}}},
		{"crlf", "event: x\r\ndata: 你好\r\n\r\n", []ev{{"x", "你好"}}},
		{"cr", "event: x\rdata: y\r\rdata: z\r\r", []ev{{"x", "y"}, {"", "z"}}},
		{"blank lines between", "\n\n\ndata: 1\n\n\n\n", []ev{{"", "1"}}},
		{"name only", "event: ping\n\n", []ev{{"ping", ""}}},
		{"name resets", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1"}, {"", "2"}}},
		{"unterminated dropped", "data: 1\n\ndata: 2\n", []ev{{"", "1"}}},
		{"unterminated no newline", "data: 1\n\ndata: 2", []ev{{"", "1"}}},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.body), iotest.OneByteReader(strings.NewReader(tt.body))} {
				got, err := all(r)
				if err != io.EOF {
					t.Fatalf("ended with %v, want io.EOF", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// A "\r" that ends one read and the "\n" that starts the next are one line ending.
func TestDecoderCRLFSplitAcrossReads(t *testing.T) {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte("data: a\r"))
		pw.Write([]byte("\ndata: b\r"))
		pw.Write([]byte("\n\r"))
		pw.Write([]byte("\n"))
		pw.Close()
	}()
	got, err := all(pr)
	if err != io.EOF {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ev{{"", "a\nb"}}, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestDecoderErrors(t *testing.T) {
	boom := errors.New("boom")
	_, err := all(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2"), iotest.ErrReader(boom)))
	if err != boom {
		t.Errorf("read error: got %v, want it returned as it is", err)
	}
	defer func(m int) { maxLine = m }(maxLine)
	maxLine = 1 << 10
	if _, err := all(strings.NewReader("data: " + strings.Repeat("x", 1000) + "\n\n")); err != io.EOF {
		t.Errorf("line under the limit: %v", err)
	}
	_, err = all(strings.NewReader("data: " + strings.Repeat("x", maxLine) + "\n\n"))
	if !errors.Is(err, bufio.ErrTooLong) {
		t.Errorf("line over MaxLine: got %v, want bufio.ErrTooLong", err)
	}
}

// Data is reused between events; an allocation per event would show in a long stream.
func TestDecoderAllocations(t *testing.T) {
	body := strings.Repeat("event: content_block_delta\ndata: {\"type\":\"content_block_delta\"}\n\n", 1000)
	allocs := testing.AllocsPerRun(10, func() {
		d := NewDecoder(strings.NewReader(body))
		for {
			if _, err := d.Next(); err != nil {
				break
			}
		}
	})
	if allocs > 20 {
		t.Errorf("%.0f allocations for 1000 events", allocs)
	}
}

// FuzzDecoder: arbitrary bytes never panic, every event had a name or data, and the stream
// ends in io.EOF after at most one event per line.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte("event: a\ndata: 1\n\n"))
	f.Add([]byte("data: a\r\ndata: b\r\r\n: c\n\nevent:x\n\n"))
	f.Add([]byte("data"))
	f.Fuzz(func(t *testing.T, body []byte) {
		d := NewDecoder(bytes.NewReader(body))
		lines := bytes.Count(body, []byte("\n")) + bytes.Count(body, []byte("\r")) + 1
		for n := 0; ; n++ {
			e, err := d.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("error %v from an in-memory reader", err)
			}
			if n > lines {
				t.Fatalf("more events than lines in %q", body)
			}
			if e.Name == "" && e.Data == nil {
				t.Fatalf("event with neither name nor data from %q", body)
			}
		}
	})
}

func TestClientKeepsKeyOnOrigin(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other server was called, with x-api-key %q", r.Header.Get("x-api-key"))
	}))
	defer other.Close()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/same":
			http.Redirect(w, r, srv.URL+"/v1/final", http.StatusTemporaryRedirect)
		case "/v1/away":
			http.Redirect(w, r, other.URL+"/steal", http.StatusTemporaryRedirect)
		case "/v1/final":
			body, _ := io.ReadAll(r.Body)
			w.Write(append([]byte(r.Header.Get("x-api-key")+" "), body...))
		default:
			w.WriteHeader(http.StatusTeapot)
			io.WriteString(w, `{"error":{"message":"teapot"}}`)
		}
	}))
	defer srv.Close()
	hc, err := Client(nil, srv.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{"X-Api-Key": {"secret"}}
	resp, errBody, err := Post(t.Context(), hc, srv.URL+"/v1/same", h, []byte(`{"a":1}`))
	if err != nil || errBody != nil {
		t.Fatalf("same-origin redirect: %v %s", err, errBody)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != `secret {"a":1}` {
		t.Errorf("same-origin redirect delivered %q", got)
	}
	if _, _, err := Post(t.Context(), hc, srv.URL+"/v1/away", h, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "another server") {
		t.Errorf("redirect to another server: err = %v", err)
	}
	resp, errBody, err = Post(t.Context(), hc, srv.URL+"/v1/other", h, []byte(`{}`))
	if err != nil || resp.StatusCode != http.StatusTeapot || string(errBody) != `{"error":{"message":"teapot"}}` {
		t.Errorf("error status: %v %v %s", resp, err, errBody)
	}
	if _, err := Client(nil, "localhost:11434/v1"); err == nil {
		t.Error("a base URL without a scheme was accepted")
	}
}
