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
	"unicode"
	"unicode/utf8"

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

// MaxFileBytes is the largest file a sync shares; a larger file stays local and is reported,
// and a larger file in the upstream's tree is not read (Report.Skipped).
const MaxFileBytes = memdir.MaxFileBytes

// MaxStoreBytes bounds the files a sync takes from the upstream's tree, in all: a larger tree
// is not merged (ErrStoreTooLarge).
const MaxStoreBytes = 256 << 20

// ErrStoreTooLarge is wrapped by the error returned when the files of the upstream's tree that
// a sync would take add up to more than MaxStoreBytes.
var ErrStoreTooLarge = errors.New("the upstream's store is larger than a sync takes")

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

// checkName is the one rule for which files of a store travel, in both directions: it says
// why the slash-separated path p (relative to the store) is not shared, or returns nil. A
// shared file is MEMORY.md, a Markdown file (topic files, daily logs under logs/, proposals
// under .inbox/, archived memories under .archive/) or an archive log (.archive/*.log), under
// a name of valid UTF-8 without control characters, backslashes or colons, no empty, "." or
// ".." component, no component longer than 255 bytes, no hidden component but a leading
// .archive/ or .inbox/, no component that is .git in any spelling (fsutil.IsGitName), and never a
// machine-local file (localOnly). A path from another replica's tree is hostile input: this is
// what keeps it out of the store's git directory and off the local-only files.
func checkName(p string) error {
	switch {
	case p == "" || len(p) > 1024:
		return errors.New("not a file name a store uses (empty or too long)")
	case !utf8.ValidString(p):
		return errors.New("the name is not valid UTF-8")
	case strings.ContainsAny(p, "\\:"):
		return errors.New("the name holds a backslash or a colon")
	}
	for _, r := range p {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return fmt.Errorf("the name holds the control character %U", r)
		}
	}
	parts := strings.Split(p, "/")
	for i, c := range parts {
		switch {
		case c == "" || c == "." || c == "..":
			return errors.New("the name has an empty, . or .. component")
		case len(c) > 255:
			return errors.New("a component of the name is longer than 255 bytes")
		case fsutil.IsGitName(c):
			return errors.New("a git directory is never written by a sync")
		case strings.HasPrefix(c, ".") && !(i == 0 && len(parts) > 1 && (c == memdir.ArchiveDir || c == memdir.InboxDir)):
			return errors.New("hidden files are not shared")
		}
	}
	if localOnly(p) {
		return errors.New("a machine-local file")
	}
	if p != memdir.IndexFile && !strings.HasSuffix(p, ".md") && !appendOnly(p) {
		return errors.New("not a memory file (only Markdown files and archive logs are shared)")
	}
	return nil
}

// Shared reports whether a file of a store (slash-separated, relative to the store) is shared
// through git (checkName). A file that is already tracked is shared too unless it is
// local-only.
func Shared(rel string) bool { return checkName(rel) == nil }

// admit keeps of another replica's tree only what a sync may take: shared names (checkName),
// regular files, each at most MaxFileBytes, by their sizes in git (never by reading them). The
// rest is returned as skipped. It fails with ErrStoreTooLarge when what it keeps adds up to more
// than MaxStoreBytes.
func admit(t tree, sizes map[string]int64) (tree, []Skipped, error) {
	out := make(tree, len(t))
	var skipped []Skipped
	var total int64
	for p, e := range t {
		err := checkName(p)
		switch {
		case err != nil:
		case e.mode != "100644" && e.mode != "100755":
			err = errors.New("not a regular file")
		case sizes[p] > MaxFileBytes:
			err = fmt.Errorf("%d bytes, more than the %d a sync takes (not read)", sizes[p], MaxFileBytes)
		}
		if err != nil {
			skipped = append(skipped, Skipped{File: p, Reason: "not taken from the upstream: " + err.Error()})
			continue
		}
		out[p] = e
		total += sizes[p]
	}
	sort.Slice(skipped, func(i, j int) bool { return skipped[i].File < skipped[j].File })
	if total > MaxStoreBytes {
		return nil, skipped, fmt.Errorf("memsync: %w: %d bytes of memory files, more than %d; not merged", ErrStoreTooLarge, total, MaxStoreBytes)
	}
	return out, skipped, nil
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
	t, _, err := g.lsTreeSizes(ctx, commit)
	return t, err
}

// lsTreeSizes lists the files of commit with their sizes in bytes, as git records them.
func (g *git) lsTreeSizes(ctx context.Context, commit string) (tree, map[string]int64, error) {
	t, sizes := tree{}, map[string]int64{}
	if commit == "" {
		return t, sizes, nil
	}
	out, err := g.run(ctx, nil, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 4 {
			return nil, nil, fmt.Errorf("memsync: git ls-tree: unexpected record %q", rec)
		}
		t[string(name)] = blob{mode: f[0], id: f[2]}
		if n, err := strconv.ParseInt(f[3], 10, 64); err == nil {
			sizes[string(name)] = n
		}
	}
	return t, sizes, nil
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
			if p == ".git" || strings.HasPrefix(d.Name(), ".") && !Shared(p+"/x.md") && !trackedUnder(head, p) {
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
