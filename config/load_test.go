package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// settingsFixture is a STRATA_HOME, a managed dir and a project in a temporary directory.
type settingsFixture struct {
	t                    *testing.T
	env                  Env
	proj                 string
	user, project, local string // the settings files' paths
	managed              string
}

func newSettingsFixture(t *testing.T) *settingsFixture {
	t.Helper()
	base := t.TempDir()
	f := &settingsFixture{t: t, env: Env{Home: filepath.Join(base, "home"), ManagedDir: filepath.Join(base, "managed")}, proj: filepath.Join(base, "proj")}
	for _, d := range []string{f.env.Home, f.env.ManagedDir, filepath.Join(f.proj, ".claude")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.user = filepath.Join(f.env.Home, "settings.json")
	f.project = filepath.Join(f.proj, ".claude", "settings.json")
	f.local = filepath.Join(f.proj, ".claude", "settings.local.json")
	f.managed = filepath.Join(f.env.ManagedDir, "managed-settings.json")
	return f
}

func (f *settingsFixture) write(path, content string) {
	f.t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
}

func (f *settingsFixture) load() (Settings, []string) {
	f.t.Helper()
	s, errs := f.env.Load(f.proj)
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	return s, msgs
}

// The case: one wrongly typed value and one misspelt key in a project's settings. The
// bad value drops that key only (permissions.allow and the rest still apply); the message names
// the file, the line, the key, the type wanted and what is used instead, in words, not Go's.
func TestOneBadValueDropsThatKeyOnly(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.project, `{
  "autoDreamEnabled": "no",
  "permissions": {"allow": ["Edit(src/**)"], "deny": ["Bash(rm:*)"]},
  "modle": "claude-opus",
  "autoMemoryEnabled": false
}`)
	s, msgs := f.load()
	if diff := cmp.Diff([]string{"Edit(src/**)"}, s.Permissions.Allow); diff != "" {
		t.Errorf("allow (-want +got):\n%s", diff)
	}
	if len(s.Permissions.Deny) != 1 || s.AutoMemory() || !s.AutoDream() || s.Model != "" {
		t.Errorf("settings = %+v", s)
	}
	want := []string{
		f.project + `:2:3: autoDreamEnabled: want true or false, got "no"; ignored; using the default, true`,
		f.project + `:4:3: modle: unknown key, ignored; did you mean model?`,
	}
	if diff := cmp.Diff(want, msgs); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	for _, m := range msgs {
		if strings.Contains(m, "Go struct") || strings.Contains(m, "plain.") || strings.Contains(m, "unmarshal") {
			t.Errorf("Go internals in %q", m)
		}
	}

	// With the user's own value, that is what is used, and the message says where it is from.
	f.write(f.user, `{"autoDreamEnabled": false}`)
	s, msgs = f.load()
	if s.AutoDream() {
		t.Error("the user's autoDreamEnabled: false was lost")
	}
	if want := `autoDreamEnabled: want true or false, got "no"; ignored; using false from ` + f.user; !strings.HasSuffix(msgs[0], want) {
		t.Errorf("message = %q, want it to end %q", msgs[0], want)
	}
}

