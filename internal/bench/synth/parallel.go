package synth

import (
	"bytes"
	"fmt"
	"time"

	"github.com/strata-mem/strata/transcript"
)

// ParallelOptions describe a synthetic Claude Code 2.1 session written by Parallel.
type ParallelOptions struct {
	SessionID, CWD string
	// Calls is the number of parallel tool calls of each turn, in order (3 and 5 make 3-way and
	// 5-way parallel calls; 1 a single call).
	Calls []int
	// Streamed marks the turns whose calls are written as Claude Code writes a reply whose
	// tools run while it still streams: each call's result before the reply's next call.
	Streamed []bool
	// BoundaryAfter writes a compact boundary and its summary after that many turns (0: none).
	BoundaryAfter int
	// Title, when set, is written as a custom-title line after the first turn.
	Title string
	Start time.Time
}

// ParallelSession is the file Parallel wrote and what Claude Code's loader makes of it.
type ParallelSession struct {
	Data []byte
	// Messages are the uuids of the user and assistant lines, in file order; all of them are
	// on the conversation Claude Code rebuilds.
	Messages []string
	// Calls are the tool_use ids, in order; every one has its result in the file.
	Calls []string
	// Leaf is the uuid of the entry Claude Code resumes from: the last turn's final reply,
	// followed in the file only by progress and system lines.
	Leaf string
	// Boundary is the uuid of the compact boundary ("" when none).
	Boundary string
	// Turns is the number of turns; LiveTurns those after the boundary.
	Turns, LiveTurns int
}

// Parallel writes a synthetic transcript in the shape Claude Code 2.1 writes (as in the real
// sessions of the shared corpus): each turn is a prompt, a reply whose text and parallel
// tool_use blocks are each their own assistant line sharing one message.id, hook progress lines
// chained after every call, each tool_result under its own call's line (so that one parent
// walk misses the sibling calls), the next reply under the last result, and stop-hook system
// lines after it; optionally a compact boundary between two turns. It is deterministic for o.
func Parallel(o ParallelOptions) ParallelSession {
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 2, 11, 20, 0, 0, 0, time.UTC)
	}
	w := &parallelWriter{o: o, now: o.Start}
	var out ParallelSession
	parent := ""
	for t, n := range o.Calls {
		if o.BoundaryAfter > 0 && t == o.BoundaryAfter {
			out.Boundary = w.line(transcript.TypeSystem, "", `"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","logicalParentUuid":"`+parent+`","compactMetadata":{"trigger":"auto","preTokens":167094}`)
			parent = w.message(&out, transcript.TypeUser, out.Boundary, `"isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. 摘要：并行调用。"}`)
			out.LiveTurns = 0
		}
		streamed := t < len(o.Streamed) && o.Streamed[t]
		parent = w.turn(&out, t, n, streamed, parent)
		out.Turns++
		out.LiveTurns++
		if t == 0 && o.Title != "" {
			w.raw(`{"type":"custom-title","customTitle":` + quote(o.Title) + `,"sessionId":"` + o.SessionID + `"}`)
		}
	}
	out.Data = w.buf.Bytes()
	return out
}

type parallelWriter struct {
	o   ParallelOptions
	buf bytes.Buffer
	seq int
	now time.Time
}

func (w *parallelWriter) raw(line string) {
	w.buf.WriteString(line)
	w.buf.WriteByte('\n')
}

// line writes an entry with the common fields and returns its uuid.
func (w *parallelWriter) line(typ, parent, body string) string {
	w.seq++
	id := fmt.Sprintf("0c0c%04x-2100-4000-8000-%012x", w.seq>>16, w.seq)
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	w.now = w.now.Add(37 * time.Millisecond)
	w.raw(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":%s,"sessionId":"%s","version":"2.1.39","gitBranch":"main","type":"%s",%s,"uuid":"%s","timestamp":"%s"}`,
		p, quote(w.o.CWD), w.o.SessionID, typ, body, id, w.now.Format(transcript.TimeFormat)))
	return id
}

func (w *parallelWriter) message(out *ParallelSession, typ, parent, body string) string {
	id := w.line(typ, parent, body)
	out.Messages = append(out.Messages, id)
	return id
}

// progress writes n hook progress lines chained after parent and returns the last one's uuid.
func (w *parallelWriter) progress(parent, toolID string, n int) string {
	for range n {
		parent = w.line(transcript.TypeProgress, parent, fmt.Sprintf(`"data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Read"},"toolUseID":"%s","parentToolUseID":"%s"`, toolID, toolID))
	}
	return parent
}

func (w *parallelWriter) turn(out *ParallelSession, t, calls int, streamed bool, parent string) string {
	msgID := fmt.Sprintf("msg_01Parallel%04d", t)
	reply := func(content string) string {
		return fmt.Sprintf(`"message":{"model":"claude-opus-4-6","id":"%s","type":"message","role":"assistant","content":[%s],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":9}},"requestId":"req_%d"`, msgID, content, t)
	}
	w.raw(fmt.Sprintf(`{"type":"file-history-snapshot","messageId":"snap-%d","snapshot":{"trackedFileBackups":{}},"isSnapshotUpdate":false}`, t))
	parent = w.message(out, transcript.TypeUser, parent, fmt.Sprintf(`"message":{"role":"user","content":"turn %d: 读取这些文件 and compare"}`, t))
	parent = w.message(out, transcript.TypeAssistant, parent, reply(fmt.Sprintf(`{"type":"text","text":"Reading %d files."}`, calls)))
	var callLines, ids []string
	last := parent
	for k := range calls {
		id := fmt.Sprintf("toolu_01T%02dC%02d", t, k)
		ids = append(ids, id)
		out.Calls = append(out.Calls, id)
		call := w.message(out, transcript.TypeAssistant, last, reply(fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/src/f%d.go"}}`, id, k)))
		callLines = append(callLines, call)
		last = w.progress(call, id, 2)
		if streamed {
			last = w.result(out, call, id, k)
		}
	}
	if !streamed {
		for k, call := range callLines {
			last = w.progress(last, ids[k], 1)
			last = w.result(out, call, ids[k], k)
		}
	}
	final := w.message(out, transcript.TypeAssistant, last, fmt.Sprintf(`"message":{"model":"claude-opus-4-6","id":"msg_01Final%04d","type":"message","role":"assistant","content":[{"type":"text","text":"Compared %d files; 完成。"}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":9}}`, t, calls))
	out.Leaf = final
	tail := w.progress(final, fmt.Sprintf("stop-%d", t), 2)
	return w.line(transcript.TypeSystem, tail, `"subtype":"stop_hook_summary","hookCount":1,"hookInfos":[],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion"`)
}

// result writes the tool_result of call id under the call's own line.
func (w *parallelWriter) result(out *ParallelSession, call, id string, k int) string {
	return w.message(out, transcript.TypeUser, call, fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":"package f%d // 内容"}]},"toolUseResult":{"type":"text","file":{"filePath":"/src/f%d.go","numLines":1}},"sourceToolAssistantUUID":"%s"`, id, k, k, call))
}
