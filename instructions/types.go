package instructions

import (
	"fmt"
	"log/slog"

	"github.com/strata-mem/strata/config"
)

// Layer says where a piece of instruction text comes from.
type Layer string

// The layers, in the order they are loaded.
const (
	LayerManaged Layer = "managed" // $STRATA_MANAGED_DIR: CLAUDE.md and rules/
	LayerUser    Layer = "user"    // $STRATA_HOME: CLAUDE.md and rules/
	LayerProject Layer = "project" // CLAUDE.md, .claude/CLAUDE.md, AGENTS.md from the root down to the working dir
	LayerLocal   Layer = "local"   // CLAUDE.local.md from the root down to the working dir
	LayerRule    Layer = "rule"    // .claude/rules/**/*.md of a project directory
	LayerNested  Layer = "nested"  // instruction files in directories below the working dir
	LayerImport  Layer = "import"  // a file reached through an @import
	LayerAutomem Layer = "automem" // the auto-memory index, added by the caller
)

// Reason says why a piece was loaded.
type Reason string

// The reasons.
const (
	ReasonSessionStart    Reason = "session_start"    // applies to every session in this directory
	ReasonPathGlobMatch   Reason = "path_glob_match"  // a conditional rule matched a touched file
	ReasonNestedTraversal Reason = "nested_traversal" // a file below the working dir was touched
	ReasonInclude         Reason = "include"          // an @import of another piece
)

// Source is one loaded piece of instruction text and its origin.
type Source struct {
	Path      string `json:"path"`      // absolute path of the file
	Layer     Layer  `json:"layer"`     // where it comes from
	Reason    Reason `json:"reason"`    // why it was loaded
	Bytes     int    `json:"bytes"`     // length of Text in bytes
	Tokens    int    `json:"tokens"`    // estimated tokens of Text (CJK-aware)
	Truncated bool   `json:"truncated"` // Text is not the whole file (size cap or budget)

	// Text is what the model sees: frontmatter and block comments removed, line endings
	// normalised, cut where Truncated says so.
	Text string `json:"-"`
	// ImportedBy is the file whose @import brought this one in ("" when not an import).
	ImportedBy string `json:"-"`
	// Depth is the number of imports between the file and the piece that started the chain.
	Depth int `json:"-"`
	// Trigger is the touched path that made this piece apply ("" at session start).
	Trigger string `json:"-"`
	// Enforced marks the repeat of a managed file's enforced blocks.
	Enforced bool `json:"-"`
	// Store names the mounted memory store an automem piece is the index of ("" for the
	// project's own; see Set.AddStoreIndex).
	Store string `json:"store,omitempty"`
}

// Severity of a Diagnostic.
type Severity string

// Severities. strata lint fails on errors only.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Diagnostic is a problem, or a noteworthy decision, about one file.
type Diagnostic struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"` // 1-based; 0 when the problem is not at a line
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
}

// String formats d as "path:line: severity: message".
func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", d.Path, d.Line, d.Severity, d.Message)
	}
	return fmt.Sprintf("%s: %s: %s", d.Path, d.Severity, d.Message)
}

// Options configure Load. The zero value reads nothing but the working directory's chain.
type Options struct {
	// Env gives STRATA_HOME (user layer), STRATA_MANAGED_DIR (managed layer) and HOME (for
	// "~/" imports). Empty fields switch the layer off.
	Env config.Env
	// FileNames lists the project instruction file names read in each directory, in order
	// (the instructionFiles setting); empty means DefaultInstructionFiles. LocalFile is always
	// read after them.
	FileNames []string
	// Excludes are doublestar globs on absolute paths of instruction files to skip (the
	// claudeMdExcludes of the user's and managed settings); managed files are never skipped.
	Excludes []string
	// ProjectExcludes are Excludes from a project's own settings files: they skip only files
	// inside ProjectRoot, never the user's instructions.
	ProjectExcludes []string
	// ScanSecrets, when set, finds lines of instruction text that look like credentials (the
	// workspace gives memdir.ScanSecrets): each such line is withheld from the model, replaced
	// by a marker, with a warning naming the file and line. nil scans nothing.
	ScanSecrets func(text string) []Secret
	// ApprovedImports are paths, directories or globs outside the project root and
	// STRATA_HOME that @imports may read (the approvedExternalImports setting).
	ApprovedImports []string
	// BudgetTokens caps the rendered instruction text (the instructionBudgetTokens setting);
	// 0 means no cap.
	BudgetTokens int
	// Diagnostics are problems the caller found before loading (a settings file that does not
	// parse); they come first among the Set's diagnostics. Load itself reads no settings.
	Diagnostics []Diagnostic
	// ProjectRoot is the project root of the instruction files: imports inside it need no
	// approval, and user and managed rules' globs are relative to it. "" means the working
	// tree holding cwd (Roots.Tree): a linked git worktree is its own project root, so its
	// CLAUDE.md imports its own files (memory is still shared with the main tree: Roots.Root).
	ProjectRoot string
	// MaxFileBytes caps how much of one file is read; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// Logger receives debug records about what was loaded; nil discards them.
	Logger *slog.Logger
}

// Secret is a line of text that looks like a credential, as Options.ScanSecrets reports it.
type Secret struct {
	Kind  string // what it looks like, e.g. "GitHub token"
	Line  int    // 1-based line in the text scanned
	Lines int    // how many lines it spans from Line (a key split over lines); 0 or 1: one
	// Marker is the text shown in place of the line; "" gives "[withheld by strata: this line
	// looks like a secret (KIND)]". The workspace passes the memory scanner's own marker, so
	// the model and MCP clients see one wording.
	Marker string
}

// Limits and defaults.
const (
	// MaxImportDepth is the number of import hops that still load, as Claude Code follows
	// them: a file reached through 4 imports loads, one that would need a 5th does not.
	MaxImportDepth = 4
	// WarnChars is the size in characters above which a file gets a warning.
	WarnChars = 40000
	// DefaultMaxFileBytes is how much of one file is read when Options.MaxFileBytes is 0.
	DefaultMaxFileBytes = 256 << 10
)

// DefaultInstructionFiles are the project instruction file names read in each directory when
// the settings name none. CLAUDE.local.md is always read after them.
var DefaultInstructionFiles = []string{"CLAUDE.md", ".claude/CLAUDE.md", "AGENTS.md"}

// LocalFile is the personal, not checked in, instruction file read last in each directory.
const LocalFile = "CLAUDE.local.md"