func TestValuesDecodedKeyByKey(t *testing.T) {
	for _, tt := range []struct {
		json string
		want string // the one message, after the path; "" for none
		ok   func(Settings) bool
	}{
		{`{"cleanupPeriodDays": "30"}`, `1:2: cleanupPeriodDays: want a whole number from 1 to 36,500, got "30"; ignored; using the default, not set (nothing is archived)`,
			func(s Settings) bool { return s.CleanupPeriodDays == 0 }},
		{`{"cleanupPeriodDays": 1.5}`, `1:2: cleanupPeriodDays: want a whole number from 1 to 36,500, got 1.5; ignored`, func(s Settings) bool { return s.CleanupPeriodDays == 0 }},
		{`{"cleanupPeriodDays": 3e1}`, "", func(s Settings) bool { return s.CleanupPeriodDays == 30 }},
		{`{"cleanupPeriodDays": -5}`, `1:2: cleanupPeriodDays: -5 is below the minimum 1 (want a whole number from 1 to 36,500); ignored`, func(s Settings) bool { return s.CleanupPeriodDays == 0 }},
		{`{"cleanupPeriodDays": 0}`, "", func(s Settings) bool { return s.CleanupPeriodDays == 0 }},
		{`{"cleanupPeriodDays": 213504}`, `1:2: cleanupPeriodDays: 213504 is over the maximum 36,500; capped at 36,500`, func(s Settings) bool { return s.CleanupPeriodDays == MaxDays }},
		{`{"cleanupPeriodDays": 1e300}`, `1:2: cleanupPeriodDays: 1e300 is over the maximum 36,500; capped at 36,500`, func(s Settings) bool { return s.CleanupPeriodDays == MaxDays }},
		{`{"memoryForgetAfterDays": 99999999999}`, `capped at 36,500`, func(s Settings) bool { return *s.MemoryForgetAfterDays == MaxDays }},
		{`{"memoryForgetAfterDays": -1}`, "", func(s Settings) bool { return *s.MemoryForgetAfterDays == -1 }},
		{`{"claudeMdExcludes": ["a", 2]}`, `1:2: claudeMdExcludes: want a list of strings, got ["a",2]; ignored; none apply`, func(s Settings) bool { return s.ClaudeMdExcludes == nil }},
		{`{"model": 4}`, `model: want a string, got 4; ignored; using the default, the provider's default`, func(s Settings) bool { return s.Model == "" }},
		{`{"permissions": ["Bash"]}`, `1:2: permissions: want an object (allow, deny, defaultMode), got ["Bash"]; ignored; the permissions of the other files apply`, func(s Settings) bool { return s.Permissions.Allow == nil }},
		{`{"permissions": {"alow": ["Read"]}}`, `1:18: permissions.alow: unknown key, ignored; did you mean permissions.allow?`, func(s Settings) bool { return s.Permissions.Allow == nil }},
		{`{"model": null, "autoDreamEnabled": null}`, "", func(s Settings) bool { return s.Model == "" && s.AutoDream() }},
		{`{"AutoMemoryEnabled": false}`, `AutoMemoryEnabled: unknown key, ignored; did you mean autoMemoryEnabled?`, func(s Settings) bool { return s.AutoMemory() }},
		{`{"model": "a", "model": "b"}`, `1:2: model: given again at line 1; this one is ignored`, func(s Settings) bool { return s.Model == "b" }},
		{`{"hooks": {}, "env": {"A": "1"}, "permissions": {"ask": ["Bash"]}, "$schema": "x"}`, "", func(s Settings) bool { return s.Extra["env"] != nil }},
		{`{"myOwnThing": 1}`, `myOwnThing: unknown key, ignored`, func(s Settings) bool { return s.Extra["myOwnThing"] != nil }},
		{"\uFEFF" + `{"model": "m"}`, "", func(s Settings) bool { return s.Model == "m" }},
		{`{"模型": "x", "autoDreamEnabled": "否"}`, `1:13: autoDreamEnabled: want true or false, got "否"`, func(s Settings) bool { return s.AutoDream() }},
		{``, "", func(s Settings) bool { return s.Model == "" }},
	} {
		f := newSettingsFixture(t)
		f.write(f.user, tt.json)
		s, msgs := f.load()
		var got []string
		for _, m := range msgs {
			if !strings.Contains(m, "模型") { // the CJK key is unknown: its warning is not this case's
				got = append(got, m)
			}
		}
		switch {
		case tt.want == "" && len(got) != 0, tt.want != "" && (len(got) != 1 || !strings.Contains(got[0], tt.want)):
			t.Errorf("%s: messages %q, want one containing %q", tt.json, got, tt.want)
		case len(got) == 1 && !strings.HasPrefix(got[0], f.user+":"):
			t.Errorf("%s: message %q does not name the file", tt.json, got[0])
		}
		if !tt.ok(s) {
			t.Errorf("%s: settings %+v", tt.json, s)
		}
	}
}

