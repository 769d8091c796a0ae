package recall

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/fastio"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// FileInfo identifies one version of a memory file: a change of ModTime or Size means the
// file must be read again.
type FileInfo struct {
	File    string // name relative to the memory dir, e.g. "prefer-tabs.md"
	ModTime time.Time
	Size    int64
}

// Source is where a Ranker's memories come from. DirSource reads a memory directory; the
// memory store can provide its own.
type Source interface {
	// Scan lists the memory files with their change stamps. It must be cheap: it runs before
	// every search that wants fresh results.
	Scan(ctx context.Context) ([]FileInfo, error)
	// Load reads and parses one memory file. A file that vanished since Scan returns an error
	// wrapping fs.ErrNotExist.
	Load(ctx context.Context, file string) (memdir.Memory, []memdir.Diagnostic, error)
}

// MaxIndexedBytes caps how much of one file the ranker reads: a 5 MB memory is indexed by its
// first MiB (its frontmatter always fits).
const MaxIndexedBytes = 1 << 20

// DirSource reads the topic files (*.md except MEMORY.md) at the top of a memory directory.
// Subdirectories (daily logs, .archive), dot files and anything that is not a regular file
// (symlinks included) are not memories and are skipped.
type DirSource struct {
	Dir string
}

// Scan implements Source.
func (s DirSource) Scan(ctx context.Context) ([]FileInfo, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("recall: scan %s: %w", s.Dir, err)
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if !isTopicFile(name) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed between the listing and the stat
			}
			return nil, fmt.Errorf("recall: scan %s: %w", filepath.Join(s.Dir, name), err)
		}
		out = append(out, FileInfo{File: name, ModTime: fi.ModTime(), Size: fi.Size()})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// isTopicFile reports whether a file name at the top of a memory dir is a topic file.
func isTopicFile(name string) bool {
	return strings.HasSuffix(name, ".md") && name != "MEMORY.md" && !strings.HasPrefix(name, ".")
}

// Load implements Source. It reads at most MaxIndexedBytes of the file.
func (s DirSource) Load(ctx context.Context, file string) (memdir.Memory, []memdir.Diagnostic, error) {
	return readMemory(filepath.Join(s.Dir, file), file, MaxIndexedBytes)
}

// loadKnown is DirSource.Load for a file whose stamp Scan just returned: it skips the stat
// (one system call less per file on a cold build). If the file changed in between, the
// stamp recorded is the older one, so the next Refresh reads it again. The file is read into
// *buf (grown as needed and kept for the next file): parsing copies what it keeps.
func (s DirSource) loadKnown(fi FileInfo, buf *[]byte) (memdir.Memory, []memdir.Diagnostic, error) {
	path := filepath.Join(s.Dir, fi.File)
	size := int(min(max(fi.Size, 0), MaxIndexedBytes))
	if cap(*buf) < size {
		*buf = make([]byte, max(size, 4<<10))
	}
	data := (*buf)[:size]
	n, err := readPrefix(path, data)
	if err != nil {
		return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
	}
	m, diags := parseMemory(path, fi.File, data[:n])
	m.ModTime, m.Size = fi.ModTime, fi.Size
	return m, diags, nil
}

// errNotRegular refuses a memory file that is not a regular file.
var errNotRegular = fastio.ErrNotRegular

// list returns the names of the topic files in the directory, without their stamps: what a
// cold build starts from, taking each file's stamp when it opens it (see loadStat).
func (s DirSource) list() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("recall: scan %s: %w", s.Dir, err)
	}
	out := make([]string, 0, len(entries))
	for _, e := range entries {
		if name := e.Name(); isTopicFile(name) && e.Type().IsRegular() {
			out = append(out, name)
		}
	}
	return out, nil
}

// loadStat is DirSource.Load reading the file into *buf (see loadKnown), its stamp taken from
// the open file: for a file listed but not yet stat'ed.
func (s DirSource) loadStat(file string, buf *[]byte) (memdir.Memory, []memdir.Diagnostic, error) {
	path := filepath.Join(s.Dir, file)
	data, mod, size, err := readStat(path, buf, MaxIndexedBytes)
	if err != nil {
		return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
	}
	m, diags := parseMemory(path, file, data)
	m.ModTime, m.Size = mod, size
	return m, diags, nil
}

func readMemory(path, file string, limit int64) (memdir.Memory, []memdir.Diagnostic, error) {
	f, fi, err := fsutil.OpenRegular(path, math.MaxInt64) // a FIFO is refused, not waited on; cut below
	if err != nil {
		return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
	}
	defer f.Close()
	data := make([]byte, min(fi.Size(), limit))
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
	}
	m, diags := parseMemory(path, file, data[:n])
	m.ModTime, m.Size = fi.ModTime(), fi.Size()
	return m, diags, nil
}

// HeaderLines is how much of each file the manifest reads: the frontmatter lives there.
const HeaderLines = 30

// ReadHeader reads only the first HeaderLines lines of a memory file and parses them, which is
// enough for its name, type and description. Memory.Body then holds at most the start of the
// body; Size and ModTime are the whole file's.
func ReadHeader(path, file string) (memdir.Memory, []memdir.Diagnostic, error) {
	f, fi, err := fsutil.OpenRegular(path, math.MaxInt64) // only the head is read
	if err != nil {
		return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
	}
	defer f.Close()
	var b strings.Builder
	r := bufio.NewReader(io.LimitReader(f, 64<<10))
	for range HeaderLines {
		line, err := r.ReadString('\n')
		b.WriteString(line)
		if err != nil {
			if err != io.EOF {
				return memdir.Memory{}, nil, fmt.Errorf("recall: read %s: %w", path, err)
			}
			break
		}
	}
	m, diags := memdir.ParseFile(path, file, []byte(b.String()))
	m.ModTime, m.Size = fi.ModTime(), fi.Size()
	return m, diags, nil
}

// LoadHeaders reads the header of every topic file in dir (see ReadHeader), newest first.
// Files that cannot be read are reported in the returned diagnostics and left out.
func LoadHeaders(ctx context.Context, dir string) ([]memdir.Memory, []memdir.Diagnostic, error) {
	infos, err := DirSource{Dir: dir}.Scan(ctx)
	if err != nil {
		return nil, nil, err
	}
	var mems []memdir.Memory
	var diags []memdir.Diagnostic
	for _, fi := range infos {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		path := filepath.Join(dir, fi.File)
		m, d, err := ReadHeader(path, fi.File)
		if err != nil {
			diags = append(diags, memdir.Diagnostic{Path: path, Severity: memdir.SevError, Message: err.Error()})
			continue
		}
		diags = append(diags, d...)
		mems = append(mems, m)
	}
	SortNewest(mems)
	return mems, diags, nil
}

// SortNewest orders memories newest first (by file mtime, then name).
func SortNewest(mems []memdir.Memory) {
	sort.SliceStable(mems, func(i, j int) bool {
		if !mems[i].ModTime.Equal(mems[j].ModTime) {
			return mems[i].ModTime.After(mems[j].ModTime)
		}
		return mems[i].File < mems[j].File
	})
}
