package transcript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"github.com/google/uuid"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/internal/fsutil"
)

// Defaults of the journal and the reader.
const (
	// FlushInterval is how often buffered entries are written to the file.
	FlushInterval = 100 * time.Millisecond
	// TailWindow is how much of a file's head and tail listing reads.
	TailWindow = 64 << 10
	// maxBacklog bounds the bytes buffered while writes keep failing.
	maxBacklog = 64 << 20
	// flushAt writes the buffer at once when it grows past this many bytes.
	flushAt = 1 << 20
)

// Errors of the journal.
var (
	// ErrLocked is returned by Open (or by the Append that creates the file) when another
	// journal, in this process or another, is writing the same transcript.
	ErrLocked = errors.New("transcript: another strata process is writing this session")
	// ErrClosed is returned by every method of a closed Journal except Close.
	ErrClosed = errors.New("transcript: journal is closed")
	// ErrBacklog is returned by Append when writes have failed for so long that maxBacklog
	// bytes are waiting; the entry is not buffered.
	ErrBacklog = errors.New("transcript: too many unwritten entries (writes keep failing)")
)

// Options configure a Journal. The zero value is usable.
type Options struct {
	// FS is where the file is written; nil means OS.
	FS FS
	// Logger receives background write failures and repairs; nil discards.
	Logger *slog.Logger
	// FlushInterval overrides the 100 ms background flush; negative disables it (entries are
	// written only by Flush, Sync and Close).
	FlushInterval time.Duration
	// Now is the clock for timestamps; nil means time.Now.
	Now func() time.Time

	// SessionID, CWD, GitBranch and Version fill the same fields of conversation entries
	// appended without them. Without GitBranch, the branch is read from the HEAD of the git
	// repository holding CWD (see GitBranch) when the journal opens and again at every user
	// entry, so a branch switched during the session shows from the next turn on, as in
	// Claude Code's transcripts.
	SessionID, CWD, GitBranch, Version string
	// Metadata seeds the session metadata (title, tag …) known from a resumed session, so
	// Close re-appends it even when it lies far from the end of the file. Only the types Claude
	// Code re-appends itself are (custom title, tag, last prompt, agent name, mode, worktree
	// state); a summary or AI title from here is never moved into the tail, where it would
	// change the title Claude Code shows.
	Metadata []*Entry
}

// Journal appends entries to one transcript file. Entries are buffered and written every
// FlushInterval by a goroutine the Journal owns, and whenever Flush, Sync or Close is called;
// Sync (call it at the end of each turn) and Close also fsync. The file is created, with its
// directory, only when the first user or assistant entry arrives; entries appended before are
// kept in memory until then (and dropped at Close if none arrives). One Journal at a time may
// write a file: the file is locked (flock) while open.
//
// A Journal is safe for concurrent use.
type Journal struct {
	path string
	opts Options
	fsys FS
	log  *slog.Logger

	mu       sync.Mutex
	f        AppendFile
	lock     *flock.Flock
	size     int64 // bytes of complete records in the file
	buf      []byte
	pending  int   // entries in buf
	written  int64 // entries written to the file
	synced   int64 // entries fsynced
	torn     bool  // a failed write left a partial record that could not be cut off
	bgErr    error // last background write failure, cleared by a successful write
	meta     map[string]*metaRec
	leaf     string
	head     string // the HEAD file that gives the branch ("" when none or not looked up yet)
	branch   string
	headRead bool
	repaired int64
	closed   bool

	stop chan struct{}
	wg   sync.WaitGroup
}

type metaRec struct {
	line []byte
	at   int64 // file offset where the record ends (once the buffer is written)
	// tail is set for a line that lay in the file's tail window when the journal opened (or
	// was appended by it): keeping it there keeps what every reader of the tail sees.
	tail bool
}

// reappendAlways are the metadata types Claude Code itself re-appends at the end of every
// session from what it restored (reAppendSessionMetadata): their meaning does not depend on
// where they stand. Summaries and generated titles are not among them: Claude Code's resume list
// reads the last summary and AI title it finds in the tail window, so moving one there from the
// head or the middle of the file would change the title it shows. Those are re-appended only
// to keep a line that is already in the tail window from drifting out of it.
var reappendAlways = map[string]bool{
	TypeCustomTitle: true, TypeTag: true, TypeLastPrompt: true, TypeAgentName: true, TypeMode: true, TypeWorktreeState: true,
}

