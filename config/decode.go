package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A settings file is decoded key by key: each top-level key (and each key of "permissions") is
// decoded on its own against the table of keys below, so a value of the wrong type, out of
// range or not allowed in the file it is in drops that key only, with a KeyError saying why and
// what is used instead; every other key of the file still applies.

// member is one "key": value pair of a JSON object, with where the key starts.
type member struct {
	key  string
	at   int // byte offset of the key's opening quote in the file
	raw  json.RawMessage
	vpos int // byte offset of the value
}

// members reads the members of the JSON object data (already known to be valid JSON), in order;
// base is data's offset in the file. ok is false when data is not an object.
func members(data []byte, base int) (ms []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ms, true // cannot happen for valid JSON
		}
		key, _ := t.(string)
		end := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return ms, true
		}
		vend := int(dec.InputOffset())
		ms = append(ms, member{key: key, at: base + keyStart(data, end), raw: raw, vpos: base + vend - len(raw)})
	}
	return ms, true
}

// keyStart finds the opening quote of the key string that ends (closing quote included) at end.
func keyStart(data []byte, end int) int {
	for i := end - 2; i >= 0; i-- {
		if data[i] != '"' {
			continue
		}
		bs := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			bs++
		}
		if bs%2 == 0 {
			return i
		}
	}
	return 0
}

// position returns the 1-based line and column (in characters) of byte offset off in data.
func position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, col
}

// keySpec is one key strata understands: its JSON name, what type it wants (said in words for
// messages), whether only the user's or managed settings may set it, and how it is decoded into
// a layer, laid over the merged settings and shown in a message.
type keySpec struct {
	name string
	want string // "true or false", "a whole number from 0 to 36,500", …
	def  string // the default, in words
	// userOnly keys are ignored, with a warning, in a project's files (see Scope.Trusted).
	userOnly bool
	// decode sets the key in s from raw; a non-empty note is a warning about a value that was
	// adjusted (a number capped), err a value that was not taken.
	decode func(s *Settings, raw json.RawMessage) (note string, err error)
	// restrict, for keys a project file may set only some values of, removes from s what a
	// project may not set and says why, one message per value removed (or moves it where it
	// applies within the project only, without a message).
	restrict func(s *Settings) []string
	// stricter, for keys a project file may only tighten, removes the project's value from
	// layer when it is laxer than merged (what the files read before it give) and says why.
	stricter func(merged, layer *Settings) string
	set      func(s *Settings) bool // the key is set in s
	merge    func(dst, src *Settings)
	show     func(s *Settings) string // the value in s, for "… is X (from file)"
	added    bool                     // lists joined across files rather than replaced
	// entries, for a list whose entries are checked one by one, decodes raw (given in the file
	// from) into s and returns a problem per entry not taken: the others are kept. A value
	// that is not a list leaves the key unset. Set, it is used instead of decode.
	entries func(s *Settings, raw json.RawMessage, from string) []entryProblem
}

func boolKey(name, def string, f func(*Settings) **bool) keySpec {
	return keySpec{name: name, want: "true or false", def: def,
		decode: func(s *Settings, raw json.RawMessage) (string, error) {
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				return "", errWrongType
			}
			*f(s) = &b
			return "", nil
		},
		set:   func(s *Settings) bool { return *f(s) != nil },
		merge: func(d, o *Settings) { *f(d) = *f(o) },
		show: func(s *Settings) string {
			if p := *f(s); p != nil {
				return strconv.FormatBool(*p)
			}
			return def
		}}
}

// intKey is a whole-number key where 0 means "not set". Values above hi are capped at hi (a
// huge number must not overflow into a small duration); values below lo are refused.
func intKey(name, def string, lo, hi int, f func(*Settings) *int) keySpec {
	return keySpec{name: name, want: "a whole number from " + thousands(lo) + " to " + thousands(hi), def: def,
		decode: func(s *Settings, raw json.RawMessage) (string, error) {
			n, note, err := decodeInt(raw, lo, hi)
			if r, ok := err.(outOfRange); ok && r.n == 0 {
				n, err = 0, nil // 0 is "not set", whatever the minimum
			}
			if err == nil {
				*f(s) = n
			}
			return note, err
		},
		set:   func(s *Settings) bool { return *f(s) != 0 },
		merge: func(d, o *Settings) { *f(d) = *f(o) },
		show: func(s *Settings) string {
			if n := *f(s); n != 0 {
				return strconv.Itoa(n)
			}
			return def
		}}
}

