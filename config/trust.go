package config

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Scope says who wrote a settings file, and so what it may set.
type Scope int

// Scopes, in the order their files are read (lowest priority first).
const (
	// ScopeUser is $STRATA_HOME/settings.json: the user's own, every project.
	ScopeUser Scope = iota
	// ScopeProject is <project>/.claude/settings.json, checked in with the repository.
	ScopeProject
	// ScopeLocal is <project>/.claude/settings.local.json. Claude Code treats it as the user's
	// own, but it lives in the repository directory and a clone can bring one, so strata
	// trusts it no more than ScopeProject (docs/settings.md, "Who may set what").
	ScopeLocal
	// ScopeManaged is $STRATA_MANAGED_DIR/managed-settings.json: the organisation's policy.
	ScopeManaged
)

// Trusted reports whether files of this scope may set the keys that give access beyond the
// project (user and managed settings); a project's files may set project preferences only.
func (s Scope) Trusted() bool { return s == ScopeUser || s == ScopeManaged }

// String names the scope in words ("user", "project" …).
func (s Scope) String() string {
	switch s {
	case ScopeUser:
		return "user"
	case ScopeProject:
		return "project"
	case ScopeLocal:
		return "project (local)"
	case ScopeManaged:
		return "managed"
	}
	return "unknown"
}

// File is one settings file and its scope.
type File struct {
	Path  string
	Scope Scope
}

// keys are the top-level keys strata understands, and permissionKeys those under
// "permissions". One table decides, for every key, its type, its range, who may set it and how
// files merge; Load, ParseSettings and the docs' "Who may set what" follow it.
var keys = []keySpec{
	listKey("instructionFiles", "CLAUDE.md, .claude/CLAUDE.md, AGENTS.md", false, func(s *Settings) *[]string { return &s.InstructionFiles }),
	restricted(listKey("claudeMdExcludes", "none", true, func(s *Settings) *[]string { return &s.ClaudeMdExcludes }), projectExcludes),
	userOnly(listKey("approvedExternalImports", "none", true, func(s *Settings) *[]string { return &s.ApprovedExternalImports })),
	intKey("instructionBudgetTokens", "no cap", 0, 10_000_000, func(s *Settings) *int { return &s.InstructionBudgetTokens }),
	boolKey("autoMemoryEnabled", "true", func(s *Settings) **bool { return &s.AutoMemoryEnabled }),
	userOnly(stringKey("autoMemoryDirectory", "the project's directory under $STRATA_HOME/projects", func(s *Settings) *string { return &s.AutoMemoryDirectory })),
	stringKey("memoryMode", "topic files", func(s *Settings) *string { return &s.MemoryMode }),
	intKey("memoryIndexMaxLines", "200", 1, 100_000, func(s *Settings) *int { return &s.MemoryIndexMaxLines }),
	intKey("memoryIndexMaxBytes", "25,000", 1, 10_000_000, func(s *Settings) *int { return &s.MemoryIndexMaxBytes }),
	stricterOnly(enumKey("memoryExtraction", `"auto"`, extractionModes, func(s *Settings) *string { return &s.MemoryExtraction }), stricterExtraction),
	intKey("memoryExtractEvery", "1", 1, 10_000, func(s *Settings) *int { return &s.MemoryExtractEvery }),
	boolKey("sessionNotesEnabled", "true", func(s *Settings) **bool { return &s.SessionNotesEnabled }),
	boolKey("autoDreamEnabled", "true", func(s *Settings) **bool { return &s.AutoDreamEnabled }),
	intPtrKey("memoryForgetAfterDays", "90", MaxDays, func(s *Settings) **int { return &s.MemoryForgetAfterDays }),
	intPtrKey("memoryForgetAfterSessions", "10", 1_000_000, func(s *Settings) **int { return &s.MemoryForgetAfterSessions }),
	userOnly(intKey("mcpSessionTimeoutMinutes", "5", 1, 10_080, func(s *Settings) *int { return &s.MCPSessionTimeoutMinutes })),
	userOnly(intKey("cleanupPeriodDays", "not set (nothing is archived)", 1, MaxDays, func(s *Settings) *int { return &s.CleanupPeriodDays })),
	stringKey("model", "the provider's default", func(s *Settings) *string { return &s.Model }),
	stringKey("smallModel", "the provider's small model", func(s *Settings) *string { return &s.SmallModel }),
	stringKey("provider", "from the keys set", func(s *Settings) *string { return &s.Provider }),
	intKey("contextWindow", "per model family", 1_000, 100_000_000, func(s *Settings) *int { return &s.ContextWindow }),
	userOnly(storesKey()),
	userOnly(enumKey("sandbox", `"workspace-write"`, []string{SandboxWorkspaceWrite, SandboxOff}, func(s *Settings) *string { return &s.Sandbox })),
	userOnly(boolKey("sandboxNetwork", "true", func(s *Settings) **bool { return &s.SandboxNetwork })),
}

