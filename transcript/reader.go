package transcript

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"

	"github.com/strata-mem/strata/internal/fsutil"
)

// LargeFile is the size above which loading starts at the last compact boundary unless the
// full history is asked for.
const LargeFile = 5 << 20

// ReadOptions control ReadFile and Load.
type ReadOptions struct {
	// Full reads the whole file even when it is larger than LargeFile.
	Full bool
	// LargeFile overrides the 5 MB threshold (tests and benchmarks).
	LargeFile int64
	// Logger receives a line per skipped line; nil discards.
	Logger *slog.Logger
}

// File is what reading a transcript found: every line is either an entry or a skipped line
// with its reason, so Lines == len(Entries) + the number of Problems with Skipped set.
type File struct {
	Path string
	Size int64
	// Start is the offset reading began at: 0, or the last compact boundary's line of a large
	// file. StartLine is that line's number (1-based).
	Start     int64
	StartLine int
	// Lines counts the lines read from Start on (a last line without newline included).
	Lines   int
	Entries []*Entry
	// Earlier holds the metadata entries (title, tag …) found in the TailWindow before Start,
	// so a load that skips old history still knows the session's title.
	Earlier  []*Entry
	Problems []Problem
}

// Problem is a line that could not be used, or a note about one (Skipped false: the entry
// was kept, a field was ignored), or a break in the chain (Line 0, UUID set).
type Problem struct {
	Line    int    `json:"line,omitempty"`
	Offset  int64  `json:"offset,omitempty"`
	UUID    string `json:"uuid,omitempty"`
	Reason  string `json:"reason"`
	Skipped bool   `json:"skipped"`
}

func (p Problem) String() string {
	switch {
	case p.Line > 0 && p.Skipped:
		return fmt.Sprintf("line %d skipped: %s", p.Line, p.Reason)
	case p.Line > 0:
		return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
	default:
		return fmt.Sprintf("entry %s: %s", p.UUID, p.Reason)
	}
}

// ShownProblems is how many problems a person is shown one by one (ProblemLines).
const ShownProblems = 10

// ProblemLines are the lines a person is shown for problems: the first n as they are, then
// one line that counts the rest, so a file that is not a transcript at all (a debug log named
// .jsonl) gives a few warnings instead of one per line. Machine output lists them all.
func ProblemLines(problems []Problem, n int) []string {
	out := make([]string, 0, min(len(problems), n+1))
	for i, p := range problems {
		if i == n {
			out = append(out, fmt.Sprintf("and %d more problems (strata sessions show --json lists them all)", len(problems)-n))
			break
		}
		out = append(out, p.String())
	}
	return out
}

// Skipped returns how many lines were skipped.
func (f *File) Skipped() int {
	n := 0
	for _, p := range f.Problems {
		if p.Skipped {
			n++
		}
	}
	return n
}

// ReadFile reads the transcript at path. A torn or corrupt line is skipped and reported with
// its line number, never fatal; only failing to open or read the file is an error. Files larger
// than LargeFile are read from their last compact boundary on (found by scanning backwards from
// the end, without parsing what comes before) unless opts.Full is set.
func ReadFile(ctx context.Context, path string, opts ReadOptions) (*File, error) {
	// No cap: a large transcript is read from its last compact boundary, line by line.
	f, fi, err := fsutil.OpenRegular(path, math.MaxInt64)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	out := &File{Path: path, Size: fi.Size(), StartLine: 1}
	large := opts.LargeFile
	if large <= 0 {
		large = LargeFile
	}
	if !opts.Full && fi.Size() > large {
		start, err := LastBoundary(ctx, f, fi.Size())
		if err == nil && start > 0 {
			start, err = keptBefore(ctx, f, fi.Size(), start)
		}
		if err != nil {
			return nil, fmt.Errorf("transcript: %s: %w", path, err)
		}
		if start > 0 {
			n, err := countLines(ctx, f, start)
			if err != nil {
				return nil, fmt.Errorf("transcript: %s: %w", path, err)
			}
			out.Start, out.StartLine = start, n+1
			out.Earlier = metadataBefore(f, start)
		}
	}
	if _, err := f.Seek(out.Start, io.SeekStart); err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", path, err)
	}
	if err := out.read(ctx, f, opts.Logger); err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", path, err)
	}
	return out, nil
}