// intPtrKey is a whole-number key where 0 and below are values too ("off").
func intPtrKey(name, def string, hi int, f func(*Settings) **int) keySpec {
	return keySpec{name: name, want: "a whole number up to " + thousands(hi), def: def,
		decode: func(s *Settings, raw json.RawMessage) (string, error) {
			n, note, err := decodeInt(raw, math.MinInt32, hi)
			if err == nil {
				*f(s) = &n
			}
			return note, err
		},
		set:   func(s *Settings) bool { return *f(s) != nil },
		merge: func(d, o *Settings) { *f(d) = *f(o) },
		show: func(s *Settings) string {
			if p := *f(s); p != nil {
				return strconv.Itoa(*p)
			}
			return def
		}}
}

func stringKey(name, def string, f func(*Settings) *string) keySpec {
	return keySpec{name: name, want: "a string", def: def,
		decode: func(s *Settings, raw json.RawMessage) (string, error) {
			var v string
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", errWrongType
			}
			*f(s) = v
			return "", nil
		},
		set:   func(s *Settings) bool { return *f(s) != "" },
		merge: func(d, o *Settings) { *f(d) = *f(o) },
		show: func(s *Settings) string {
			if v := *f(s); v != "" {
				return strconv.Quote(v)
			}
			return def
		}}
}

// enumKey is a string key that takes one of choices.
func enumKey(name, def string, choices []string, f func(*Settings) *string) keySpec {
	k := stringKey(name, def, f)
	k.want = `"` + strings.Join(choices, `" or "`) + `"`
	k.decode = func(s *Settings, raw json.RawMessage) (string, error) {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil || !slices.Contains(choices, v) {
			return "", errWrongType
		}
		*f(s) = v
		return "", nil
	}
	return k
}

// listKey is a list of strings; added lists are joined across files, the others replaced by
// the highest-priority file that sets them (an empty list too).
func listKey(name, def string, added bool, f func(*Settings) *[]string) keySpec {
	return keySpec{name: name, want: "a list of strings", def: def, added: added,
		decode: func(s *Settings, raw json.RawMessage) (string, error) {
			v := []string{}
			if err := json.Unmarshal(raw, &v); err != nil {
				return "", errWrongType
			}
			*f(s) = v
			return "", nil
		},
		set: func(s *Settings) bool { return *f(s) != nil },
		merge: func(d, o *Settings) {
			if added {
				*f(d) = append(*f(d), *f(o)...)
			} else {
				*f(d) = *f(o)
			}
		},
		show: func(s *Settings) string {
			v := *f(s)
			if len(v) == 0 {
				return def
			}
			b, _ := json.Marshal(v)
			return string(b)
		}}
}

// errWrongType is a value of another JSON type than the key wants.
var errWrongType = errors.New("wrong type")

// outOfRange is a number below a key's minimum.
type outOfRange struct{ n, lo int64 }

func (e outOfRange) Error() string {
	return fmt.Sprintf("%d is below the minimum %s", e.n, thousands(int(e.lo)))
}

// decodeInt reads a whole number: capped at hi (with a note) when above, refused below lo.
// 1e3 and 30.0 are whole numbers; 1.5, "30" and true are not. A number too large for any
// integer is capped too.
func decodeInt(raw json.RawMessage, lo, hi int) (int, string, error) {
	var num json.Number
	if len(raw) == 0 || raw[0] == '"' || json.Unmarshal(raw, &num) != nil { // a Number takes "30" too
		return 0, "", errWrongType
	}
	var n int64
	if i, err := strconv.ParseInt(num.String(), 10, 64); err == nil {
		n = i
	} else {
		f, ferr := strconv.ParseFloat(num.String(), 64)
		switch {
		case ferr != nil && !errors.Is(ferr, strconv.ErrRange), f != math.Trunc(f):
			return 0, "", errWrongType
		case f >= math.MaxInt64:
			n = math.MaxInt64
		case f <= math.MinInt64:
			n = math.MinInt64
		default:
			n = int64(f)
		}
	}
	if n < int64(lo) {
		return 0, "", outOfRange{n, int64(lo)}
	}
	if n > int64(hi) {
		return hi, fmt.Sprintf("%s is over the maximum %s; capped at %s", num, thousands(hi), thousands(hi)), nil
	}
	return int(n), "", nil
}

