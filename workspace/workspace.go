package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/recall"
	"github.com/strata-mem/strata/transcript"
)

// ForgetAfterSetting is the settings key (config.Settings.MemoryForgetAfterDays) of the number
// of days a memory may go unused before a dream archives it.
const ForgetAfterSetting = "memoryForgetAfterDays"

// ForgetSessionsSetting is the settings key (config.Settings.MemoryForgetAfterSessions) of how many
// sessions strata must have watched in which a memory was eligible for recall and never
// surfaced before a dream may forget it (0 or less turns forgetting off).
const ForgetSessionsSetting = "memoryForgetAfterSessions"

// Options configure Open.
type Options struct {
	// Cwd is the working directory (default: the process's).
	Cwd string
	// Env gives STRATA_HOME, the managed dir, HOME and the other variables.
	Env config.Env
	// Settings, when non-nil, are used as given and no settings file is read (tests, programs
	// that configure strata themselves).
	Settings *config.Settings
	// NoMemory turns auto-memory off whatever the settings say.
	NoMemory bool
	// MemoryDir is the --memory-dir flag: the memory directory, relative to Cwd ("": resolved
	// from STRATA_MEMORY_DIR, the autoMemoryDirectory setting or the project's slug).
	MemoryDir string
	// Mode is the session's permission mode ("": the defaultMode setting, else ask); Allow and
	// Deny add patterns to the settings' permissions.allow and permissions.deny; AddDirs are
	// directories outside the project the file tools may use as the project's (relative ones
	// from Cwd). Policy applies them.
	Mode        permission.Mode
	Allow, Deny []string
	AddDirs     []string
	// Logger goes to every layer opened (nil discards); Now is their clock (nil: time.Now).
	Logger *slog.Logger
	Now    func() time.Time
}

// Workspace is one project opened once: its settings (read once), its root, its memory
// directory and the Options of every layer below. Accessors that open something (Store,
// Ranker) do it on first use, so a command pays only for what it needs. A Workspace is safe
// for concurrent use.
type Workspace struct {
	env      config.Env
	cwd      string // absolute, as given
	real     string // cwd with symlinks resolved
	tree     string // the working tree holding cwd (a linked worktree itself), symlinks resolved
	root     string // canonical project root, symlinks resolved
	settings config.Settings
	errs     []error // settings files that could not be read or parsed
	opts     Options

	storeOnce sync.Once
	store     *memdir.Store
	storeErr  error

	rankerOnce sync.Once
	ranker     *recall.Ranker
	rankerErr  error

	mounts mounts // the mounted memory stores (stores.go)
}

// Open reads the settings that apply to the project containing opts.Cwd (once; files that do
// not parse are kept as Diagnostics and skipped) and resolves the project root. It fails only
// when the working directory cannot be found.
func Open(ctx context.Context, opts Options) (*Workspace, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cwd := opts.Cwd
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("workspace: working directory: %w", err)
		}
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return nil, fmt.Errorf("workspace: working directory %s: %w", cwd, err)
	}
	w := &Workspace{env: opts.Env, cwd: abs, opts: opts}
	// The instruction loader's way to the root costs a fraction of config.ProjectRoot's, and
	// strata context's start-up is mostly this; a directory it cannot open is left to the
	// layers that use it to report.
	if r, err := instructions.FindRoots(abs); err == nil {
		w.real, w.tree, w.root = r.Dir, r.Tree, r.Root
	} else {
		w.real, w.root = abs, config.ProjectRoot(abs)
		w.tree = w.root
	}
	if opts.Settings != nil {
		w.settings = *opts.Settings
	} else {
		// The project's settings files live in the working tree's .claude (a linked worktree's
		// own): without one, only the user's are read.
		settingsRoot := w.tree
		if fi, err := os.Stat(filepath.Join(w.tree, ".claude")); err != nil || !fi.IsDir() {
			settingsRoot = ""
		}
		w.settings, w.errs = opts.Env.Load(settingsRoot)
	}
	w.errs = append(w.errs, w.resolveMounts()...)
	return w, nil
}

