package transcript

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/internal/fastio"
)

// GitBranch returns the git branch checked out in the repository that holds dir, as Claude
// Code records it in each entry's gitBranch: the branch's name ("feature/x"), "HEAD" when the
// head is detached, "" outside a repository. It reads HEAD itself, never runs git: a
// repository's .git directory, or the gitdir a worktree's (or submodule's) .git file names. A
// HEAD that is not a regular file, or is larger than a few KB, reads as no repository.
func GitBranch(dir string) string {
	head := gitHeadPath(dir)
	if head == "" {
		return ""
	}
	return branchOfHead(head)
}

// gitHeadPath returns the HEAD file of the repository that holds dir, or "".
func gitHeadPath(dir string) string {
	if dir == "" {
		return ""
	}
	dir = filepath.Clean(dir)
	var buf []byte
	for {
		dotgit := filepath.Join(dir, ".git")
		if st, err := fastio.StatPath(dotgit, false); err == nil {
			switch {
			case st.Mode.IsDir():
				return filepath.Join(dotgit, "HEAD")
			case st.Mode.IsRegular():
				// A worktree or submodule: "gitdir: <path>", relative to dir when not absolute.
				data, _, err := fastio.ReadHead(dotgit, &buf, 4<<10)
				if err != nil {
					return ""
				}
				line, _, _ := bytes.Cut(data, []byte("\n"))
				gd, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir:")
				if !ok {
					return ""
				}
				gd = strings.TrimSpace(gd)
				if !filepath.IsAbs(gd) {
					gd = filepath.Join(dir, gd)
				}
				return filepath.Join(gd, "HEAD")
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// branchOfHead reads a HEAD file: "ref: refs/heads/<branch>" names the branch, an object id
// is a detached head ("HEAD", as git rev-parse --abbrev-ref says).
func branchOfHead(head string) string {
	var buf []byte
	data, _, err := fastio.ReadHead(head, &buf, 4<<10)
	if err != nil {
		return ""
	}
	s := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		if b, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
			return b
		}
		return ref
	}
	if s == "" {
		return ""
	}
	return "HEAD"
}
