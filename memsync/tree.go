package memsync

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// blob is one file of a tree: its git mode and object id.
type blob struct {
	mode string // "100644", "100755", "120000" (a symlink's target), "160000" (a submodule)
	id   string
}

// tree is a commit's files, path (slash-separated, relative to the top) → blob.
type tree map[string]blob

// MaxFileBytes is the largest file a sync shares; a larger file stays local and is reported.
const MaxFileBytes = memdir.MaxFileBytes

// localOnly names the files of a store that are never shared, whatever is tracked: the write
// and sync locks, the watch state and recall's statistics (each machine's own), the dream's
// lock, the name map and the journal of a change in progress, the temp files of interrupted writes, and names git's path lists cannot carry (line
// breaks).
func localOnly(rel string) bool {
	base := path.Base(rel)
	if fsutil.IsTempName(base) || strings.ContainsAny(rel, "\n\r\x00") {
		return true
	}
	switch rel {
	case memdir.LockFile, memdir.WatchFile, ".recall-stats.json", ".consolidate-lock", memdir.NamesFile, memdir.JournalFile:
		return true
	}
	return false
}

// Shared reports whether a file of a store (slash-separated, relative to the store) is
// shared through git when it is not tracked yet: every regular file outside hidden
// directories, plus what .archive/ and .inbox/ hold (archived memories, the archive log,
// proposals), never a hidden file, a temp file or a lock. A file that is already tracked is
// shared too unless it is local-only.
func Shared(rel string) bool {
	if localOnly(rel) || rel == ".git" || strings.HasPrefix(rel, ".git/") {
		return false
	}
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ".") {
			continue
		}
		if i == 0 && len(parts) > 1 && (p == memdir.ArchiveDir || p == memdir.InboxDir) {
			continue
		}
		return false
	}
	return true
}

// hasher computes git object ids in the repository's object format.
type hasher struct{ sha256 bool }

// blobID is the git id of a blob holding data.
func (h hasher) blobID(data []byte) string {
	var d hash.Hash
	if h.sha256 {
		d = sha256.New()
	} else {
		d = sha1.New()
	}
	d.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	d.Write(data)
	return hex.EncodeToString(d.Sum(nil))
}

// lsTree lists the files of commit (nil for none).
func (g *git) lsTree(ctx context.Context, commit string) (tree, error) {
	t := tree{}
	if commit == "" {
		return t, nil
	}
	out, err := g.run(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", commit)
	if err != nil {
		return nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("memsync: git ls-tree: unexpected record %q", rec)
		}
		t[string(name)] = blob{mode: f[0], id: f[2]}
	}
	return t, nil
}

// scanned is the work tree as a sync sees it: the shared files with their ids, the content of
// those read (the stat cache spares the others), and their stamps.
type scanned struct {
	ids     map[string]string // path → blob id
	files   map[string][]byte // path → content, for the files read
	stamps  map[string]stamp
	skipped []Skipped // files that stay local (too large, not regular)
}

// Skipped is a file a sync left out, and why.
type Skipped struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// scanWorkTree finds every shared file of the work tree (and every tracked one that is not
// local-only) through root, reading only those whose stamp the cache does not vouch for.
func scanWorkTree(ctx context.Context, root *os.Root, head tree, h hasher, cache statCache) (scanned, error) {
	s := scanned{files: map[string][]byte{}, ids: map[string]string{}, stamps: map[string]stamp{}}
	err := fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			if p == "." {
				return err
			}
			s.skipped = append(s.skipped, Skipped{File: p, Reason: "cannot read: " + err.Error()})
			return nil
		}
		if p == "." {
			return nil
		}
		_, tracked := head[p]
		if d.IsDir() {
			if p == ".git" || strings.HasPrefix(d.Name(), ".") && !Shared(p+"/x") && !trackedUnder(head, p) {
				return fs.SkipDir
			}
			return nil
		}
		if !Shared(p) && !(tracked && !localOnly(p)) {
			return nil
		}
		if !d.Type().IsRegular() {
			s.skipped = append(s.skipped, Skipped{File: p, Reason: "not shared: it is " + fsutil.Kind(d.Type())})
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // removed while we looked
		}
		st := stampOf(fi)
		if id, ok := cache.lookup(p, st); ok {
			s.ids[p], s.stamps[p] = id, st
			return nil
		}
		data, err := fsutil.ReadRegularIn(root, p, MaxFileBytes)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we looked
			}
			s.skipped = append(s.skipped, Skipped{File: p, Reason: err.Error()})
			return nil
		}
		s.files[p], s.ids[p], s.stamps[p] = data, h.blobID(data), st
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("memsync: read the work tree: %w", err)
	}
	sort.Slice(s.skipped, func(i, j int) bool { return s.skipped[i].File < s.skipped[j].File })
	return s, nil
}

// content returns a scanned file's bytes, reading it when the cache spared it (and taking the
// id of what was read).
func (s *scanned) content(root *os.Root, p string, h hasher) ([]byte, error) {
	if data, ok := s.files[p]; ok {
		return data, nil
	}
	data, err := fsutil.ReadRegularIn(root, p, MaxFileBytes)
	if err != nil {
		return nil, err
	}
	s.files[p], s.ids[p] = data, h.blobID(data)
	return data, nil
}

// trackedUnder reports whether head tracks a file under directory dir.
func trackedUnder(head tree, dir string) bool {
	for p := range head {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}
