package workspace

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/internal/sandbox"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
)

// Policy is everything the settings, and the session's own choices in Options, decide for a
// session: the layers above read it instead of the settings.
type Policy struct {
	// Permissions are the session's rules (a new Set per call): the mode (Options.Mode, else
	// the defaultMode setting, else ask), the allow and deny patterns of the settings then of
	// Options, the protected files, and the directories the file tools use as the project's:
	// the root, the working tree, Options.AddDirs and, with auto-memory on, the memory dir.
	Permissions *permission.Set
	// Extraction is the memoryExtraction write mode; Extract is false when extraction does not
	// run ("off", "read-only" or auto-memory off); ExtractEvery is memoryExtractEvery.
	Extraction   extract.WriteMode
	Extract      bool
	ExtractEvery int
	// Dream is auto-dream's gate (nil: autoDream off, or auto-memory off).
	Dream *extract.Gate
	// Notes is the sessionNotes setting.
	Notes bool
	// RetentionDays is cleanupPeriodDays, capped as CleanupPeriod is (0: transcripts are kept).
	RetentionDays int
	// SandboxGap says what does not hold where the sandbox cannot confine shell commands as
	// the settings ask ("" when it can, or in a binary without the helper: a test's).
	SandboxGap string
}

// Policy reads the session's Policy. It fails on a setting or an Options pattern or mode that
// does not parse.
func (w *Workspace) Policy() (Policy, error) {
	s := w.settings
	p := Policy{ExtractEvery: s.MemoryExtractEvery, Notes: s.SessionNotes(), RetentionDays: w.cleanupDays(),
		SandboxGap: sandboxGap(sandbox.Probe(), s.SandboxOn())}
	mode := w.opts.Mode
	if mode == "" {
		var err error
		if mode, err = permission.ParseMode(s.Permissions.DefaultMode); err != nil {
			return p, fmt.Errorf("workspace: setting permissions.defaultMode: %w", err)
		}
	}
	allow := append(append([]string(nil), s.Permissions.Allow...), w.opts.Allow...)
	deny := append(append([]string(nil), s.Permissions.Deny...), w.opts.Deny...)
	perms, err := permission.New(mode, allow, deny, w.real, w.env.UserHome)
	if err != nil {
		return p, fmt.Errorf("workspace: %w", err)
	}
	perms.Protected = w.env.Protected
	perms.Dirs = []string{w.root, w.tree}
	for _, d := range w.opts.AddDirs {
		perms.Dirs = append(perms.Dirs, tool.ResolvePath(w.real, w.env.UserHome, d))
	}
	p.Permissions = perms
	if !w.AutoMemory() {
		return p, nil
	}
	dir, err := w.MemoryDir()
	if err != nil {
		return p, nil // the store's opening reports it
	}
	perms.Dirs = append(perms.Dirs, dir)
	if strings.TrimSpace(s.MemoryExtraction) != "off" {
		if p.Extraction, err = extract.ParseWriteMode(s.MemoryExtraction); err != nil {
			return p, fmt.Errorf("workspace: setting memoryExtraction: %w", err)
		}
		p.Extract = p.Extraction != extract.WriteReadOnly
	}
	if s.AutoDream() {
		p.Dream = &extract.Gate{MemDir: dir, SessionsDir: filepath.Join(w.env.ProjectsDir(), config.Slug(w.root)), Subdirs: true}
	}
	return p, nil
}

func sandboxGap(st sandbox.Status, bashOn bool) string {
	switch {
	case st.Landlock != "":
		return st.Landlock + "; shell commands (Bash and the memory extractor's) run unconfined, as decided by the permission checks alone"
	case st.Helper && bashOn && !st.Namespaces:
		return st.NamespacesWhy + "; Bash commands can write the project's .git and .claude (the permission checks still ask)"
	}
	return ""
}

// SaveAllowRule saves a "don't ask again" rule for later sessions: added to the project's
// .claude/settings.local.json (permissions.allow, merged into the file as Claude Code does)
// and to the user's approvals of that file's rules (config.Env.ApproveLocalRule), without
// which strata ignores a local rule that runs commands (a clone can bring the file).
func (w *Workspace) SaveAllowRule(rule string) error {
	if err := w.env.ApproveLocalRule(w.tree, rule); err != nil {
		return err
	}
	return config.AddAllowRule(config.LocalSettingsPath(w.tree), rule)
}

// Logger returns Options.Logger (one that discards when nil).
func (w *Workspace) Logger() *slog.Logger {
	if w.opts.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return w.opts.Logger
}

// Now returns the time by Options.Now (time.Now when nil).
func (w *Workspace) Now() time.Time {
	if w.opts.Now == nil {
		return time.Now()
	}
	return w.opts.Now()
}