var permissionKeys = []keySpec{
	restricted(listKey("permissions.allow", "none", true, func(s *Settings) *[]string { return &s.Permissions.Allow }), restrictAllow),
	listKey("permissions.deny", "none", true, func(s *Settings) *[]string { return &s.Permissions.Deny }),
	restricted(stringKey("permissions.defaultMode", `"ask"`, func(s *Settings) *string { return &s.Permissions.DefaultMode }), restrictMode),
}

// MaxDays is the most days a setting counted in days takes (100 years); a larger value is
// capped there, so it can never overflow into a short duration (cleanupPeriodDays: 213504
// once archived every project's transcripts as older than about 25 minutes).
const MaxDays = 36_500

func userOnly(k keySpec) keySpec { k.userOnly = true; return k }

func stricterOnly(k keySpec, f func(merged, layer *Settings) string) keySpec {
	k.stricter = f
	return k
}

// extractionModes are the values of memoryExtraction, from the most permissive to the
// strictest.
var extractionModes = []string{"auto", "confirm", "read-only", "off"}

// stricterExtraction keeps a project file's memoryExtraction only when it is at least as
// strict as what the user's settings (or the default, "auto") give: a repository may ask for
// confirmation, never lift it.
func stricterExtraction(merged, layer *Settings) string {
	have := cmp.Or(strings.TrimSpace(merged.MemoryExtraction), "auto")
	if slices.Index(extractionModes, layer.MemoryExtraction) >= slices.Index(extractionModes, have) {
		return ""
	}
	m := layer.MemoryExtraction
	layer.MemoryExtraction = ""
	return fmt.Sprintf("a project file may only make memory extraction stricter; %q is less strict than %q", m, have)
}

func restricted(k keySpec, r func(*Settings) []string) keySpec { k.restrict = r; return k }

// trustedWhere says in a message where a key a project may not set belongs.
const trustedWhere = "$STRATA_HOME/settings.json or managed settings"

// projectModes are the permission modes a project file may set: none that widens access.
var projectModes = []string{"", "ask", "default"}

// projectExcludes moves a project file's claudeMdExcludes to ProjectClaudeMdExcludes, which
// skip files inside the project only: a repository may not hide the user's own instructions.
func projectExcludes(s *Settings) []string {
	s.ProjectClaudeMdExcludes = append(s.ProjectClaudeMdExcludes, s.ClaudeMdExcludes...)
	s.ClaudeMdExcludes = nil
	return nil
}

func restrictMode(s *Settings) []string {
	m := strings.TrimSpace(s.Permissions.DefaultMode)
	for _, ok := range projectModes {
		if m == ok {
			return nil
		}
	}
	s.Permissions.DefaultMode = ""
	return []string{fmt.Sprintf("a project file may not set the permission mode %q, which widens access (only \"ask\"); set it in %s or pass --permission-mode", m, trustedWhere)}
}