// Env returns the environment the workspace was opened with.
func (w *Workspace) Env() config.Env { return w.env }

// Cwd returns the working directory, absolute (symlinks as given).
func (w *Workspace) Cwd() string { return w.cwd }

// Root returns the canonical project root, which keys the memory: the main working tree of the
// git repository holding Cwd, else Cwd itself, symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Tree returns the working tree holding Cwd, symlinks resolved: the project root of the
// instruction files and the project settings. It is Root except in a linked git worktree, which
// is its own tree (its CLAUDE.md imports its own files) while sharing Root's memory.
func (w *Workspace) Tree() string { return w.tree }

// Settings returns the merged settings.
func (w *Workspace) Settings() config.Settings { return w.settings }

// Diagnostics returns what was wrong with the settings files (config.Env.Load): files that could
// not be read or did not parse (each skipped, the others still applied) and keys not taken as
// written (*config.KeyError: that key dropped, the rest of its file applied), in the order they
// were read. Whoever opened the workspace reports them, once.
func (w *Workspace) Diagnostics() []error { return append([]error(nil), w.errs...) }

// SettingsDiagnostics returns Diagnostics as instruction diagnostics, for commands that show
// them among the instructions' problems: a file skipped is an error, a key dropped or adjusted a
// warning, each with its file and line.
func (w *Workspace) SettingsDiagnostics() []instructions.Diagnostic {
	var out []instructions.Diagnostic
	for _, e := range w.errs {
		d := instructions.Diagnostic{Severity: instructions.SeverityError, Message: "settings: " + e.Error()}
		var pe *config.ParseError
		var ke *config.KeyError
		var fe *fs.PathError
		var me *MountError
		var se *config.StoresError
		switch {
		case errors.As(e, &me):
			d = instructions.Diagnostic{Path: me.From, Severity: instructions.SeverityWarning, Message: me.Error()}
		case errors.As(e, &se):
			d = instructions.Diagnostic{Path: config.StoresVar, Severity: instructions.SeverityWarning, Message: se.Error()}
		case errors.As(e, &ke):
			d = instructions.Diagnostic{Path: ke.Path, Line: ke.Line, Severity: instructions.SeverityWarning,
				Message: fmt.Sprintf("settings key %s (column %d): %s", ke.Key, ke.Col, ke.Msg)}
		case errors.As(e, &pe):
			d.Path, d.Line, d.Message = pe.Path, pe.Line, fmt.Sprintf("settings file does not parse (column %d): %v; the whole file is skipped", pe.Col, pe.Err)
		case errors.As(e, &fe):
			d.Path, d.Message = fe.Path, "settings file skipped: "+fe.Err.Error()
		}
		out = append(out, d)
	}
	return out
}

// AutoMemory reports whether sessions use auto-memory: the autoMemoryEnabled setting (default
// on), unless Options.NoMemory turned it off.
func (w *Workspace) AutoMemory() bool { return !w.opts.NoMemory && w.settings.AutoMemory() }

// MemoryDir returns the memory directory (see memdir.Resolve for the order of precedence). It
// is resolved whether or not auto-memory is on: the memory commands manage it either way.
func (w *Workspace) MemoryDir() (string, error) {
	return memdir.Resolve(w.env, w.cwd, memdir.Location{Flag: w.opts.MemoryDir, Setting: w.settings.AutoMemoryDirectory, Root: w.root})
}

// MemdirOptions returns the store's Options that the settings ask for (memoryMode,
// memoryIndexMaxLines, memoryIndexMaxBytes) with the workspace's Logger and clock.
func (w *Workspace) MemdirOptions() memdir.Options {
	s := w.settings
	return memdir.Options{Mode: s.MemoryMode, MaxIndexLines: s.MemoryIndexMaxLines, MaxIndexBytes: s.MemoryIndexMaxBytes,
		Logger: w.opts.Logger, Now: w.opts.Now}
}