// Read reads a whole transcript from r (see ReadFile); name is used in problems and errors.
func Read(ctx context.Context, r io.Reader, name string) (*File, error) {
	out := &File{Path: name, StartLine: 1}
	if err := out.read(ctx, r, nil); err != nil {
		return nil, fmt.Errorf("transcript: %s: %w", name, err)
	}
	return out, nil
}

func (out *File) read(ctx context.Context, r io.Reader, log *slog.Logger) error {
	br := bufio.NewReaderSize(r, 256<<10)
	off := out.Start
	lineNo := out.StartLine - 1
	for {
		if lineNo%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		line, err := readLine(br)
		if len(line) == 0 && err == io.EOF {
			break
		}
		if err != nil && err != io.EOF {
			return err
		}
		lineNo++
		out.Lines++
		n := int64(len(line))
		torn := line[len(line)-1] != '\n'
		body := lineBody(lineNo, line)
		out.add(body, lineNo, off, torn, log)
		off += n
		if out.Size < off {
			out.Size = off
		}
		if err == io.EOF {
			break
		}
	}
	return nil
}

func (out *File) add(body []byte, lineNo int, off int64, torn bool, log *slog.Logger) {
	skip := func(reason string) {
		out.Problems = append(out.Problems, Problem{Line: lineNo, Offset: off, Reason: reason, Skipped: true})
		if log != nil {
			log.Warn("transcript: line skipped", "path", out.Path, "line", lineNo, "reason", reason)
		}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		skip("empty line")
		return
	}
	e, err := ParseEntry(body)
	if e == nil {
		reason := "not valid JSON"
		switch {
		case errors.Is(err, ErrNotObject):
			reason = "not a JSON object"
		case torn:
			reason = "torn last line (no newline): not valid JSON"
		}
		skip(reason)
		return
	}
	e.Line = lineNo
	if err != nil {
		out.Problems = append(out.Problems, Problem{Line: lineNo, Offset: off, UUID: e.UUID, Reason: err.Error()})
	}
	out.Entries = append(out.Entries, e)
}

// lineBody is line number lineNo without its newline and, on the first line, without a
// UTF-8 byte order mark (an editor may add one; listing reads such a line already).
func lineBody(lineNo int, line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	if lineNo == 1 {
		line = bytes.TrimPrefix(line, []byte("\ufeff"))
	}
	return line
}

// readLine returns the next line including its newline, in a slice of its own.
func readLine(br *bufio.Reader) ([]byte, error) {
	frag, err := br.ReadSlice('\n')
	if err == nil || err == io.EOF {
		return bytes.Clone(frag), err
	}
	if err != bufio.ErrBufferFull {
		return nil, err
	}
	full := bytes.Clone(frag)
	for {
		frag, err = br.ReadSlice('\n')
		full = append(full, frag...)
		if err != bufio.ErrBufferFull {
			if err != nil && err != io.EOF {
				return nil, err
			}
			return full, err
		}
	}
}

var boundaryMark = []byte(`"compact_boundary"`)

// LastBoundary returns the offset at which the last compact boundary line of r's first size bytes
// starts, 0 when there is none. It scans backwards from the end in blocks, parsing only the
// lines that hold the boundary's subtype.
func LastBoundary(ctx context.Context, r io.ReaderAt, size int64) (int64, error) {
	off, err := lastMatch(ctx, r, size, size, boundaryMark, (*Entry).IsCompactBoundary)
	return max(off, 0), err
}