// restrictAllow keeps the allow rules a project file may give and says, in one message, which it
// ignored and why (a repository's list of dozens of Bash rules is one warning, not dozens).
func restrictAllow(s *Settings) []string {
	var kept []string
	var reasons []string
	byReason := map[string][]string{}
	n := 0
	for _, r := range s.Permissions.Allow {
		why := ProjectAllowRefusal(r)
		if why == "" {
			kept = append(kept, r)
			continue
		}
		if byReason[why] == nil {
			reasons = append(reasons, why)
		}
		byReason[why] = append(byReason[why], r)
		n++
	}
	s.Permissions.Allow = kept
	if n == 0 {
		return nil
	}
	parts := make([]string, len(reasons))
	for i, why := range reasons {
		rules := byReason[why]
		var q []string
		for _, r := range rules[:min(len(rules), 3)] {
			if utf8.RuneCountInString(r) > 60 {
				r = string([]rune(r)[:57]) + "…"
			}
			q = append(q, strconv.Quote(r))
		}
		list := strings.Join(q, ", ")
		if len(rules) > 3 {
			list += fmt.Sprintf(" and %d more", len(rules)-3)
		}
		parts[i] = why + " (" + list + ")"
	}
	rules := "rules"
	if n == 1 {
		rules = "rule"
	}
	return []string{fmt.Sprintf("%d allow %s ignored: a project file may not allow %s; allow them in %s, or with --allow",
		n, rules, strings.Join(parts, ", nor "), trustedWhere)}
}

// ProjectAllowRefusal says why a project's settings file may not give the allow rule, or ""
// when it may. A project may allow what stays inside it and runs nothing: reads (Read, Glob,
// Grep, which are allowed anyway) and edits (Edit, Write) whose glob is relative, has no ".."
// and cannot match under .git/ or .claude/ (git hooks and config run programs; the settings
// would widen themselves). Everything else — shell commands of any kind (a repository that
// could allow "make" or "python" would run its own code without asking), any other tool, and
// edits anywhere or outside the project — only the user or managed settings may allow.
func ProjectAllowRefusal(rule string) string {
	rule = strings.TrimSpace(rule)
	tool, spec, hasSpec := strings.Cut(rule, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return "a malformed rule"
		}
		spec = strings.TrimSpace(strings.TrimSuffix(spec, ")"))
	}
	tool = strings.TrimSpace(tool)
	switch tool {
	case "Read", "Glob", "Grep":
		return ""
	case "Edit", "Write":
	case "Bash":
		return "running commands"
	default:
		return "the tool " + tool
	}
	switch {
	case spec == "" || spec == "*" || spec == "**":
		return "edits anywhere"
	case strings.HasPrefix(spec, "/") || strings.HasPrefix(spec, "~") || strings.HasPrefix(spec, `\`):
		return "edits outside the project"
	}
	for _, seg := range strings.Split(spec, "/") {
		if seg == ".." {
			return "edits outside the project"
		}
	}
	for _, probe := range []string{".git/config", ".git/hooks/pre-commit", ".claude/settings.json", ".claude/settings.local.json"} {
		if globReaches(spec, probe) {
			return "edits under .git/ or .claude/"
		}
	}
	return ""
}

// globReaches reports whether the doublestar-style glob spec can match the file probe (or
// probe's directory): a "**" segment matches any number of segments, dot-directories included.
func globReaches(spec, probe string) bool {
	ps := strings.Split(spec, "/")
	fs := strings.Split(probe, "/")
	var match func(i, j int) bool
	match = func(i, j int) bool {
		if i == len(ps) {
			return j == len(fs)
		}
		if ps[i] == "**" {
			for k := j; k <= len(fs); k++ {
				if match(i+1, k) {
					return true
				}
			}
			return false
		}
		if j == len(fs) {
			return false
		}
		if !braceMatch(ps[i], fs[j]) {
			return false
		}
		return match(i+1, j+1)
	}
	return match(0, 0)
}

// braceMatch matches one path segment against a pattern with {a,b} alternatives.
func braceMatch(pat, name string) bool {
	open := strings.IndexByte(pat, '{')
	end := strings.IndexByte(pat, '}')
	if open < 0 || end < open {
		ok, _ := path.Match(pat, name)
		return ok
	}
	for alt := range strings.SplitSeq(pat[open+1:end], ",") {
		if braceMatch(pat[:open]+alt+pat[end+1:], name) {
			return true
		}
	}
	return false
}