func TestFileThatDoesNotParse(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.user, `{"model": "from-user"}`)
	f.write(f.project, "{\n  \"model\": \"x\",\n  \"memoryMode\" \"daily-log\"\n}")
	f.write(f.local, `["not", "an", "object"]`)
	s, errs := f.env.Load(f.proj)
	if s.Model != "from-user" || len(errs) != 2 {
		t.Fatalf("model %q, errs %v", s.Model, errs)
	}
	var pe *ParseError
	if !errors.As(errs[0], &pe) || pe.Path != f.project || pe.Line != 3 || pe.Col != 16 {
		t.Errorf("errs[0] = %v, want %s:3:16", errs[0], f.project)
	}
	if !errors.As(errs[1], &pe) || pe.Path != f.local || !strings.Contains(errs[1].Error(), "want a JSON object") {
		t.Errorf("errs[1] = %v", errs[1])
	}
}

// A project's files (settings.json and settings.local.json alike) may set project preferences
// only; what gives access beyond the project is ignored there, with a warning naming the key
// and the file, and taken from the user's or managed settings.
func TestProjectFilesCannotWidenAccess(t *testing.T) {
	hostile := `{
  "approvedExternalImports": ["/"],
  "autoMemoryDirectory": "~/.strata/rules",
  "cleanupPeriodDays": 213504,
  "memoryStores": [{"name": "all", "path": "/"}],
  "permissions": {
    "defaultMode": "bypassPermissions",
    "allow": ["Bash(make:*)", "Edit(src/**)", "Edit(**)", "Edit(../x)", "Edit(/etc/**)", "Edit(.git/hooks/*)", "Edit(**/*)", "Read(~/.ssh/**)", "WebFetch"],
    "deny": ["Bash(rm:*)"]
  },
  "model": "project-model"
}`
	for _, file := range []string{"project", "local"} {
		t.Run(file, func(t *testing.T) {
			f := newSettingsFixture(t)
			path := map[string]string{"project": f.project, "local": f.local}[file]
			f.write(path, hostile)
			s, msgs := f.load()
			if s.ApprovedExternalImports != nil || s.AutoMemoryDirectory != "" || s.CleanupPeriodDays != 0 ||
				s.Permissions.DefaultMode != "" || s.MemoryStores != nil {
				t.Errorf("a project file widened access: %+v", s)
			}
			if diff := cmp.Diff([]string{"Edit(src/**)", "Read(~/.ssh/**)"}, s.Permissions.Allow); diff != "" {
				t.Errorf("allow (-want +got):\n%s", diff)
			}
			if s.Model != "project-model" || len(s.Permissions.Deny) != 1 {
				t.Errorf("project preferences lost: model %q deny %v", s.Model, s.Permissions.Deny)
			}
			for _, key := range []string{"approvedExternalImports", "autoMemoryDirectory", "cleanupPeriodDays", "memoryStores"} {
				if !containsAll(msgs, path, key+": a project file may not set this; only $STRATA_HOME/settings.json or managed settings may; ignored") {
					t.Errorf("no warning naming %s and %s in %q", key, path, msgs)
				}
			}
			if !containsAll(msgs, path, `permissions.defaultMode: a project file may not set the permission mode "bypassPermissions"`, `using the default, "ask"`) {
				t.Errorf("no warning for defaultMode: %q", msgs)
			}
			// One warning for all the rules ignored, grouped by why.
			if !containsAll(msgs, path, `permissions.allow: 7 allow rules ignored: a project file may not allow running commands ("Bash(make:*)"), nor edits anywhere ("Edit(**)"), nor edits outside the project ("Edit(../x)", "Edit(/etc/**)"), nor edits under .git/ or .claude/ ("Edit(.git/hooks/*)", "Edit(**/*)"), nor the tool WebFetch ("WebFetch"); allow them in $STRATA_HOME/settings.json or managed settings, or with --allow`) {
				t.Errorf("no one warning for the allow rules: %q", msgs)
			}
		})
	}

	// The same file as the user's own is taken as written (the number capped).
	f := newSettingsFixture(t)
	f.write(f.user, hostile)
	s, msgs := f.load()
	if len(s.ApprovedExternalImports) != 1 || s.AutoMemoryDirectory == "" || s.CleanupPeriodDays != MaxDays ||
		s.Permissions.DefaultMode != "bypassPermissions" || len(s.Permissions.Allow) != 9 || len(s.MemoryStores) != 1 {
		t.Errorf("user settings: %+v", s)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "capped at 36,500") {
		t.Errorf("user settings: messages %q, want only the cap", msgs)
	}
}