// Store opens the memory store on first use and returns the same one afterwards. It opens it
// whether or not auto-memory is on (see AutoMemory).
func (w *Workspace) Store() (*memdir.Store, error) {
	w.storeOnce.Do(func() {
		dir, err := w.MemoryDir()
		if err != nil {
			w.storeErr = err
			return
		}
		w.store, w.storeErr = memdir.Open(dir, w.MemdirOptions())
	})
	return w.store, w.storeErr
}

// Ranker returns the recall ranker over the store, made on first use (it reads the memories
// lazily, on its first refresh).
func (w *Workspace) Ranker() (*recall.Ranker, error) {
	w.rankerOnce.Do(func() {
		s, err := w.Store()
		if err != nil {
			w.rankerErr = err
			return
		}
		w.ranker = recall.NewStoreRanker(s, w.rankerOptions(s.Dir()))
	})
	return w.ranker, w.rankerErr
}

// rankerOptions are the options of the ranker over the store in dir: the workspace's logger,
// and the store's saved index in the user's cache directory ($XDG_CACHE_HOME, else ~/.cache,
// ~/Library/Caches on macOS), so a fresh process opens the index instead of reading every
// memory; none when there is no home directory or STRATA_RECALL_CACHE is "off".
func (w *Workspace) rankerOptions(dir string) recall.RankerOptions {
	o := recall.RankerOptions{Logger: w.opts.Logger}
	cache := w.env.CacheDir()
	if cache == "" || w.env.Var("STRATA_RECALL_CACHE") == "off" {
		return o
	}
	o.Cache = recall.CachePath(cache, dir)
	return o
}

// Stats returns the recall statistics of the memory directory.
func (w *Workspace) Stats() (*recall.Stats, error) {
	s, err := w.Store()
	if err != nil {
		return nil, err
	}
	return recall.NewStats(s.Dir()), nil
}

// InstructionsOptions returns the instruction loader's Options: the file names, excludes,
// approved imports and budget from the settings, the project root (Tree), Env, Logger and the
// secret scanner (memdir.ScanSecrets: a line of instruction text that looks like a credential
// is withheld). Loading with them reads no settings file (compaction re-reads instructions
// with them).
func (w *Workspace) InstructionsOptions() instructions.Options {
	s := w.settings
	return instructions.Options{Env: w.env, FileNames: s.InstructionFiles, Excludes: s.ClaudeMdExcludes,
		ProjectExcludes: s.ProjectClaudeMdExcludes, ApprovedImports: s.ApprovedExternalImports,
		BudgetTokens: s.InstructionBudgetTokens, ProjectRoot: w.tree, Logger: w.opts.Logger, ScanSecrets: scanSecrets}
}

// ScanSecrets is the secret scanner a session's instruction load runs (memdir.ScanSecrets in
// the loader's terms, with the memory scanner's marker): for Options.ScanSecrets of a load made
// outside a workspace, such as a benchmark of what a session start costs.
func ScanSecrets(text string) []instructions.Secret { return scanSecrets(text) }

// scanSecrets is memdir.ScanSecrets in the instruction loader's terms.
func scanSecrets(text string) []instructions.Secret {
	var out []instructions.Secret
	for _, f := range memdir.ScanSecrets(text) {
		out = append(out, instructions.Secret{Kind: f.Kind, Line: f.Line, Lines: f.Lines, Marker: memdir.SecretMarker(f.Kind)})
	}
	return out
}

// SetOptions say what Instructions adds to the instruction files.
type SetOptions struct {
	// NoIndex leaves the auto-memory index out (strata lint checks instruction files only).
	NoIndex bool
	// SettingsDiagnostics puts SettingsDiagnostics first among the Set's diagnostics, for
	// commands that show the Set as the whole picture (strata context, strata lint); a session
	// reports them once, through Diagnostics, instead.
	SettingsDiagnostics bool
}

