package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// InboxArchiveDir is where rejected proposals go, relative to the memory dir.
const InboxArchiveDir = memdir.ArchiveDir + "/inbox"

// Staged is one proposal waiting in memory/.inbox/.
type Staged struct {
	File        string    `json:"file"`              // the topic file it becomes when accepted, e.g. "deploy.md"
	Path        string    `json:"path"`              // absolute path of the staged copy
	Name        string    `json:"name"`              // frontmatter name
	Description string    `json:"description"`       // frontmatter description
	Type        string    `json:"type"`              // frontmatter type
	Modified    time.Time `json:"modified"`          // when it was staged (file mtime)
	Size        int64     `json:"size"`              // bytes
	Replaces    bool      `json:"replaces"`          // a live memory file of that name exists
	Problem     string    `json:"problem,omitempty"` // why Accept would refuse it, "" when it would not
}

// Inbox lists the proposals in memory/.inbox/ (*.md files, hidden and temp files skipped),
// sorted by file. A missing memory dir or inbox lists nothing. A proposal that breaks a rule
// of Confined (or is not a regular file) is listed with its Problem, so the user can see and
// reject it.
func Inbox(ctx context.Context, store *memdir.Store) ([]Staged, error) {
	root, err := os.OpenRoot(store.Dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("extract: inbox: %w", err)
	}
	defer root.Close()
	d, err := root.Open(memdir.InboxDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("extract: inbox %s: %w", filepath.Join(store.Dir(), memdir.InboxDir), err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("extract: inbox %s: %w", filepath.Join(store.Dir(), memdir.InboxDir), err)
	}
	sort.Strings(names)
	var out []Staged
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ".md") {
			continue
		}
		rel := memdir.InboxDir + "/" + n
		st := Staged{File: n, Path: filepath.Join(store.Dir(), memdir.InboxDir, n)}
		if fi, err := root.Lstat(rel); err == nil {
			st.Modified, st.Size = fi.ModTime(), fi.Size()
		}
		if _, err := root.Lstat(n); err == nil {
			st.Replaces = true
		}
		data, ok, err := readRegular(root, rel)
		switch {
		case err != nil:
			st.Problem = err.Error()
		case !ok:
			continue // removed while we looked
		default:
			m, _ := memdir.ParseFile(st.Path, n, data)
			st.Name, st.Description, st.Type = m.Name, m.Description, string(m.Type)
			if _, err := resolveName([]string{store.Dir()}, n); err != nil {
				st.Problem = err.Error()
			} else if _, err := checkContent(string(data)); err != nil {
				st.Problem = err.Error()
			} else if err := checkDuplicate(ctx, store, n, m.Name); err != nil {
				st.Problem = err.Error()
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// stagedName maps what the user typed ("deploy.md", "deploy", ".inbox/deploy.md", or the
// staged file's absolute path) to the staged file's name.
func stagedName(store *memdir.Store, file string) (string, error) {
	f := filepath.ToSlash(file)
	f = strings.TrimPrefix(f, filepath.ToSlash(filepath.Join(store.Dir(), memdir.InboxDir))+"/")
	f = strings.TrimPrefix(strings.TrimPrefix(f, "./"), memdir.InboxDir+"/")
	if !strings.HasSuffix(f, ".md") {
		f += ".md"
	}
	name, err := resolveName([]string{store.Dir()}, f)
	if err != nil {
		return "", fmt.Errorf("extract: inbox: %w: %q: %v", ErrDenied, file, err)
	}
	return name, nil
}

// Accepted says what Accept did.
type Accepted struct {
	memdir.Result
	// Kept is where the live file the proposal replaced was kept, relative to the memory dir
	// ("" for a new memory): `strata memory restore` (memdir.Store.Restore of the replace
	// record logged) puts it back.
	Kept string
}

// Accept makes the proposal file live: under the store's lock its content is checked by the
// rules of Confined (a refusal wraps ErrDenied), written atomically over (or as) the topic
// file of that name, MEMORY.md brought in step, and the staged copy removed. A live file it
// replaces is first kept in the archive (memdir.Tx.KeepVersion) and a replace record logged,
// so the user's version is never lost and Restore swaps it back. If the index refuses the
// change the live file is put back, the kept copy removed, and the proposal stays in the
// inbox. The error wraps fs.ErrNotExist when there is no such proposal.
func Accept(ctx context.Context, store *memdir.Store, file string) (Accepted, error) {
	name, err := stagedName(store, file)
	if err != nil {
		return Accepted{}, err
	}
	src := memdir.InboxDir + "/" + name
	var res Accepted
	now := store.Now()
	err = store.Locked(ctx, func(tx *memdir.Tx) error {
		root := tx.Root()
		data, ok, err := readRegular(root, src)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no proposal %s in the inbox: %w", name, fs.ErrNotExist)
		}
		meta, err := checkContent(string(data))
		if err != nil {
			return err
		}
		if err := checkDuplicate(ctx, store, name, meta.Name); err != nil {
			return err
		}
		old, existed, err := readRegular(root, name)
		if err != nil {
			return err
		}
		drop := func() error { return nil }
		var kept memdir.ArchiveRecord
		if existed {
			rec, d, ok, err := tx.KeepVersion(name, now, "replaced by the inbox proposal "+src+" (accepted)")
			if err != nil {
				return err
			}
			if ok {
				kept, drop = rec, d
			}
		}
		if err := writeAtomic(root, name, data); err != nil {
			return errors.Join(fmt.Errorf("write %s: %w", name, err), drop())
		}
		changed, err := tx.Reindex(ctx, name)
		if err != nil {
			back := errors.Join(restoreFile(root, name, old, existed), drop())
			if back == nil && (errors.Is(err, memdir.ErrIndexFull) || errors.Is(err, memdir.ErrSecret)) {
				return refuse("%s; the live file was put back and the proposal stays in the inbox", strings.TrimPrefix(err.Error(), "memdir: "))
			}
			return errors.Join(err, back)
		}
		res = Accepted{Result: memdir.Result{File: name, Path: filepath.Join(store.Dir(), name), Created: !existed, Index: changed, Name: meta.Name}}
		if kept.ArchivedTo != "" {
			if err := memdir.AppendArchiveLog(store.Dir(), kept); err != nil {
				return fmt.Errorf("accepted, but the archive log of the replaced file (kept in %s) failed: %w", kept.ArchivedTo, err)
			}
			res.Kept = kept.ArchivedTo
		}
		if err := root.Remove(src); err != nil {
			return fmt.Errorf("accepted, but the staged copy %s could not be removed: %w", src, err)
		}
		return nil
	})
	var r *refusal
	if errors.As(err, &r) {
		return Accepted{}, fmt.Errorf("extract: accept %s: %w: %s", name, ErrDenied, r.reason)
	}
	if err != nil {
		return res, fmt.Errorf("extract: accept %s: %w", name, err)
	}
	return res, nil
}

// Reject moves the proposal to .archive/inbox/ (with a timestamp when the name is taken there)
// and appends a "reject" line to .archive/ARCHIVE.log; nothing is deleted. It returns where the
// proposal went, relative to the memory dir. The error wraps fs.ErrNotExist when there is no
// such proposal.
func Reject(ctx context.Context, store *memdir.Store, file string) (string, error) {
	name, err := stagedName(store, file)
	if err != nil {
		return "", err
	}
	src := memdir.InboxDir + "/" + name
	var dest string
	now := store.Now()
	err = store.Locked(ctx, func(tx *memdir.Tx) error {
		root := tx.Root()
		if _, err := root.Lstat(src); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("no proposal %s in the inbox: %w", name, fs.ErrNotExist)
		} else if err != nil {
			return err
		}
		for _, d := range []string{memdir.ArchiveDir, InboxArchiveDir} {
			if err := ensureDir(root, d); err != nil {
				return err
			}
		}
		dest = InboxArchiveDir + "/" + name
		if _, err := root.Lstat(dest); err == nil {
			dest = InboxArchiveDir + "/" + strings.TrimSuffix(name, ".md") + "." + now.UTC().Format("20060102T150405.000000000Z") + ".md"
		}
		if err := root.Rename(src, dest); err != nil {
			return err
		}
		return appendArchiveLog(store.Dir(), now, Action{Kind: "reject", File: src, ArchivedTo: dest, Reason: "proposal rejected in the inbox"}, nil)
	})
	var r *refusal
	if errors.As(err, &r) {
		return "", fmt.Errorf("extract: reject %s: %w: %s", name, ErrDenied, r.reason)
	}
	if err != nil {
		return "", fmt.Errorf("extract: reject %s: %w", name, err)
	}
	return dest, nil
}

// ReadStaged returns the content of one proposal (named as for Accept), read through the
// memory dir's root: a staged symlink or special file is refused, never followed. The error
// wraps fs.ErrNotExist when there is no such proposal.
func ReadStaged(ctx context.Context, store *memdir.Store, file string) ([]byte, error) {
	name, err := stagedName(store, file)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(store.Dir())
	if err != nil {
		return nil, fmt.Errorf("extract: inbox: %w", err)
	}
	defer root.Close()
	data, ok, err := readRegular(root, memdir.InboxDir+"/"+name)
	var r *refusal
	if errors.As(err, &r) {
		return nil, fmt.Errorf("extract: inbox: %w: %s", ErrDenied, r.reason)
	}
	if err != nil {
		return nil, fmt.Errorf("extract: inbox: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("extract: inbox: no proposal %s in %s: %w", name, filepath.Join(store.Dir(), memdir.InboxDir), fs.ErrNotExist)
	}
	return data, nil
}