// Open returns a journal for the transcript at path. An existing file is opened for appending
// and locked at once; a torn last record (a write cut short by a crash) is cut off, or, when it
// is a complete object missing only its newline, completed. A missing file is created later,
// at the first user or assistant entry.
func Open(ctx context.Context, path string, opts Options) (*Journal, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	j := &Journal{path: path, opts: opts, fsys: opts.FS, log: opts.Logger, meta: map[string]*metaRec{}}
	if j.fsys == nil {
		j.fsys = OS
	}
	if j.log == nil {
		j.log = slog.New(slog.DiscardHandler)
	}
	for _, e := range opts.Metadata {
		line, err := encodeLine(e)
		if err != nil {
			return nil, err
		}
		if reappendAlways[e.Type] {
			j.meta[e.Type] = &metaRec{line: line, at: 0}
		}
	}
	if _, err := os.Stat(path); err == nil {
		if err := j.openFile(); err != nil {
			return nil, err
		}
		if err := j.repairTail(); err != nil {
			j.closeFile()
			return nil, err
		}
		j.seedMetadata()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("transcript: open %s: %w", path, err)
	}
	iv := opts.FlushInterval
	if iv == 0 {
		iv = FlushInterval
	}
	j.stop = make(chan struct{})
	if iv > 0 {
		j.wg.Go(func() { j.flushLoop(iv) })
	}
	return j, nil
}

// Path returns the transcript's path.
func (j *Journal) Path() string { return j.path }

// Created reports whether the file exists (the first user or assistant entry has arrived).
func (j *Journal) Created() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.f != nil
}

// Leaf returns the uuid of the last conversation entry appended, the parent of the next one.
func (j *Journal) Leaf() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.leaf
}

// SetLeaf sets the parent of the next message appended with AppendMessage (after a resume,
// the leaf of the restored chain).
func (j *Journal) SetLeaf(uuid string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.leaf = uuid
}

// Counts reports how many entries were written to the file and how many of those were fsynced.
func (j *Journal) Counts() (written, synced int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.written, j.synced
}

// Repaired returns how many bytes of a torn last record Open cut off (0 when none).
func (j *Journal) Repaired() int64 { return j.repaired }

func (j *Journal) now() time.Time {
	if j.opts.Now != nil {
		return j.opts.Now()
	}
	return time.Now()
}

// Append buffers e. Conversation entries built in memory (Raw nil) get the journal's
// session id, cwd, branch and version when they have none, a new uuid and the current time.
// The first user or assistant entry creates the file. Append returns ErrLocked when creating
// the file finds another writer, and ErrBacklog when earlier writes keep failing.
func (j *Journal) Append(e *Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	if len(j.buf) > maxBacklog {
		return ErrBacklog
	}
	if e.Raw == nil && chainTypes[e.Type] {
		j.fill(e)
	}
	if e.Raw == nil && e.Type == TypeSummary && e.LeafUUID == "" {
		// Claude Code keys a summary by the conversation entry it summarises.
		e.LeafUUID = j.leaf
	}
	line, err := encodeLine(e)
	if err != nil {
		return err
	}
	if j.f == nil && (e.Type == TypeUser || e.Type == TypeAssistant) {
		if err := j.openFile(); err != nil {
			return err
		}
	}
	j.buf = append(j.buf, line...)
	j.pending++
	if metadataTypes[e.Type] {
		j.meta[e.Type] = &metaRec{line: line, at: j.size + int64(len(j.buf)), tail: true}
	}
	if chainTypes[e.Type] && e.UUID != "" && !e.IsSidechain {
		j.leaf = e.UUID
	}
	if j.f != nil && len(j.buf) >= flushAt {
		return j.writeLocked()
	}
	return nil
}

func (j *Journal) fill(e *Entry) {
	if e.UUID == "" {
		e.UUID = uuid.NewString()
	}
	if e.Timestamp.IsZero() {
		e.Timestamp = j.now()
	}
	if e.SessionID == "" {
		e.SessionID = j.opts.SessionID
	}
	if e.CWD == "" {
		e.CWD = j.opts.CWD
	}
	if e.GitBranch == "" {
		e.GitBranch = j.gitBranch(e.Type == TypeUser)
	}
	if e.Version == "" {
		e.Version = j.opts.Version
	}
}

// gitBranch is the branch to record: Options.GitBranch, else the one HEAD names, read again
// when refresh is set (at user entries: the start of a turn) and found once per journal.
func (j *Journal) gitBranch(refresh bool) string {
	if j.opts.GitBranch != "" || j.opts.CWD == "" {
		return j.opts.GitBranch
	}
	if !j.headRead {
		j.headRead, j.head = true, gitHeadPath(j.opts.CWD)
		refresh = true
	}
	if refresh && j.head != "" {
		j.branch = branchOfHead(j.head)
	}
	return j.branch
}

// AppendMessage appends m as a user or assistant entry whose parent is the current Leaf and
// returns the entry (with its uuid). isMeta marks text injected by strata rather than typed by
// the user.
func (j *Journal) AppendMessage(m conversation.Message, isMeta bool) (*Entry, error) {
	msg, err := jsonMarshal(m)
	if err != nil {
		return nil, fmt.Errorf("transcript: message: %w", err)
	}
	typ := TypeUser
	if m.Role == conversation.Assistant {
		typ = TypeAssistant
	}
	e := &Entry{Type: typ, ParentUUID: j.Leaf(), Message: msg, IsMeta: isMeta}
	if err := j.Append(e); err != nil {
		return nil, err
	}
	return e, nil
}