// Managed settings are read last and may set everything; a project cannot undo them.
func TestManagedSettingsWin(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.user, `{"permissions": {"defaultMode": "bypass"}, "model": "u"}`)
	f.write(f.project, `{"model": "p", "cleanupPeriodDays": 1}`)
	f.write(f.managed, `{"permissions": {"defaultMode": "ask", "deny": ["Bash(curl:*)"]}, "cleanupPeriodDays": 7}`)
	s, msgs := f.load()
	if s.Permissions.DefaultMode != "ask" || s.Model != "p" || s.CleanupPeriodDays != 7 || len(s.Permissions.Deny) != 1 {
		t.Errorf("settings = %+v", s)
	}
	if len(msgs) != 1 || !strings.Contains(msgs[0], "cleanupPeriodDays: a project file may not set this") || !strings.HasSuffix(msgs[0], "using 7 from "+f.managed) {
		t.Errorf("messages = %q", msgs)
	}
}

// Dozens of Bash rules in a repository's settings are one warning, not dozens.
func TestManyAllowRulesOneWarning(t *testing.T) {
	f := newSettingsFixture(t)
	rules := []string{`"Read"`}
	for i := range 40 {
		rules = append(rules, fmt.Sprintf(`"Bash(tool%d:*)"`, i))
	}
	f.write(f.project, `{"permissions": {"allow": [`+strings.Join(rules, ",")+`]}}`)
	s, msgs := f.load()
	want := `permissions.allow: 40 allow rules ignored: a project file may not allow running commands ("Bash(tool0:*)", "Bash(tool1:*)", "Bash(tool2:*)" and 37 more)`
	if len(msgs) != 1 || !strings.Contains(msgs[0], want) || len(s.Permissions.Allow) != 1 {
		t.Errorf("messages %q, allow %v", msgs, s.Permissions.Allow)
	}
}

func TestProjectAllowRefusal(t *testing.T) {
	for rule, refused := range map[string]bool{
		"Read": false, "Read(~/.ssh/**)": false, "Grep(**)": false, "Glob": false,
		"Edit(src/**)": false, "Write(docs/*.md)": false, "Edit(**/*.go)": false, "Edit(src/{a,b}/**)": false,
		"Bash": true, "Bash(go test:*)": true, "Bash(*)": true,
		"Edit": true, "Edit(*)": true, "Edit(**)": true, "Write(/tmp/x)": true, "Edit(~/.bashrc)": true,
		"Edit(src/../../x)": true, "Edit(.git/**)": true, "Edit(**/*)": true, "Edit(*/config)": true,
		"Edit({.git,src}/**)": true, "Edit(.claude/settings.json)": true, "Edit(src/**": true,
		"WebFetch(domain:example.com)": true, "mcp__github__create_issue": true, "memory_save": true,
	} {
		if got := ProjectAllowRefusal(rule) != ""; got != refused {
			t.Errorf("ProjectAllowRefusal(%q) = %q, want refused=%v", rule, ProjectAllowRefusal(rule), refused)
		}
	}
}

func TestClosestAndPosition(t *testing.T) {
	known := []string{"autoDreamEnabled", "cleanupPeriodDays", "model", "permissions"}
	for key, want := range map[string]string{
		"autoDreamEnable": "autoDreamEnabled", "AUTODREAMENABLED": "autoDreamEnabled", "cleanupPeriodDay": "cleanupPeriodDays",
		"modle": "model", "permisions": "permissions", "color": "", "记忆": "", "x": "",
	} {
		if got := closest(key, known); got != want {
			t.Errorf("closest(%q) = %q, want %q", key, got, want)
		}
	}
	data := []byte("{\n  \"记忆\": 1, \"k\": 2}")
	if l, c := position(data, strings.Index(string(data), `"k"`)); l != 2 || c != 12 {
		t.Errorf("position = %d:%d, want 2:12 (characters, not bytes)", l, c)
	}
}

