package fastio

import "bytes"

// pathBufLen is the room of a PathBuf: most paths a loader probes are far shorter.
const pathBufLen = 512

// PathBuf is a path built in place, in the caller's own variable, for OpenAt and TypeAt: a
// lookup spelled from pieces ("../../" + "CLAUDE.md", a subdirectory + "/" + a name) then costs
// no allocation and no pooled buffer. Most of what an instruction load looks up does not
// exist, so its paths are made and thrown away by the dozen. A path longer than the buffer
// still works: it is then kept as a string. The zero value is the empty path.
type PathBuf struct {
	b    [pathBufLen]byte
	n    int
	long string // the whole path, once it does not fit in b
}

// Reset empties p.
func (p *PathBuf) Reset() { p.n, p.long = 0, "" }

// Add appends s to the path.
func (p *PathBuf) Add(s string) {
	if p.long == "" && p.n+len(s) < len(p.b) { // one byte stays free for the NUL
		p.n += copy(p.b[p.n:], s)
		return
	}
	if p.long == "" {
		p.long = string(p.b[:p.n])
	}
	p.long += s
}

// String returns the path (a copy).
func (p *PathBuf) String() string {
	if p.long != "" {
		return p.long
	}
	return string(p.b[:p.n])
}

// cstr returns the path NUL-terminated in p's own buffer, or nil when it does not fit or holds
// a NUL byte (then the string route gives the answer, EINVAL included).
func (p *PathBuf) cstr() *byte {
	if p.long != "" || p.n == 0 || bytes.IndexByte(p.b[:p.n], 0) >= 0 {
		return nil
	}
	p.b[p.n] = 0
	return &p.b[0]
}