// thousands formats n with commas, as the docs write numbers.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// shortValue is raw for a message: one line, at most 40 characters.
func shortValue(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	s := b.String()
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:37]) + "…"
	}
	return s
}

// closest returns the known name nearest to key — the same name in other case, or one a
// couple of edits away — or "" when none is near enough to be a likely typo.
func closest(key string, known []string) string {
	best, bestD := "", math.MaxInt
	lk := strings.ToLower(key)
	for _, k := range known {
		d := editDistance(lk, strings.ToLower(k))
		if d < bestD {
			best, bestD = k, d
		}
	}
	limit := min(3, max(1, utf8.RuneCountInString(key)/4))
	if bestD > limit {
		return ""
	}
	return best
}

// editDistance is the optimal-string-alignment distance: insertions, deletions, substitutions
// and swaps of two neighbouring characters each cost one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// knownNames returns the names of specs, for suggestions.
func knownNames(specs []keySpec, more []string) []string {
	names := make([]string, 0, len(specs)+len(more))
	for _, s := range specs {
		names = append(names, s.name)
	}
	return append(names, more...)
}

// isClaudeCodeKey reports whether name is a key of Claude Code's settings that strata does
// not use: kept and ignored without a warning, so a Claude Code settings file reads cleanly.
func isClaudeCodeKey(name string, nested bool) bool {
	if nested {
		return slices.Contains(claudeCodePermissionKeys, name)
	}
	return slices.Contains(claudeCodeKeys, name)
}

