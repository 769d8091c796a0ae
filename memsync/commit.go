package memsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

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

// String is the file, line and kind, as the CLI prints it.
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
	user     who    // the git user: committer, and author of what has no author
}

// localChanges compares the work tree with commit head: the changes to commit, the files held
// back for secrets, and what the scan skipped.
func (r *repo) localChanges(ctx context.Context, root *os.Root, head tree) ([]change, []Held, []Skipped, map[string]bool, error) {
	cache := loadStatCache(r.gitDir)
	started := time.Now()
	sc, err := scanWorkTree(ctx, root, head, r.h, cache)
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
		data, err := sc.content(root, p, r.h)
		if err != nil {
			sc.skipped = append(sc.skipped, Skipped{File: p, Reason: err.Error()})
			delete(sc.ids, p)
			continue
		}
		if id = sc.ids[p]; tracked && e.id == id {
			continue // the cache was stale, the file is as committed
		}
		if f := memdir.ScanSecrets(string(data)); len(f) > 0 {
			held = append(held, Held{File: p, Line: f[0].Line, Kind: f[0].Kind})
			heldFiles[p] = true
			continue
		}
		mode := "100644"
		if tracked && e.mode == "100755" {
			mode = e.mode
		}
		changes = append(changes, change{path: p, data: data, id: id, mode: mode, author: authorOf(p, data)})
	}
	if err := saveStatCache(r.gitDir, started, sc.stamps, sc.ids); err != nil {
		r.log.Debug("memsync: stat cache not written", "err", err)
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
	commits := make([]newCommit, len(authors))
	for i, a := range authors {
		cs := groups[a]
		files := make([]string, len(cs))
		for j, c := range cs {
			files[j] = c.path
		}
		commits[i] = newCommit{author: a, message: commitMessage(files, a), changes: cs}
		rep.Committed = append(rep.Committed, Commit{Author: a, Files: files})
	}
	if head != "" {
		commits[0].parents = []string{head}
	}
	ids, err := r.writeCommits(ctx, commits)
	if err != nil {
		rep.Committed = rep.Committed[:len(rep.Committed)-len(commits)]
		return "", nil, nil, err
	}
	for i, id := range ids {
		rep.Committed[len(rep.Committed)-len(ids)+i].ID = id
	}
	head = ids[len(ids)-1]
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
