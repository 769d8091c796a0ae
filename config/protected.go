package config

import (
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// Protected reports why a write to the absolute path p must always be asked about, or "" when
// it need not: a write there can change what git runs (a git directory: fsutil.InGitDir), what
// strata or Claude Code may do (.claude/settings*.json, hooks, the settings and approvals
// under STRATA_HOME, managed policy). Callers pass the path as named
// and as resolved, and ask when either is protected.
func (e Env) Protected(p string) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if fsutil.InGitDir("", p) {
		return "it is in a git directory (.git in any spelling, or where a .git file points), which git reads its configuration and hooks from"
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, c := range parts {
		switch {
		case strings.EqualFold(c, ".claude") && i+1 < len(parts):
			next := strings.ToLower(parts[i+1])
			if next == "hooks" || i+2 == len(parts) && strings.HasPrefix(next, "settings") && strings.HasSuffix(next, ".json") {
				return "it is a settings or hooks file of .claude"
			}
		}
	}
	if e.ManagedDir != "" && within(e.ManagedDir, p) {
		return "it is managed policy"
	}
	if e.Home != "" && within(e.Home, p) {
		rel, _ := filepath.Rel(e.Home, p)
		rel = strings.ToLower(filepath.ToSlash(rel))
		if !strings.Contains(rel, "/") && strings.HasPrefix(rel, "settings") && strings.HasSuffix(rel, ".json") ||
			rel == "hooks" || strings.HasPrefix(rel, "hooks/") ||
			strings.HasPrefix(rel, "projects/") && strings.HasSuffix(rel, "/approved-local-rules.json") {
			return "it is strata's own settings, hooks or approvals (STRATA_HOME)"
		}
	}
	return ""
}

// within reports whether p is dir or lies under it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