// containsAll reports whether one message contains every part.
func containsAll(msgs []string, parts ...string) bool {
	for _, m := range msgs {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(m, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// FuzzParseSettings: any bytes decode without panicking; every problem names a position inside
// the file, and a file that parses gives the same settings twice.
func FuzzParseSettings(f *testing.F) {
	for _, seed := range []string{
		`{"autoDreamEnabled": "no", "modle": "x", "permissions": {"allow": ["Edit(src/**)", "Bash"], "defaultMode": "bypass"}}`,
		`{"cleanupPeriodDays": 1e400, "memoryForgetAfterDays": -9223372036854775809}`,
		`{"模型": "记忆", "model": "a", "model": "b", "permissions": null}`,
		"\uFEFF{}", `[]`, `{"a":`, `{"\u001b[31m": 1}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSettings(data)
		lines := 1 + strings.Count(string(data), "\n")
		var pe *ParseError
		var ke *KeyError
		for _, e := range unjoin(err) {
			switch {
			case errors.As(e, &pe):
				if pe.Line < 1 || pe.Line > lines || pe.Col < 1 {
					t.Fatalf("parse error at %d:%d in %d lines", pe.Line, pe.Col, lines)
				}
			case errors.As(e, &ke):
				if ke.Line < 1 || ke.Line > lines || ke.Col < 1 || ke.Key == "" || ke.Msg == "" {
					t.Fatalf("key error %+v in %d lines", ke, lines)
				}
			default:
				t.Fatalf("unexpected error %v", e)
			}
		}
		if s.CleanupPeriodDays < 0 || s.CleanupPeriodDays > MaxDays {
			t.Fatalf("cleanupPeriodDays %d out of range", s.CleanupPeriodDays)
		}
		again, _ := ParseSettings(data)
		if !cmp.Equal(s, again) {
			t.Fatalf("two decodes differ: %s", cmp.Diff(s, again))
		}
	})
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	if err != nil {
		return []error{err}
	}
	return nil
}

// BenchmarkLoad reads a user and a project settings file of the usual size, key by key.
func BenchmarkLoad(b *testing.B) {
	base := b.TempDir()
	env := Env{Home: filepath.Join(base, "home"), ManagedDir: filepath.Join(base, "managed")}
	proj := filepath.Join(base, "proj")
	os.MkdirAll(env.Home, 0o700)
	os.MkdirAll(filepath.Join(proj, ".claude"), 0o700)
	os.WriteFile(filepath.Join(env.Home, "settings.json"), []byte(`{"model": "m", "cleanupPeriodDays": 30, "permissions": {"allow": ["Bash(go test:*)", "Edit(src/**)"], "defaultMode": "acceptEdits"}, "env": {"A": "1"}}`), 0o600)
	os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(`{"$schema": "x", "instructionFiles": ["CLAUDE.md", "AGENTS.md"], "autoDreamEnabled": "no", "modle": "x", "permissions": {"allow": ["Read", "Bash(make:*)"], "deny": ["Bash(rm:*)"]}, "hooks": {"Stop": []}}`), 0o600)
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := env.Load(proj); len(errs) != 3 {
			b.Fatal(errs)
		}
	}
}

// Keys of real Claude Code settings files (2.1.328's schema) read without a warning; a
// misspelt one still warns.
func TestClaudeCodeKeysReadQuietly(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.user, `{"skipDangerousModePermissionPrompt": true, "agentPushNotifEnabled": false, "autoMemoryEnabled": true,
"tui": "fullscreen", "claudeMdExcludes": [], "permissions": {"allow": [], "blockReadsOutsideWorkingDirectories": true,
"denyInsteadOfPrompting": false}, "agentPushNotifEnabld": true}`)
	_, msgs := f.load()
	if len(msgs) != 1 || !strings.Contains(msgs[0], "agentPushNotifEnabld") || !strings.Contains(msgs[0], "did you mean agentPushNotifEnabled") {
		t.Errorf("warnings = %q; want one, for the misspelt key", msgs)
	}
}
