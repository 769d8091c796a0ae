package memsync

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// merge brings the upstream commit into the branch, under the store's lock held by tx: local
// changes made since the last commit are committed first, then the merge is planned
// (planMerge), written to the work tree, MEMORY.md rebuilt through memdir's Reindex, and
// committed as a merge of both histories (or the branch fast-forwards when it has nothing of
// its own). It returns the branch's new commit.
func (r *repo) merge(ctx context.Context, tx *memdir.Tx, head, upstream string, rep *Report, progress func(string, ...any)) (string, error) {
	root := tx.Root()
	local, ot, held, err := r.commitLocal(ctx, root, rep, head)
	if err != nil {
		return "", err
	}
	if upstream == "" || local == upstream {
		return local, nil
	}
	base := ""
	if local != "" {
		out, err := r.run(ctx, nil, "merge-base", local, upstream)
		switch {
		case err == nil:
			base = strings.TrimSpace(string(out))
		case exitCode(err) != 1: // 1: unrelated histories, merged against nothing
			return "", err
		}
		if base == upstream {
			return local, nil // the upstream has nothing new
		}
	}
	progress("merging %s", rep.Upstream)
	// The upstream's tree (and the base, which came from it) is hostile input: only the files
	// admit lets through are planned on, read or written.
	rawBase, baseSizes := ot, map[string]int64{}
	if base != local {
		if rawBase, baseSizes, err = r.lsTreeSizes(ctx, base); err != nil {
			return "", err
		}
	}
	rawTheirs, sizes, err := r.lsTreeSizes(ctx, upstream)
	if err != nil {
		return "", err
	}
	bt, _, err := admit(rawBase, baseSizes)
	if err != nil {
		return "", err
	}
	tt, refused, err := admit(rawTheirs, sizes)
	if err != nil {
		return "", err
	}
	for _, s := range refused {
		if rawBase[s.File] != rawTheirs[s.File] {
			rep.Skipped = append(rep.Skipped, s)
		}
	}
	ot, _, _ = admit(ot, nil) // only sizes can fail it
	content, err := r.readBlobs(ctx, needContent(bt, ot, tt))
	if err != nil {
		return "", err
	}
	in := mergeInput{base: bt, ours: ot, theirs: tt, content: content, held: held,
		origin: func(p string) string { return r.origin(ctx, p, tt, content, base, upstream) }}
	pl := planMerge(in)
	if err := r.applyWorkTree(ctx, tx, pl, ot, held, rep); err != nil {
		return "", err
	}
	changes, err := r.treeChanges(ctx, root, pl, ot, held)
	if err != nil {
		return "", err
	}
	rep.Conflicts = append(rep.Conflicts, pl.conflicts...)
	if (local == "" || base == local) && len(tt) == len(rawTheirs) && sameTree(applyChanges(ot, changes), tt) {
		rep.FastForward = true
		return upstream, r.updateRef(ctx, upstream, local, "strata memory sync: fast-forward to "+rep.Upstream)
	}
	parents := []string{upstream}
	if local != "" {
		parents = []string{local, upstream}
	}
	msg := fmt.Sprintf("Merge %s into %s (strata memory sync)", rep.Upstream, rep.Branch)
	if len(pl.conflicts) > 0 {
		msg += "\n\nKept both versions of:\n"
		for _, c := range pl.conflicts {
			msg += "  " + c.File + " (" + c.Kind + ")\n"
		}
	}
	if local == "" { // a root merge: the commit is upstream's tree plus the changes
		changes = treeDiff(rawTheirs, applyChanges(ot, changes))
	}
	ids, err := r.writeCommits(ctx, []newCommit{{parents: parents, message: msg, changes: changes}})
	if err != nil {
		return "", err
	}
	rep.Merge = ids[0]
	return ids[0], nil
}

