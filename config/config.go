// Package config resolves where strata keeps its files (STRATA_HOME, STRATA_MANAGED_DIR) and
// what the settings say.
//
//   - Settings merge user, project, project-local and managed files, lowest first, with Claude
//     Code's key names; unknown keys are kept in Extra.
//   - Decoding is key by key (Load): a bad value drops that key only, with a KeyError naming
//     file, key and what is used instead; a misspelt key is warned with the closest name.
//   - A project's files set project preferences only: keys that reach beyond the project are
//     taken from user and managed settings alone (Scope.Trusted, ProjectAllowRefusal).
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// Env is the set of locations and variables strata reads from the environment. Tests build one
// by hand; programs call FromEnv.
type Env struct {
	Home       string // STRATA_HOME
	ManagedDir string // STRATA_MANAGED_DIR
	UserHome   string // HOME, for "~/" in imports and paths
	// Getenv reads other variables (provider keys, STRATA_MEMORY_DIR …). Nil means none set.
	Getenv func(string) string
}

// FromEnv reads the process environment.
func FromEnv() Env {
	uh, _ := os.UserHomeDir()
	e := Env{Home: os.Getenv("STRATA_HOME"), ManagedDir: os.Getenv("STRATA_MANAGED_DIR"), UserHome: uh, Getenv: os.Getenv}
	if e.Home == "" {
		e.Home = filepath.Join(uh, ".strata")
	}
	if e.ManagedDir == "" {
		e.ManagedDir = "/etc/strata"
	}
	e.Home = expandHome(e.Home, uh)
	e.ManagedDir = expandHome(e.ManagedDir, uh)
	return e
}