// claudeCodeKeys are the top-level keys of Claude Code 2.1.328's settings schema (read from the
// real CLI); those strata uses are read as strata's, the rest kept and ignored.
var claudeCodeKeys = []string{
	"$schema", "apiKeyHelper", "proxyAuthHelper", "awsCredentialExport", "awsAuthRefresh",
	"gcpAuthRefresh", "processWrapper", "policyHelper", "policyHelpers", "fileSuggestion",
	"respectGitignore", "breakReminder", "quietHours", "cleanupPeriodDays",
	"desktopSessionCleanupPeriodDays", "syncClaudeAiSkills", "syncClaudeAiPlugins",
	"skillListingMaxDescChars", "skillListingBudgetFraction", "wslInheritsWindowsSettings", "env",
	"attribution", "attributionProject", "attributionProjectPolicy", "includeCoAuthoredBy",
	"includeGitInstructions", "permissions", "model", "fallbackModel", "availableModels",
	"enforceAvailableModels", "availableModelsMatch", "deniedModels", "modelOverrides", "modelPicker",
	"modelPricing", "enableAllProjectMcpServers", "enabledMcpjsonServers", "disabledMcpjsonServers",
	"disableClaudeAiConnectors", "skillOverrides", "disableBundledSkills", "managedMcpServers",
	"allowedMcpServers", "deniedMcpServers", "hooks", "worktree", "disableAllHooks",
	"disableReplyCheck", "disableAgentView", "disableRemoteControl", "disableWorkflows",
	"disableArtifact", "enableArtifact", "enableWorkflows", "workflowSizeGuideline",
	"workflowKeywordTriggerEnabled", "disableSkillShellExecution", "disableWindowsBashCommandSplit",
	"defaultShell", "bashEditDiffEnabled", "bashOutputMaxChars", "taskOutputMaxChars",
	"respondToBashCommands", "allowManagedHooksOnly", "allowedHttpHookUrls", "httpHookAllowedEnvVars",
	"allowManagedPermissionRulesOnly", "allowManagedMcpServersOnly", "allowAllClaudeAiMcps",
	"allowClaudeInChromeWithManagedMcp", "strictPluginOnlyCustomization", "statusLine",
	"prUrlTemplate", "footerLinksRegexes", "subagentStatusLine", "enabledPlugins", "prependPlugins",
	"appendPlugins", "extraKnownMarketplaces", "additionalMarketplaces", "strictKnownMarketplaces",
	"allowedMarketplaces", "blockedMarketplaces", "disableCommandPluginSources",
	"disableSideloadFlags", "pluginSuggestionMarketplaces", "forceLoginMethod",
	"forceLoginGatewayUrl", "gatewayInternalNetworks", "parentSettingsBehavior",
	"managedSourcesBehavior", "forceLoginOrgUUID", "allowNestedModelAccessUnderForceLogin",
	"allowedProviders", "forceRemoteSettingsRefresh", "otelHeadersHelper", "outputStyle", "viewMode",
	"language", "skipWebFetchPreflight", "sandbox", "feedbackSurveyRate", "feedbackDrafts",
	"spinnerTipsEnabled", "clawdFileProgressEnabled", "spinnerVerbs", "spinnerTipsOverride",
	"syntaxHighlightingDisabled", "maxProseWidth", "spellcheck", "terminalTitleFromRename",
	"promptCacheTtl", "subagentPromptCacheTtl", "alwaysThinkingEnabled", "effortLevel",
	"maxEffortLevel", "modelSettings", "ultracode", "autoCompactWindow", "advisorModel", "fastMode",
	"fastModePerSessionOptIn", "promptSuggestionEnabled", "emojiCompletionEnabled",
	"awaySummaryEnabled", "responseComparisonEnabled", "showClearContextOnPlanAccept",
	"askUserQuestionTimeout", "dialogExpiry", "agent", "modelProposedGoals", "companyAnnouncements",
	"pluginConfigs", "remote", "autoUpdatesChannel", "minimumVersion", "requiredMinimumVersion",
	"requiredMaximumVersion", "plansDirectory", "tui", "voice", "channelsEnabled",
	"allowedChannelPlugins", "prefersReducedMotion", "timeFormat", "timeZone", "doneMeansMerged",
	"totalTokensReminder", "totalTokensReminderBudget", "totalTokensReminderAfterUserTurn",
	"autoMemoryEnabled", "autoMemoryDirectory", "autoDreamEnabled", "showThinkingSummaries",
	"skipDangerousModePermissionPrompt", "skipWorkflowUsageWarning", "disableAutoMode", "remoteTools",
	"sshConfigs", "sshHostCommands", "claudeMd", "claudeMdExcludes", "pluginTrustMessage", "theme",
	"editorMode", "keybindingFlavor", "vimInsertModeRemaps", "verbose", "preferredNotifChannel",
	"autoCompactEnabled", "precomputeCompactionEnabled", "precomputeArmTokens",
	"autoCompactRaisedForLoad", "autoCompactOfferAnswer", "idleCompaction", "switchModelsOnFlag",
	"autoContinueAtUsageLimit", "autoScrollEnabled", "wheelScrollAccelerationEnabled",
	"fileCheckpointingEnabled", "showTurnDuration", "showMessageTimestamps",
	"terminalProgressBarEnabled", "todoFeatureEnabled", "teammateMode", "remoteControlAtStartup",
	"remoteControl", "isolatePeerMachines", "daemonColdStart", "crossSessionInbound",
	"remoteMessageReceipts", "autoUploadSessions", "inputNeededNotifEnabled", "agentPushNotifEnabled",
}

// claudeCodePermissionKeys are the keys under "permissions" in Claude Code 2.1.328's schema.
var claudeCodePermissionKeys = []string{
	"allow", "deny", "ask", "defaultMode", "disableBypassPermissionsMode", "blockReadsOutsideWorkingDirectories",
	"blockFileToolReadsOutsideWorkingDirectories", "blockWritesOutsideWorkingDirectories", "blockReadsExemptPaths",
	"workingDirectoriesAsGiven", "disableAutoMode", "denyInsteadOfPrompting", "additionalDirectories",
}