// Flush writes the buffered entries to the file without fsync. If ctx is done it returns
// ctx.Err() and keeps them buffered. After a failed write the file is cut back to its last
// complete record and the entries stay buffered for the next attempt.
func (j *Journal) Flush(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	return j.writeLocked()
}

// Sync writes the buffered entries and fsyncs the file: call it at the end of each turn. When
// it returns nil, every entry appended before the call is durable (or, if no user or assistant
// entry has arrived yet, still only in memory).
func (j *Journal) Sync(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	return j.syncLocked()
}

func (j *Journal) syncLocked() error {
	if err := j.writeLocked(); err != nil {
		return err
	}
	if j.f == nil {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("transcript: sync %s: %w", j.path, err)
	}
	j.synced = j.written
	return nil
}

// Close re-appends the session metadata when it has drifted out of the tail window, writes and
// fsyncs everything buffered, releases the lock and waits for the flush goroutine. It writes
// even if ctx is already done (a closing session must not lose its last turn). Entries
// buffered in a journal whose file was never created are dropped. Close is idempotent.
func (j *Journal) Close(ctx context.Context) error {
	_ = ctx // Close always completes its writes; see the doc comment.
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	j.mu.Unlock()
	close(j.stop)
	j.wg.Wait()

	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		if j.pending > 0 {
			j.log.Debug("transcript: no user or assistant entry; nothing written", "path", j.path, "entries", j.pending)
		}
		return nil
	}
	j.reappendMetadata()
	err := j.syncLocked()
	return errors.Join(err, j.closeFile())
}

// reappendMetadata buffers the latest entry of each metadata type again when any of them was
// written more than half a tail window before the end of the file. A summary or AI title is
// re-appended only when it was in the tail window when the journal opened, or was appended by
// it (see reappendAlways), so that it stays where readers of the tail see it; one from further
// back would change their title if moved there.
func (j *Journal) reappendMetadata() {
	end := j.size + int64(len(j.buf))
	var types []string
	stale := false
	for t, r := range j.meta {
		if !reappendAlways[t] && !r.tail {
			continue
		}
		types = append(types, t)
		if end-r.at > TailWindow/2 {
			stale = true
		}
	}
	if !stale {
		return
	}
	sort.Strings(types)
	for _, t := range types {
		r := j.meta[t]
		j.buf = append(j.buf, r.line...)
		j.pending++
		r.at = j.size + int64(len(j.buf))
	}
}

func (j *Journal) flushLoop(iv time.Duration) {
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			j.mu.Lock()
			if err := j.writeLocked(); err != nil {
				if j.bgErr == nil {
					j.log.Warn("transcript: background write failed; will retry", "path", j.path, "err", err)
				}
				j.bgErr = err
			}
			j.mu.Unlock()
		}
	}
}

// writeLocked writes the buffer in one write. On failure the file is cut back to its last
// complete record so no partial line is left between records.
func (j *Journal) writeLocked() error {
	if j.f == nil || len(j.buf) == 0 {
		return nil
	}
	data := j.buf
	if j.torn {
		data = append([]byte{'\n'}, data...)
	}
	n, err := j.f.Write(data)
	if err != nil {
		if n > 0 {
			if terr := j.f.Truncate(j.size); terr != nil {
				// The partial record stays; the next write starts on a new line so that
				// only that fragment, never a good record, is unreadable.
				j.torn = true
				j.size += int64(n)
				j.log.Warn("transcript: could not cut a partial write", "path", j.path, "err", terr)
			}
		}
		return fmt.Errorf("transcript: write %s: %w", j.path, err)
	}
	j.torn = false
	j.bgErr = nil
	j.size += int64(n)
	j.written += int64(j.pending)
	j.pending = 0
	if cap(j.buf) > 4*flushAt {
		j.buf = nil
	} else {
		j.buf = j.buf[:0]
	}
	return nil
}

