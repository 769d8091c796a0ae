package instructions

import (
	"io/fs"

	"github.com/strata-mem/strata/internal/fastio"
)

// fileID identifies a file whatever name reached it (by path where there are no inodes).
type fileID = fastio.FileID

// handle is an open file. fastio keeps a load cheap: no poller registration, and for a plain
// file shorter than the read buffer, one pread and no fstat (see load).
type handle struct {
	f       fastio.File
	id      fileID      // valid when statted
	mode    fs.FileMode // valid when statted or loaded
	size    int64       // valid when statted or loaded
	statted bool        // id, mode and size come from fstat

	loaded    bool    // load ran
	buf       *[]byte // pooled read buffer, returned by close
	data      []byte  // what load read (regular files only)
	truncated bool    // the file is longer than data (size cap)
	identity  *ident  // made by ident: &own
	own       ident   // identity's storage, so that a file read costs one allocation for both
}

// openHandle opens path read-only without blocking (a FIFO or device never blocks; see
// fastio.Open). With noFollow, a symlink as the last element fails (isSymlinkErr). The error is
// the bare errno: most opens are probes of names that do not exist, and callers know the path.
func openHandle(path string, noFollow bool) (*handle, error) {
	f, err := fastio.Open(path, noFollow)
	if err != nil {
		return nil, err
	}
	return &handle{f: f}, nil
}

// openHandleIn is openHandle(dir/name, true), spelled by b.
func openHandleIn(b *base, dir, name string) (*handle, error) {
	f, err := openAt(b, dir, name)
	if err != nil {
		return nil, err
	}
	return &handle{f: f}, nil
}

// stat fills id, mode and size from fstat, once.
func (h *handle) stat() error {
	if h.statted {
		return nil
	}
	info, err := h.f.Stat()
	if err != nil {
		return &fs.PathError{Op: "fstat", Err: err}
	}
	h.id, h.mode, h.size, h.statted = info.ID, info.Mode, info.Size, true
	return nil
}

func (h *handle) close() {
	h.f.Close()
	if h.identity != nil {
		h.identity.open = nil // the identity outlives the handle it is stored in
	}
	h.data = nil // a view of buf, or of a buffer of its own: neither is kept with the identity
	if h.buf != nil {
		readBufs.Put(h.buf)
		h.buf = nil
	}
}

// load reads at most max bytes of the file into data when it is a regular file; afterwards
// mode says what the file is (data stays empty for anything else).
//
// A first pread that returns fewer bytes than asked, but some, read a whole regular file, so
// no fstat is needed: pread fails on pipes, terminals and directories, and devices fill the
// buffer or return nothing. Everything else (symlinks included) is fstat'ed, then read.
func (h *handle) load(max int64) error {
	if h.loaded {
		return nil
	}
	h.loaded = true
	h.buf = readBufs.Get().(*[]byte)
	buf := *h.buf
	lim := int64(len(buf))
	if max < lim-1 { // not max+1 < lim: max may be math.MaxInt64
		lim = max + 1
	}
	got := 0
	if !h.statted {
		n, err := h.f.Pread(buf[:lim], 0)
		if err == nil && n > 0 && int64(n) < lim {
			h.mode, h.size, h.data = 0, int64(n), buf[:n]
			return nil
		}
		if err == nil {
			got = n
		}
		if err := h.stat(); err != nil {
			return err
		}
	}
	if !h.mode.IsRegular() {
		return nil
	}
	want := h.size
	if want > max {
		want, h.truncated = max, true
	}
	data := buf
	if want > int64(len(buf)) {
		data = make([]byte, want)
		copy(data, buf[:got])
	}
	data = data[:want]
	got = min(got, len(data))
	for got < len(data) {
		n, err := h.f.Pread(data[got:], int64(got))
		if err != nil {
			return &fs.PathError{Op: "read", Err: err}
		}
		if n == 0 {
			break // the file shrank since fstat
		}
		got += n
	}
	h.data = data[:got]
	return nil
}

// isSymlinkErr reports the error openHandle gives with noFollow on a symlink.
func isSymlinkErr(err error) bool { return fastio.IsSymlinkErr(err) }

// statType returns the type bits of path's file, following a final symlink unless noFollow.
func statType(path string, noFollow bool) (fs.FileMode, error) {
	info, err := fastio.StatPath(path, noFollow)
	return info.Mode, err
}

// statID returns the identity of path's file, following symlinks.
func statID(path string) (fileID, error) {
	info, err := fastio.StatPath(path, false)
	return info.ID, err
}