// Var returns the environment variable name, or "" when Getenv is nil.
func (e Env) Var(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

func expandHome(p, home string) string {
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// ProjectsDir is $STRATA_HOME/projects, where per-project memory and transcripts live.
func (e Env) ProjectsDir() string { return filepath.Join(e.Home, "projects") }

// CacheDir is the user's cache directory as this environment names it ($XDG_CACHE_HOME when
// absolute, else ~/.cache, ~/Library/Caches on macOS; "" without a home directory): where
// strata keeps what it can rebuild, never under STRATA_HOME.
func (e Env) CacheDir() string {
	if c := e.Var("XDG_CACHE_HOME"); filepath.IsAbs(c) {
		return c
	}
	switch {
	case e.UserHome == "":
		return ""
	case runtime.GOOS == "darwin":
		return filepath.Join(e.UserHome, "Library", "Caches")
	}
	return filepath.Join(e.UserHome, ".cache")
}

// Settings are the keys strata understands. A nil pointer or empty slice means "not set".
type Settings struct {
	// InstructionFiles lists the project instruction file names read in each directory, in order.
	// Default: CLAUDE.md, .claude/CLAUDE.md, AGENTS.md (CLAUDE.local.md is always read last).
	InstructionFiles []string `json:"instructionFiles,omitempty"`
	// ClaudeMdExcludes are doublestar globs on absolute paths of instruction files to skip,
	// from the user's and managed settings: they apply to every file but managed ones.
	ClaudeMdExcludes []string `json:"claudeMdExcludes,omitempty"`
	// ProjectClaudeMdExcludes are the claudeMdExcludes of a project's own settings files: they
	// skip only files inside the project, never the user's or managed instructions.
	ProjectClaudeMdExcludes []string `json:"-"`
	// ApprovedExternalImports are paths (or globs) outside the project and STRATA_HOME that
	// @imports may read.
	ApprovedExternalImports []string `json:"approvedExternalImports,omitempty"`
	// InstructionBudgetTokens caps the total instruction text; 0 means no cap.
	InstructionBudgetTokens int `json:"instructionBudgetTokens,omitempty"`

	AutoMemoryEnabled   *bool  `json:"autoMemoryEnabled,omitempty"`
	AutoMemoryDirectory string `json:"autoMemoryDirectory,omitempty"`
	// MemoryMode is "" (topic files) or "daily-log".
	MemoryMode string `json:"memoryMode,omitempty"`
	// MemoryIndexMaxLines and MemoryIndexMaxBytes are the limits of the MEMORY.md index
	// (loading cuts there; a write that would pass them fails); 0 means 200 lines, 25,000
	// characters. The "Bytes" limit counts characters as Claude Code does (UTF-16 code units);
	// the name is kept so existing settings files keep working.
	MemoryIndexMaxLines int `json:"memoryIndexMaxLines,omitempty"`
	MemoryIndexMaxBytes int `json:"memoryIndexMaxBytes,omitempty"`

	// MemoryExtraction says what the background extractor does at the end of a turn: "auto"
	// (the default: it writes memories), "confirm" (it stages them in memory/.inbox/ for
	// `strata memory inbox`), "read-only" (it may not write; nothing runs) or "off".
	MemoryExtraction string `json:"memoryExtraction,omitempty"`
	// MemoryExtractEvery runs extraction every N turns; 0 means every turn.
	MemoryExtractEvery int `json:"memoryExtractEvery,omitempty"`
	// SessionNotesEnabled turns the running session-notes file on or off (default on).
	SessionNotesEnabled *bool `json:"sessionNotesEnabled,omitempty"`
	// AutoDreamEnabled lets a session consolidate the memory dir in the background when a
	// dream is due (default on).
	AutoDreamEnabled *bool `json:"autoDreamEnabled,omitempty"`

	// MemoryForgetAfterDays and MemoryForgetAfterSessions are the dream's forgetting thresholds
	// (nil: the dream's defaults; 0 or less: never forget).
	MemoryForgetAfterDays     *int `json:"memoryForgetAfterDays,omitempty"`
	MemoryForgetAfterSessions *int `json:"memoryForgetAfterSessions,omitempty"`

	// CleanupPeriodDays archives transcripts older than this many days; 0 means never. At most
	// MaxDays; user and managed settings only.
	CleanupPeriodDays int `json:"cleanupPeriodDays,omitempty"`

	// MCPSessionTimeoutMinutes closes an HTTP session of `strata mcp` after this many minutes
	// without a request; 0 means the server's default. At most a week; user and managed
	// settings only (the server serves every project its clients name).
	MCPSessionTimeoutMinutes int `json:"mcpSessionTimeoutMinutes,omitempty"`

	Model         string `json:"model,omitempty"`
	SmallModel    string `json:"smallModel,omitempty"`
	Provider      string `json:"provider,omitempty"`
	ContextWindow int    `json:"contextWindow,omitempty"`

	// MemoryStores are the memory stores mounted besides the project's own (user and managed
	// settings only; see MemoryStore and Env.MemoryStores, which adds STRATA_MEMORY_STORES).
	MemoryStores []MemoryStore `json:"memoryStores,omitempty"`

	Permissions Permissions `json:"permissions,omitempty"`

	// Sandbox is how the Bash tool's commands are confined: "workspace-write" (the default:
	// they write only the project, the temp dirs and the build caches) or "off". User and
	// managed settings only.
	Sandbox string `json:"sandbox,omitempty"`
	// SandboxNetwork lets sandboxed Bash commands open TCP connections (default true). User and
	// managed settings only.
	SandboxNetwork *bool `json:"sandboxNetwork,omitempty"`

	// Extra holds every key strata does not know, so nothing is lost.
	Extra map[string]json.RawMessage `json:"-"`
}

// Permissions are allow/deny patterns such as "Bash(go test:*)" or "Edit(src/**)".
type Permissions struct {
	Allow       []string `json:"allow,omitempty"`
	Deny        []string `json:"deny,omitempty"`
	DefaultMode string   `json:"defaultMode,omitempty"`
}

// Sandbox modes (the sandbox setting).
const (
	SandboxWorkspaceWrite = "workspace-write"
	SandboxOff            = "off"
)

// SandboxOn reports whether the Bash tool's commands are confined (the default).
func (s Settings) SandboxOn() bool { return s.Sandbox != SandboxOff }

// SandboxNet reports whether sandboxed Bash commands may use the network (the default).
func (s Settings) SandboxNet() bool { return s.SandboxNetwork == nil || *s.SandboxNetwork }

// AutoMemory reports whether auto-memory is on (the default).
func (s Settings) AutoMemory() bool { return s.AutoMemoryEnabled == nil || *s.AutoMemoryEnabled }

// SessionNotes reports whether the running session-notes file is on (the default).
func (s Settings) SessionNotes() bool { return s.SessionNotesEnabled == nil || *s.SessionNotesEnabled }

// AutoDream reports whether background consolidation is on (the default).
func (s Settings) AutoDream() bool { return s.AutoDreamEnabled == nil || *s.AutoDreamEnabled }

// maxSlug is the longest slug kept whole; longer ones are cut and given a hash suffix.
const maxSlug = 200

// Slug turns an absolute path into the directory name used under projects/: every character
// that is not an ASCII letter or digit becomes '-', as Claude Code does ("/home/a/x" becomes
// "-home-a-x"). Slugs over 200 characters are cut and end in a short hash of the full path, so
// two long paths never share a slug.
func Slug(path string) string {
	var b strings.Builder
	for _, r := range path {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) <= maxSlug {
		return s
	}
	sum := sha256.Sum256([]byte(path))
	return s[:maxSlug] + "-" + hex.EncodeToString(sum[:4])
}

// ProjectRoot returns the canonical root of the project that contains dir: the main working
// tree of its git repository (so every worktree of one repository maps to the same root), or
// dir itself, cleaned and with symlinks resolved, when dir is not inside a repository.
func ProjectRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	for d := abs; ; {
		git := filepath.Join(d, ".git")
		fi, err := os.Lstat(git)
		if err == nil {
			if fi.IsDir() {
				return d
			}
			if root, ok := worktreeMain(git); ok {
				return root
			}
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs
		}
		d = parent
	}
}

// linksBack reports whether the worktree's git directory gitdir names gitFile in its "gitdir"
// file (absolute, or relative to gitdir).
func linksBack(gitdir, gitFile string) bool {
	data, err := fsutil.ReadRegular(filepath.Join(gitdir, "gitdir"), maxGitFile)
	if err != nil {
		return false
	}
	back := strings.TrimSpace(string(data))
	if !filepath.IsAbs(back) {
		back = filepath.Join(gitdir, back)
	}
	a, err1 := os.Stat(back)
	b, err2 := os.Stat(gitFile)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// maxGitFile caps the read of a worktree's gitdir file (a line).
const maxGitFile = 64 << 10

// worktreeMain follows a .git file ("gitdir: <repo>/.git/worktrees/<name>") to the main
// working tree of the repository — only when the link goes both ways, as git makes it: the
// gitdir is a worktrees/<name> directory whose own "gitdir" file names this .git file back. A
// .git file that merely points elsewhere ("gitdir: ../other/.git", which a cloned repository can
// carry) is not followed: the project is the directory that holds it, and another project's
// memory is never its identity.
func worktreeMain(gitFile string) (string, bool) {
	dirs := fsutil.GitDirs(filepath.Dir(gitFile)) // a repository's file: never a FIFO or device
	if len(dirs) < 2 {
		return "", false
	}
	gitdir, common := dirs[1], dirs[1]
	if filepath.Base(filepath.Dir(gitdir)) != "worktrees" || !linksBack(gitdir, gitFile) {
		return "", false
	}
	if len(dirs) > 2 {
		common = dirs[2]
	}
	if filepath.Base(common) != ".git" {
		return "", false // a bare repository or submodule layout: keep the worktree itself
	}
	root := filepath.Dir(common)
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return root, true
}