// openFile creates the directory and file if needed, opens it for appending and locks it.
func (j *Journal) openFile() error {
	dir := filepath.Dir(j.path)
	if err := j.fsys.MkdirAll(dir, fsutil.DirMode); err != nil {
		return fmt.Errorf("transcript: create dir %s: %w", dir, err)
	}
	_, statErr := os.Stat(j.path)
	f, err := j.fsys.OpenAppend(j.path, fsutil.FileMode)
	if err != nil {
		return fmt.Errorf("transcript: open %s: %w", j.path, err)
	}
	lk := flock.New(j.path, flock.SetFlag(os.O_RDONLY))
	ok, err := lk.TryLock()
	if err != nil || !ok {
		f.Close()
		if err != nil {
			return fmt.Errorf("transcript: lock %s: %w", j.path, err)
		}
		return fmt.Errorf("%w: %s", ErrLocked, j.path)
	}
	fi, err := f.Stat()
	if err != nil {
		lk.Unlock()
		f.Close()
		return fmt.Errorf("transcript: stat %s: %w", j.path, err)
	}
	j.f, j.lock, j.size = f, lk, fi.Size()
	if errors.Is(statErr, fs.ErrNotExist) {
		// Make the new name durable; the content is made durable by Sync.
		if err := j.fsys.SyncDir(dir); err != nil {
			j.log.Warn("transcript: sync dir", "dir", dir, "err", err)
		}
	}
	return nil
}

func (j *Journal) closeFile() error {
	var errs []error
	if j.lock != nil {
		if err := j.lock.Unlock(); err != nil {
			errs = append(errs, fmt.Errorf("transcript: unlock %s: %w", j.path, err))
		}
		j.lock = nil
	}
	if j.f != nil {
		if err := j.f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("transcript: close %s: %w", j.path, err))
		}
	}
	return errors.Join(errs...)
}

// repairTail handles a file whose last byte is not a newline: the previous writer died in the
// middle of a record. A fragment that is a whole JSON object gets its newline; anything else
// is cut off, since it was never reported durable.
func (j *Journal) repairTail() error {
	if j.size == 0 {
		return nil
	}
	r, err := os.Open(j.path)
	if err != nil {
		return fmt.Errorf("transcript: open %s: %w", j.path, err)
	}
	defer r.Close()
	start, frag, err := lastLine(r, j.size)
	if err != nil {
		return fmt.Errorf("transcript: read %s: %w", j.path, err)
	}
	if frag == nil {
		return nil // ends with a newline
	}
	if e, err := ParseEntry(bytes.Clone(frag)); err == nil && e != nil {
		if _, err := j.f.Write([]byte{'\n'}); err != nil {
			return fmt.Errorf("transcript: write %s: %w", j.path, err)
		}
		j.size++
		return nil
	}
	if err := j.f.Truncate(start); err != nil {
		return fmt.Errorf("transcript: cut torn record of %s: %w", j.path, err)
	}
	j.repaired = j.size - start
	j.size = start
	j.log.Warn("transcript: cut a torn last record", "path", j.path, "bytes", j.repaired, "offset", start)
	return nil
}

// lastLine returns the start offset and bytes of the text after the file's last newline, or a
// nil fragment when the file ends with a newline. A fragment longer than 64 MB is returned
// truncated (only its start offset matters then).
func lastLine(r io.ReaderAt, size int64) (int64, []byte, error) {
	var one [1]byte
	if _, err := r.ReadAt(one[:], size-1); err != nil {
		return 0, nil, err
	}
	if one[0] == '\n' {
		return size, nil, nil
	}
	const block = 64 << 10
	var frag []byte
	for end := size; end > 0; {
		start := max(0, end-block)
		b := make([]byte, end-start)
		if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			if len(frag) < maxBacklog {
				frag = append(b[i+1:], frag...)
			}
			return start + int64(i) + 1, frag, nil
		}
		if len(frag) < maxBacklog {
			frag = append(b, frag...)
		}
		end = start
	}
	return 0, frag, nil
}

// seedMetadata learns the metadata in the tail window of an existing file, with its position,
// so Close re-appends it only when it drifts out of the window.
func (j *Journal) seedMetadata() {
	r, err := os.Open(j.path)
	if err != nil {
		j.log.Warn("transcript: read metadata", "path", j.path, "err", err)
		return
	}
	defer r.Close()
	start := max(0, j.size-TailWindow)
	b := make([]byte, j.size-start)
	if _, err := r.ReadAt(b, start); err != nil && err != io.EOF {
		j.log.Warn("transcript: read metadata", "path", j.path, "err", err)
		return
	}
	off := start
	if start > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return
		}
		off += int64(i) + 1
		b = b[i+1:]
	}
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		line := b[:i]
		off += int64(i) + 1
		b = b[i+1:]
		if !bytes.Contains(line, []byte(`"type"`)) {
			continue
		}
		e, err := ParseEntry(bytes.Clone(line))
		if e == nil || err != nil && !isFieldError(err) {
			continue
		}
		if metadataTypes[e.Type] {
			j.meta[e.Type] = &metaRec{line: append(bytes.Clone(e.Raw), '\n'), at: off, tail: true}
		}
		if chainTypes[e.Type] && e.UUID != "" {
			j.leaf = e.UUID
		}
	}
}

func isFieldError(err error) bool {
	var fe *FieldError
	return errors.As(err, &fe)
}
