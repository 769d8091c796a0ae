package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/strata-mem/strata/frontmatter"
	"github.com/strata-mem/strata/memdir"
)

// Commit is one commit a sync made of local changes: one per author.
type Commit struct {
	ID     string   `json:"id"`
	Author string   `json:"author"` // "" for the git user
	Files  []string `json:"files"`
}

// Held is a changed file a sync did not commit, because its text looks like a secret.
type Held struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Kind string `json:"kind"`
}

func (h Held) String() string {
	return fmt.Sprintf("%s:%d: looks like a secret (%s)", h.File, h.Line, h.Kind)
}

// change is one file of the work tree that differs from the last commit.
type change struct {
	path   string
	data   []byte // nil: deleted
	id     string
	mode   string
	author string
}

// repo is one store's repository during a sync.
type repo struct {
	*git
	gitDir   string
	branch   string // refs/heads/<name>
	tracking string // the upstream's remote-tracking ref, refs/remotes/<remote>/<name>
	h        hasher
	zero     string // the all-zero object id
}

// localChanges compares the work tree with commit head: the changes to commit, the files held
// back for secrets, and what the scan skipped.
func (r *repo) localChanges(ctx context.Context, root *os.Root, head tree) ([]change, []Held, []Skipped, map[string]bool, error) {
	sc, err := scanWorkTree(ctx, root, head, r.h)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	skipped := map[string]bool{}
	for _, s := range sc.skipped {
		skipped[s.File] = true
	}
	var changes []change
	var held []Held
	heldFiles := map[string]bool{}
	for p, id := range sc.ids {
		e, tracked := head[p]
		if tracked && e.id == id {
			continue
		}
		if f := memdir.ScanSecrets(string(sc.files[p])); len(f) > 0 {
			held = append(held, Held{File: p, Line: f[0].Line, Kind: f[0].Kind})
			heldFiles[p] = true
			continue
		}
		mode := "100644"
		if tracked && e.mode == "100755" {
			mode = e.mode
		}
		changes = append(changes, change{path: p, data: sc.files[p], id: id, mode: mode, author: authorOf(p, sc.files[p])})
	}
	for p, e := range head {
		if _, ok := sc.ids[p]; ok || skipped[p] || localOnly(p) || e.mode == "160000" {
			continue
		}
		if _, err := root.Lstat(filepath.FromSlash(p)); err == nil {
			continue // there, but not shared (a symlink, say): not a deletion
		}
		changes = append(changes, change{path: p, author: ""})
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })
	sort.Slice(held, func(i, j int) bool { return held[i].File < held[j].File })
	return changes, held, sc.skipped, heldFiles, nil
}

// authorOf is the frontmatter author of a topic file ("" when it has none: the git user).
func authorOf(p string, data []byte) string {
	if !memdir.IsTopicFile(p) {
		return ""
	}
	doc, _ := frontmatter.Parse(data)
	a := strings.TrimSpace(doc.MetaString("author"))
	if strings.ContainsAny(a, "\n\r\x00") || len(a) > 200 {
		return ""
	}
	return a
}

// ident splits "Name <email>" (or a bare name) for GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL.
func ident(author string) (name, email string) {
	if i := strings.IndexByte(author, '<'); i >= 0 && strings.HasSuffix(author, ">") {
		return strings.TrimSpace(author[:i]), strings.TrimSpace(author[i+1 : len(author)-1])
	}
	return author, ""
}

// writeBlobs stores the contents of the files at paths (relative to the work tree) as objects
// and checks that git stored what the sync read (want: path → id); a file changed in between
// fails the sync, which the next run repeats.
func (r *repo) writeBlobs(ctx context.Context, paths []string, want map[string]string) error {
	if len(paths) == 0 {
		return nil
	}
	out, err := r.run(ctx, []byte(strings.Join(paths, "\n")+"\n"), "hash-object", "-w", "--no-filters", "--stdin-paths")
	if err != nil {
		return err
	}
	ids := strings.Fields(string(out))
	if len(ids) != len(paths) {
		return fmt.Errorf("memsync: git hash-object returned %d ids for %d files", len(ids), len(paths))
	}
	for i, p := range paths {
		if ids[i] != want[p] {
			return fmt.Errorf("memsync: %s changed while it was being synced; run the sync again", p)
		}
	}
	return nil
}

// indexEnv points git at the sync's own index file, so the user's index is never used as input.
func (r *repo) indexEnv() []string {
	return []string{"GIT_INDEX_FILE=" + filepath.Join(r.gitDir, "strata-sync.index")}
}

