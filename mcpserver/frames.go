package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// batchesRefusedFrom is the first protocol version without JSON-RPC batches: the SDK ends the
// session on a batch from a client that asked for it or a later one.
const batchesRefusedFrom = "2025-06-18"

// frameFilter sits between a stdio client and the SDK's transport, whose JSON decoder ends the
// session at the first malformed frame. It reads the input line by line (the stdio framing)
// and passes on only lines that are JSON-RPC messages; any other line is answered on w with a
// JSON-RPC error — parse error (-32700) for text that is not JSON or a line over the length
// limit, invalid request (-32600) for JSON that is not a message, or a batch the protocol in
// use forbids — and the session goes on.
type frameFilter struct {
	in      io.ReadCloser
	br      *bufio.Reader
	out     *lockedWriter
	max     int
	version string // the protocolVersion the client's initialize asked for
	pending []byte // a valid line (with its newline) not yet read by the transport
	log     func(msg string, args ...any)
}

func newFrameFilter(r io.ReadCloser, w *lockedWriter, max int, log func(string, ...any)) *frameFilter {
	return &frameFilter{in: r, br: bufio.NewReaderSize(r, 64<<10), out: w, max: max, log: log}
}

// Read gives the transport the next valid line.
func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, tooLong, err := f.readLine()
		if len(line) > 0 || tooLong {
			if reply := f.check(line, tooLong); reply != nil {
				if werr := f.out.writeReply(reply); werr != nil {
					return 0, werr
				}
			} else {
				f.pending = append(line, '\n')
			}
		}
		if err != nil && len(f.pending) == 0 {
			return 0, err
		}
		if err != nil {
			break // the last line first; the error comes at the next Read
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// readLine returns the next line without its newline and surrounding white space; a line
// longer than f.max is consumed to its end and reported as tooLong, without its bytes.
func (f *frameFilter) readLine() (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := f.br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > f.max+2 { // +2: the \r\n that is not part of the frame
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// check returns the error reply for a line that is not a message the transport can take, nil
// for one it can.
func (f *frameFilter) check(line []byte, tooLong bool) *errorReply {
	if tooLong {
		return f.reject(nil, jsonrpc.CodeParseError, fmt.Sprintf("Parse error: frame longer than %d bytes", f.max))
	}
	if !json.Valid(line) {
		return f.reject(nil, jsonrpc.CodeParseError, "Parse error: not JSON")
	}
	if line[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(line, &raws); err != nil || len(raws) == 0 {
			return f.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: empty batch")
		}
		if f.version >= batchesRefusedFrom {
			return f.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: JSON-RPC batches are not supported in protocol "+f.version)
		}
		for _, raw := range raws {
			if reply := f.checkMessage(raw); reply != nil {
				return reply
			}
		}
		return nil
	}
	return f.checkMessage(line)
}

// checkMessage checks one message and notes the protocol version an initialize asks for.
func (f *frameFilter) checkMessage(raw []byte) *errorReply {
	msg, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return f.reject(idOf(raw), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(req.Params, &p) == nil {
			f.version = p.ProtocolVersion
		}
	}
	return nil
}

func (f *frameFilter) reject(id json.RawMessage, code int64, msg string) *errorReply {
	if f.log != nil {
		f.log("mcpserver: malformed frame answered with an error", "code", code, "reason", msg)
	}
	if id == nil {
		id = json.RawMessage("null")
	}
	r := &errorReply{Version: "2.0", ID: id}
	r.Error.Code, r.Error.Message = code, msg
	return r
}

// errorReply is a JSON-RPC error response; its id is null when the frame had none usable, as
// the specification asks.
type errorReply struct {
	Version string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// idOf returns the id of a message that did not decode when it is a string or a number, so
// that the client can match the error to its call; otherwise nil.
func idOf(raw []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// Close closes the input.
func (f *frameFilter) Close() error { return f.in.Close() }

// lockedWriter serialises whole messages from the transport and the filter onto one output.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

// Write writes one message (the SDK writes each message, newline included, in one call).
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) writeReply(r *errorReply) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = l.Write(append(data, '\n'))
	return err
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// maxFrame is the longest stdio frame taken, the SDK's own limit.
const maxFrame = mcp.DefaultMaxLineLength