// treeDiff lists the changes that make tree from into tree to.
func treeDiff(from, to tree) []change {
	var out []change
	for p, e := range to {
		if f, ok := from[p]; !ok || f != e {
			out = append(out, change{path: p, id: e.id, mode: e.mode})
		}
	}
	for p := range from {
		if _, ok := to[p]; !ok {
			out = append(out, change{path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

// sameTree reports whether two trees hold the same files.
func sameTree(a, b tree) bool {
	if len(a) != len(b) {
		return false
	}
	for p, e := range a {
		if b[p] != e {
			return false
		}
	}
	return true
}

// origin names who made the upstream's version of file p: its frontmatter author, else the
// author of the newest upstream commit (not in base) that changed it.
func (r *repo) origin(ctx context.Context, p string, theirs tree, content map[string][]byte, base, upstream string) string {
	if e, ok := theirs[p]; ok {
		if a := authorOf(p, content[e.id]); a != "" {
			return a
		}
	}
	args := []string{"--literal-pathspecs", "log", "-1", "--format=%an", upstream}
	if base != "" {
		args = append(args, "--not", base)
	}
	name, err := r.line(ctx, append(args, "--", p)...)
	if err != nil || name == "" {
		return "upstream"
	}
	return name
}

// applyWorkTree makes the work tree what the plan says: files written (atomically, through the
// store's root) or removed where the merge changed them, files with an unshared local change
// left alone, and MEMORY.md started from the plan's side and brought in step, file by file,
// by memdir's Reindex.
func (r *repo) applyWorkTree(ctx context.Context, tx *memdir.Tx, pl mergePlan, ours tree, held map[string]bool, rep *Report) error {
	root := tx.Root()
	var writes []string
	var fetch []string
	for p, f := range pl.files {
		if held[p] {
			continue
		}
		if e, ok := ours[p]; ok && f.data == nil && e.id == f.blob.id {
			continue
		}
		writes = append(writes, p)
		if f.data == nil {
			fetch = append(fetch, f.blob.id)
		}
	}
	sort.Strings(writes)
	blobs, err := r.readBlobs(ctx, fetch)
	if err != nil {
		return err
	}
	rfs := fsutil.RootFS(root)
	for _, p := range writes {
		f := pl.files[p]
		data := f.data
		if data == nil {
			var ok bool
			if data, ok = blobs[f.blob.id]; !ok {
				return fmt.Errorf("memsync: %s: object %s is not a file", p, f.blob.id)
			}
		}
		if f.blob.mode == "120000" || f.blob.mode == "160000" || checkName(p) != nil {
			continue // symlinks, submodules and what is not shared are not written by a sync
		}
		fp, err := fsutil.NewPath(r.dir, p) // inside the store, no .git component, as resolved
		if err != nil {
			rep.Skipped = append(rep.Skipped, Skipped{File: p, Reason: "not written: " + err.Error()})
			continue
		}
		rel := filepath.FromSlash(fp.Rel())
		if dir := filepath.Dir(rel); dir != "." {
			if err := root.MkdirAll(dir, fsutil.DirMode); err != nil {
				return fmt.Errorf("memsync: write %s: %w", p, err)
			}
		}
		if err := fsutil.WriteFileFS(rfs, rel, data, fsutil.FileMode); err != nil {
			return fmt.Errorf("memsync: write %s: %w", p, err)
		}
		rep.Updated = append(rep.Updated, p)
	}
	var removes []string
	for p := range ours {
		if _, ok := pl.files[p]; !ok && !held[p] && p != memdir.IndexFile && checkName(p) == nil {
			removes = append(removes, p)
		}
	}
	sort.Strings(removes)
	for _, p := range removes {
		if err := root.Remove(filepath.FromSlash(p)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memsync: remove %s: %w", p, err)
		}
		rep.Updated = append(rep.Updated, p)
	}
	if held[memdir.IndexFile] {
		return nil
	}
	if _, ok := pl.files[memdir.IndexFile]; !ok && pl.indexFrom == "theirs" {
		if err := root.Remove(memdir.IndexFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("memsync: remove %s: %w", memdir.IndexFile, err)
		}
	}
	for _, p := range pl.reindex {
		if _, err := tx.Reindex(ctx, p); err != nil {
			rep.IndexProblems = append(rep.IndexProblems, fmt.Sprintf("%s: %v", p, err))
		}
	}
	return nil
}

// treeChanges lists how the merged tree differs from ours, with the blobs of new content
// (logs merged, MEMORY.md as Reindex left it in the work tree) written to the object store.
func (r *repo) treeChanges(ctx context.Context, root *os.Root, pl mergePlan, ours tree, held map[string]bool) ([]change, error) {
	var changes []change
	files := map[string]outFile{}
	for p, f := range pl.files {
		files[p] = f
	}
	if !held[memdir.IndexFile] {
		data, err := fsutil.ReadRegularIn(root, memdir.IndexFile, memdir.MaxWholeRead)
		switch {
		case err == nil:
			files[memdir.IndexFile] = outFile{data: data}
		case errors.Is(err, fs.ErrNotExist):
			delete(files, memdir.IndexFile)
		default:
			return nil, fmt.Errorf("memsync: read %s: %w", memdir.IndexFile, err)
		}
	}
	for p, f := range files {
		e, ok := ours[p]
		if f.data != nil {
			id := r.h.blobID(f.data)
			if ok && e.id == id {
				continue
			}
			changes = append(changes, change{path: p, data: f.data, id: id, mode: "100644"})
			continue
		}
		if ok && e.id == f.blob.id && e.mode == f.blob.mode {
			continue
		}
		changes = append(changes, change{path: p, id: f.blob.id, mode: f.blob.mode})
	}
	for p := range ours {
		if _, ok := files[p]; !ok {
			changes = append(changes, change{path: p})
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	return changes, nil
}