// keptBefore moves a read that starts at the boundary line at start back to the first message
// its compaction kept verbatim (a preserved segment's head), so the kept messages are loaded.
func keptBefore(ctx context.Context, r io.ReaderAt, size, start int64) (int64, error) {
	_, line, err := lineAround(r, size, start)
	if err != nil {
		return 0, err
	}
	b, _ := ParseEntry(line)
	if b == nil {
		return start, nil
	}
	seg, ok := b.preserved()
	if !ok {
		return start, nil
	}
	head, err := lastMatch(ctx, r, size, start, []byte(`"`+seg.head+`"`), func(e *Entry) bool { return e.UUID == seg.head })
	if err != nil || head < 0 {
		return start, err
	}
	return head, nil
}

// lastMatch finds the start of the last line before end that holds mark and parses to an entry
// match accepts, scanning backwards in blocks; -1 when there is none.
func lastMatch(ctx context.Context, r io.ReaderAt, size, end int64, mark []byte, match func(*Entry) bool) (int64, error) {
	block := min(end, 128<<10)
	buf := make([]byte, block+int64(len(mark)))
	var at []int
	for end > 0 {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		start := max(0, end-block)
		// Read overlapping the next block by the mark's length so a mark cut by the block edge
		// is still found.
		readEnd := min(size, end+int64(len(mark)))
		b := buf[:readEnd-start]
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, err
		}
		// The marks are found forwards (bytes.Index is vector code, bytes.LastIndex is not)
		// and tried last first.
		at = at[:0]
		for off := 0; ; {
			i := bytes.Index(b[off:], mark)
			if i < 0 {
				break
			}
			at = append(at, off+i)
			off += i + 1
		}
		hi := len(b)
		for _, i := range slices.Backward(at) {
			if i >= hi {
				continue // on a line already tried
			}
			ls, line, err := lineAround(r, size, start+int64(i))
			if err != nil {
				return 0, err
			}
			if e, _ := ParseEntry(line); e != nil && match(e) {
				return ls, nil
			}
			if ls < start {
				break // the rest of this block belongs to the same line
			}
			hi = int(ls - start)
		}
		end = start
	}
	return -1, nil
}

// lineAround returns the start offset and the bytes (without newline) of the line holding
// offset off.
func lineAround(r io.ReaderAt, size, off int64) (int64, []byte, error) {
	const chunk = 64 << 10
	start := off
	for start > 0 {
		s := max(0, start-chunk)
		b := make([]byte, start-s)
		if _, err := r.ReadAt(b, s); err != nil && err != io.EOF {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			start = s + int64(i) + 1
			break
		}
		start = s
	}
	end := off
	for end < size {
		e := min(size, end+chunk)
		b := make([]byte, e-end)
		if _, err := r.ReadAt(b, end); err != nil && err != io.EOF {
			return 0, nil, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			end += int64(i)
			break
		}
		end = e
	}
	line := make([]byte, end-start)
	if _, err := r.ReadAt(line, start); err != nil && err != io.EOF {
		return 0, nil, err
	}
	return start, line, nil
}

// countLines counts the newlines in the first n bytes.
func countLines(ctx context.Context, r io.ReaderAt, n int64) (int, error) {
	const block = 1 << 20
	buf := make([]byte, block)
	count := 0
	for off := int64(0); off < n; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		b := buf[:min(block, n-off)]
		if _, err := r.ReadAt(b, off); err != nil && err != io.EOF {
			return 0, err
		}
		count += bytes.Count(b, []byte{'\n'})
		off += int64(len(b))
	}
	return count, nil
}

// metadataBefore returns the metadata entries in the TailWindow that ends at start.
func metadataBefore(r io.ReaderAt, start int64) []*Entry {
	s := max(0, start-TailWindow)
	b := make([]byte, start-s)
	if _, err := r.ReadAt(b, s); err != nil && err != io.EOF {
		return nil
	}
	if s > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return nil
		}
		b = b[i+1:]
	}
	var out []*Entry
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		if !bytes.Contains(line, []byte(`"type"`)) || len(line) > 16<<10 {
			continue
		}
		if e, _ := ParseEntry(line); e != nil && metadataTypes[e.Type] {
			out = append(out, e)
		}
	}
	return out
}
