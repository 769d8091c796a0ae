package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/transcript"
)

// SessionOptions describe a synthetic session written by Session.
type SessionOptions struct {
	SessionID string
	CWD       string
	// Size is the approximate size of the file in bytes.
	Size int64
	// Boundaries are the fractions of Size (0..1) at which a compact boundary and its summary
	// are written, in increasing order.
	Boundaries []float64
	// Title, when set, is written as an ai-title at the end, next to a last-prompt entry, as
	// a Journal's Close leaves them.
	Title string
	Start time.Time
	Seed  uint64
}

// Session writes a synthetic but realistic transcript to path, for benchmarks: turns of a
// user prompt, an assistant reply with a tool call, the tool's result (a few KB) and a final
// reply, in Claude Code's entry format, with compact boundaries where asked. The file is
// deterministic for its options; Session does not fsync it.
func Session(path string, o SessionOptions) error {
	if err := os.MkdirAll(filepath.Dir(path), fsutil.DirMode); err != nil {
		return fmt.Errorf("synth: session: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, fsutil.FileMode)
	if err != nil {
		return fmt.Errorf("synth: session: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(o.Seed, 99))
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	}
	s := sessionWriter{w: w, rng: rng, o: o, now: o.Start}
	s.raw(fmt.Sprintf(`{"type":"file-history-snapshot","messageId":"%s","snapshot":{"messageId":"%s","trackedFileBackups":{},"timestamp":"%s"},"isSnapshotUpdate":false}`,
		s.id(), s.id(), o.Start.Format(transcript.TimeFormat)))
	next := 0
	firstPrompt := ""
	for s.n < o.Size {
		if next < len(o.Boundaries) && float64(s.n) >= o.Boundaries[next]*float64(o.Size) {
			s.boundary()
			next++
			continue
		}
		p := s.turn()
		if firstPrompt == "" {
			firstPrompt = p
		}
	}
	if o.Title != "" {
		s.raw(fmt.Sprintf(`{"type":"last-prompt","lastPrompt":%s,"sessionId":"%s"}`, quote(firstPrompt), o.SessionID))
		s.raw(fmt.Sprintf(`{"type":"ai-title","aiTitle":%s,"sessionId":"%s"}`, quote(o.Title), o.SessionID))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("synth: session: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("synth: session: %w", err)
	}
	return nil
}

type sessionWriter struct {
	w      *bufio.Writer
	rng    *rand.Rand
	o      SessionOptions
	n      int64
	seq    int
	parent string
	now    time.Time
}

var sessionWords = strings.Fields(`the parser cache retry upload handler test build error config
index token session memory file line value result check update 修复 解析器 测试 缓存 函数 错误
request response context budget limit writer reader chain boundary summary`)

func (s *sessionWriter) text(n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(sessionWords[s.rng.IntN(len(sessionWords))])
		if s.rng.IntN(12) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func (s *sessionWriter) id() string {
	s.seq++
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", s.o.Seed&0xffffffff, s.seq)
}

func (s *sessionWriter) raw(line string) {
	n, _ := s.w.WriteString(line)
	s.w.WriteByte('\n')
	s.n += int64(n) + 1
}

// quote is v as a JSON string, without HTML escaping (as the journal writes it).
func quote(v string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// entry writes a conversation entry with the common fields and body (the type-specific keys).
func (s *sessionWriter) entry(typ, body string) string {
	id := s.id()
	parent := "null"
	if s.parent != "" {
		parent = `"` + s.parent + `"`
	}
	s.now = s.now.Add(time.Duration(1+s.rng.IntN(20)) * time.Second)
	s.raw(fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"userType":"external","cwd":%s,"sessionId":"%s","version":"2.1.0","gitBranch":"main","type":"%s",%s,"uuid":"%s","timestamp":"%s"}`,
		parent, quote(s.o.CWD), s.o.SessionID, typ, body, id, s.now.Format(transcript.TimeFormat)))
	s.parent = id
	return id
}

func (s *sessionWriter) turn() string {
	prompt := s.text(80 + s.rng.IntN(300))
	s.entry(transcript.TypeUser, `"message":{"role":"user","content":`+quote(prompt)+`}`)
	tool := fmt.Sprintf("toolu_%d", s.seq)
	msg := fmt.Sprintf(`{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%s},{"type":"tool_use","id":"%s","name":"Read","input":{"file_path":"/src/f%d.go"}}],"usage":{"input_tokens":%d,"output_tokens":%d}}`,
		s.seq, quote(s.text(100+s.rng.IntN(600))), tool, s.rng.IntN(50), 1000+s.rng.IntN(9000), 50+s.rng.IntN(500))
	s.entry(transcript.TypeAssistant, `"message":`+msg)
	out := s.text(500 + s.rng.IntN(4000))
	s.entry(transcript.TypeUser, fmt.Sprintf(`"message":{"role":"user","content":[{"tool_use_id":"%s","type":"tool_result","content":%s}]},"toolUseResult":{"type":"text","file":{"filePath":"/src/f.go","numLines":%d}}`,
		tool, quote(out), 10+s.rng.IntN(400)))
	s.entry(transcript.TypeAssistant, fmt.Sprintf(`"message":{"id":"msg_%d","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%s}]}`,
		s.seq, quote(s.text(100+s.rng.IntN(800)))))
	return transcript.Shorten(prompt, 200)
}

func (s *sessionWriter) boundary() {
	last := s.parent
	s.parent = ""
	s.entry(transcript.TypeSystem, fmt.Sprintf(`"subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"level":"info","logicalParentUuid":"%s","compactMetadata":{"trigger":"auto","preTokens":%d}`, last, 100000+s.rng.IntN(60000)))
	summary, _ := json.Marshal("This session is being continued from a previous conversation. Summary: " + s.text(3000))
	s.entry(transcript.TypeUser, `"isCompactSummary":true,"message":{"role":"user","content":`+string(summary)+`}`)
}