// Instructions loads the session-start instruction set of Cwd, a new Set on every call (a Set
// belongs to one session: touches change it), with the auto-memory index as its last piece
// when auto-memory is on. A memory dir that cannot be opened or an index that cannot be read
// is a diagnostic on the Set, never a failure.
func (w *Workspace) Instructions(ctx context.Context, o SetOptions) (*instructions.Set, error) {
	lo := w.InstructionsOptions()
	if o.SettingsDiagnostics {
		lo.Diagnostics = w.SettingsDiagnostics()
	}
	set, err := instructions.Load(ctx, w.cwd, lo)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if !o.NoIndex && w.AutoMemory() {
		w.addIndex(ctx, set)
	}
	return set, nil
}

// addIndex adds MEMORY.md, cut to the limits the model sees, as the set's automem piece, and
// the mounted stores' indexes after it within the same limits (addIndexes).
func (w *Workspace) addIndex(ctx context.Context, set *instructions.Set) {
	store, err := w.Store()
	if err != nil {
		set.AddDiagnostics(instructions.Diagnostic{Severity: instructions.SeverityWarning, Message: "auto-memory: " + err.Error()})
		return
	}
	w.addIndexes(ctx, set, store)
}

// TranscriptDir returns the directory of the transcripts of sessions started in Cwd:
// $STRATA_HOME/projects/<slug of Cwd, symlinks resolved>.
func (w *Workspace) TranscriptDir() string { return transcript.ProjectDir(w.env, w.real) }

// CleanupPeriod returns the cleanupPeriodDays setting as a duration (0: not set), at most
// config.MaxDays days: settings given as Options.Settings are not range-checked by Load, and a
// larger count would overflow into a short duration.
func (w *Workspace) CleanupPeriod() time.Duration {
	return time.Duration(w.cleanupDays()) * 24 * time.Hour
}

// Retention archives every project's transcripts older than the cleanupPeriodDays setting
// (transcript.Retention, capped as CleanupPeriod is); with the setting unset it does nothing.
func (w *Workspace) Retention(ctx context.Context, now time.Time) ([]transcript.Move, error) {
	return transcript.Retention(ctx, w.env, w.cleanupDays(), now)
}

func (w *Workspace) cleanupDays() int {
	return min(max(w.settings.CleanupPeriodDays, 0), config.MaxDays)
}

// ForgetAfter reads the memoryForgetAfterDays setting: 0 when absent (the dream's default),
// negative when 0 or less (forgetting off). The setting is at most config.MaxDays, so the
// duration cannot overflow.
func (w *Workspace) ForgetAfter() time.Duration {
	p := w.settings.MemoryForgetAfterDays
	switch {
	case p == nil:
		return 0
	case *p <= 0:
		return -1
	}
	return time.Duration(min(*p, config.MaxDays)) * 24 * time.Hour
}

// ForgetSessions reads the memoryForgetAfterSessions setting: 0 when absent (the dream's
// default), negative when 0 or less (forgetting off).
func (w *Workspace) ForgetSessions() int {
	p := w.settings.MemoryForgetAfterSessions
	switch {
	case p == nil:
		return 0
	case *p <= 0:
		return -1
	}
	return *p
}

// ConsolidateOptions returns what a dream takes from the workspace: the project root,
// ForgetAfter, ForgetSessions, the index limits and the Logger. The caller adds the time, the
// lock, the model and the mode of the run. Settings are checked when they are read (a value
// that is not a whole number is dropped there, with a diagnostic), so the error is nil today;
// it stays for options that may one day be checked only here.
func (w *Workspace) ConsolidateOptions() (extract.ConsolidateOptions, error) {
	return extract.ConsolidateOptions{Root: w.root, ForgetAfter: w.ForgetAfter(), ForgetSessions: w.ForgetSessions(),
		MaxIndexLines: w.settings.MemoryIndexMaxLines, MaxIndexBytes: w.settings.MemoryIndexMaxBytes, Logger: w.opts.Logger}, nil
}

// LLMConfig resolves the model configuration (llm.FromEnv) from the environment and the
// provider, model, smallModel and contextWindow settings.
func (w *Workspace) LLMConfig() (llm.Config, error) {
	s := w.settings
	return llm.FromEnv(w.env, llm.Settings{Provider: s.Provider, Model: s.Model, SmallModel: s.SmallModel, ContextWindow: s.ContextWindow})
}
