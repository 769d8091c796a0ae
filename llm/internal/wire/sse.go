// Package wire is what the two providers share on the wire, on the standard library only: a
// decoder for server-sent events (text/event-stream) and a JSON POST that keeps credentials on
// the configured server.
//
// It replaces the official SDKs, whose package initialisers and size every strata command
// paid for, including the offline ones (see docs/providers.md).
package wire

import (
	"bufio"
	"bytes"
	"io"
)

// MaxLine is the longest line Decoder accepts (32 MiB, as the Anthropic SDK did); a longer
// one ends the stream with bufio.ErrTooLong.
const MaxLine = 32 << 20

var maxLine = MaxLine // lowered by a test

// Event is one server-sent event.
type Event struct {
	// Name is the "event:" field; "" when the event had none.
	Name string
	// Data is the "data:" lines joined by "\n", nil when there were none; it is valid until
	// the next call to Next.
	Data []byte
}

// Decoder reads server-sent events as the SSE specification describes them, for what the
// providers use: "event:" names the event, "data:" lines accumulate (joined by "\n"), a blank
// line dispatches, lines starting with ":" are comments, other fields ("id:", "retry:") are
// ignored, one space after the colon is dropped, and a line ends with "\n", "\r\n" or "\r".
// An event with neither a name nor a data line is skipped; one not ended by a blank line
// when the stream ends is discarded, because it may be cut short.
type Decoder struct {
	sc   *bufio.Scanner
	name string
	last string // the previous event name, reused when the next is the same
	data []byte
}

// NewDecoder returns a decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	sc.Split(scanLines)
	return &Decoder{sc: sc, data: make([]byte, 0, 512)}
}

// Next returns the next event. At the end of the stream it returns io.EOF; a read error of
// the underlying reader is returned as it is.
func (d *Decoder) Next() (Event, error) {
	d.name, d.data = "", d.data[:0]
	hasData := false
	for d.sc.Scan() {
		line := d.sc.Bytes()
		if len(line) == 0 {
			switch {
			case hasData:
				return Event{Name: d.name, Data: d.data}, nil
			case d.name != "":
				return Event{Name: d.name}, nil
			}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(field) == 0 {
			continue // a comment
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			if d.last != string(value) { // the same name again costs no allocation
				d.last = string(value)
			}
			d.name = d.last
		case "data":
			if hasData {
				d.data = append(d.data, '\n')
			}
			d.data = append(d.data, value...)
			hasData = true
		}
	}
	if err := d.sc.Err(); err != nil {
		return Event{}, err
	}
	return Event{}, io.EOF
}

// scanLines is bufio.ScanLines for the three line endings of SSE. A "\r" at the end of the
// buffered data waits for the next byte, which may be its "\n".
func scanLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		switch {
		case data[i] == '\n':
			return i + 1, data[:i], nil
		case i+1 < len(data):
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		case atEOF:
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