// buildTree returns the tree of commit parent (none: empty) with changes applied.
func (r *repo) buildTree(ctx context.Context, parent string, changes []change) (string, error) {
	env := r.indexEnv()
	args := []string{"read-tree", "--empty"}
	if parent != "" {
		args = []string{"read-tree", parent}
	}
	if _, err := r.runEnv(ctx, r.timeout, env, nil, args...); err != nil {
		return "", err
	}
	var in strings.Builder
	for _, c := range changes {
		if c.data == nil && c.id == "" {
			fmt.Fprintf(&in, "0 %s\t%s\x00", r.zero, c.path)
		} else {
			fmt.Fprintf(&in, "%s %s\t%s\x00", c.mode, c.id, c.path)
		}
	}
	if _, err := r.runEnv(ctx, r.timeout, env, []byte(in.String()), "update-index", "-z", "--add", "--remove", "--index-info"); err != nil {
		return "", err
	}
	out, err := r.runEnv(ctx, r.timeout, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// commitTree makes a commit of tree with parents, message and author ("" for the git user).
func (r *repo) commitTree(ctx context.Context, tree string, parents []string, msg, author string) (string, error) {
	args := []string{"commit-tree", "--no-gpg-sign", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-F", "-")
	var env []string
	if author != "" {
		name, email := ident(author)
		env = append(env, "GIT_AUTHOR_NAME="+name, "GIT_AUTHOR_EMAIL="+email)
	}
	out, err := r.runEnv(ctx, r.timeout, env, []byte(msg+"\n"), args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// commitLocal commits the work tree's changes on the branch, one commit per author (frontmatter
// author of the topic files changed; the git user's last, with everything that has no author:
// deletions, MEMORY.md, archives, proposals). Files that look like they hold a secret are not
// committed (held). It returns the new head and its tree.
func (r *repo) commitLocal(ctx context.Context, root *os.Root, rep *Report, head string) (string, tree, map[string]bool, error) {
	ht, err := r.lsTree(ctx, head)
	if err != nil {
		return "", nil, nil, err
	}
	changes, heldList, skipped, held, err := r.localChanges(ctx, root, ht)
	if err != nil {
		return "", nil, nil, err
	}
	rep.HeldBack = mergeHeld(rep.HeldBack, heldList)
	rep.Skipped = skipped
	if len(changes) == 0 {
		return head, ht, held, nil
	}
	var paths []string
	want := map[string]string{}
	for _, c := range changes {
		if c.data != nil {
			paths = append(paths, c.path)
			want[c.path] = c.id
		}
	}
	if err := r.writeBlobs(ctx, paths, want); err != nil {
		return "", nil, nil, err
	}
	groups := map[string][]change{}
	for _, c := range changes {
		groups[c.author] = append(groups[c.author], c)
	}
	authors := make([]string, 0, len(groups))
	for a := range groups {
		authors = append(authors, a)
	}
	sort.Slice(authors, func(i, j int) bool { // the git user's ("") last
		if (authors[i] == "") != (authors[j] == "") {
			return authors[j] == ""
		}
		return authors[i] < authors[j]
	})
	old := head
	for _, a := range authors {
		cs := groups[a]
		tree, err := r.buildTree(ctx, head, cs)
		if err != nil {
			return "", nil, nil, err
		}
		var parents []string
		if head != "" {
			parents = []string{head}
		}
		files := make([]string, len(cs))
		for i, c := range cs {
			files[i] = c.path
		}
		id, err := r.commitTree(ctx, tree, parents, commitMessage(files, a), a)
		if err != nil {
			return "", nil, nil, err
		}
		head = id
		rep.Committed = append(rep.Committed, Commit{ID: id, Author: a, Files: files})
	}
	if err := r.updateRef(ctx, head, old, "strata memory sync: commit local changes"); err != nil {
		return "", nil, nil, err
	}
	return head, applyChanges(ht, changes), held, nil
}

// applyChanges returns t with changes made.
func applyChanges(t tree, changes []change) tree {
	out := make(tree, len(t)+len(changes))
	for p, e := range t {
		out[p] = e
	}
	for _, c := range changes {
		if c.id == "" {
			delete(out, c.path)
		} else {
			out[c.path] = blob{mode: c.mode, id: c.id}
		}
	}
	return out
}

// mergeHeld adds the held files of a later scan to those of an earlier one.
func mergeHeld(a, b []Held) []Held {
	seen := map[string]bool{}
	for _, h := range a {
		seen[h.File] = true
	}
	for _, h := range b {
		if !seen[h.File] {
			a = append(a, h)
		}
	}
	return a
}

// commitMessage says what a commit of local changes holds.
func commitMessage(files []string, author string) string {
	subject := fmt.Sprintf("memory: %d file(s)", len(files))
	if len(files) == 1 {
		subject = "memory: " + files[0]
	}
	if author != "" {
		subject += " (by " + author + ")"
	}
	var b strings.Builder
	b.WriteString(subject + "\n\n")
	for _, f := range files {
		b.WriteString(f + "\n")
	}
	b.WriteString("\nCommitted by strata memory sync.")
	return b.String()
}

// updateRef moves the branch from old ("" when unborn) to id, failing if it moved meanwhile.
func (r *repo) updateRef(ctx context.Context, id, old, msg string) error {
	if old == "" {
		old = r.zero
	}
	_, err := r.run(ctx, nil, "update-ref", "-m", msg, r.branch, id, old)
	return err
}
