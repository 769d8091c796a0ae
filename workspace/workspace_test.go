package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/memdir"
)

// fixture is a git project and a STRATA_HOME in a temporary directory.
type fixture struct {
	t    *testing.T
	root string // the temporary directory
	repo string // the project, a git repository
	vars map[string]string
	env  config.Env
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	f := &fixture{t: t, root: root, repo: filepath.Join(root, "repo"), vars: map[string]string{}}
	f.env = config.Env{Home: filepath.Join(root, "home", ".strata"), UserHome: filepath.Join(root, "home"),
		Getenv: func(k string) string { return f.vars[k] }}
	if err := os.MkdirAll(filepath.Join(f.repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	for rel, content := range files {
		f.write(rel, content)
	}
	return f
}

func (f *fixture) write(rel, content string) string {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		f.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
	return p
}

func (f *fixture) open(opts Options) *Workspace {
	f.t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = f.repo
	}
	opts.Env = f.env
	ws, err := Open(f.t.Context(), opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return ws
}

func TestOpenReadsSettingsOnceAndKeepsDiagnostics(t *testing.T) {
	f := newFixture(t, map[string]string{
		"home/.strata/settings.json":       `{"model": "user-model", "memoryMode": "daily-log"}`,
		"repo/.claude/settings.json":       `{"instructionFiles": ["AGENTS.md"], "model": "project-model"}`,
		"repo/.claude/settings.local.json": "{\n  \"broken\n",
		"repo/AGENTS.md":                   "agents\n",
		"repo/CLAUDE.md":                   "not read: not in instructionFiles\n",
		"repo/sub/.claude/settings.json":   `{"model": "never read: not the project root"}`,
		"repo/sub/.keep":                   "",
	})
	ws := f.open(Options{Cwd: filepath.Join(f.repo, "sub")})
	if ws.Root() != f.repo {
		t.Errorf("Root = %s, want %s", ws.Root(), f.repo)
	}
	s := ws.Settings()
	if s.Model != "project-model" || s.MemoryMode != "daily-log" {
		t.Errorf("settings not merged: model %q, memoryMode %q", s.Model, s.MemoryMode)
	}
	errs := ws.Diagnostics()
	var pe *config.ParseError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || pe.Line != 2 || pe.Col != 10 {
		t.Fatalf("Diagnostics = %v, want the parse error of settings.local.json at 2:10", errs)
	}
	diags := ws.SettingsDiagnostics()
	if len(diags) != 1 || diags[0].Path != pe.Path || diags[0].Line != 2 || diags[0].Severity != instructions.SeverityError ||
		!strings.Contains(diags[0].Message, "does not parse") {
		t.Errorf("SettingsDiagnostics = %+v", diags)
	}

	// A settings file changed after Open changes nothing: settings are read once, and loading
	// instructions reads none.
	f.write("repo/.claude/settings.json", `{"instructionFiles": ["CLAUDE.md"], "model": "changed"}`)
	set, err := ws.Instructions(t.Context(), SetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, src := range set.Sources() {
		got = append(got, strings.TrimPrefix(src.Path, f.root+"/"))
	}
	if diff := cmp.Diff([]string{"repo/AGENTS.md"}, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if ws.Settings().Model != "project-model" {
		t.Errorf("settings re-read: model %q", ws.Settings().Model)
	}
	for _, d := range set.Diagnostics() {
		if strings.Contains(d.Message, "settings") {
			t.Errorf("a session's set carries a settings diagnostic: %s", d)
		}
	}
	shown, err := ws.Instructions(t.Context(), SetOptions{SettingsDiagnostics: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := shown.Diagnostics(); len(d) == 0 || d[0] != diags[0] {
		t.Errorf("with SettingsDiagnostics, the settings problem is not first: %v", d)
	}
}

func TestGivenSettingsReadNoFile(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/.claude/settings.json": `{"broken`})
	ws := f.open(Options{Settings: &config.Settings{Model: "given"}})
	if len(ws.Diagnostics()) != 0 || ws.Settings().Model != "given" {
		t.Errorf("given settings: diagnostics %v, model %q", ws.Diagnostics(), ws.Settings().Model)
	}
}

func TestMemoryDirAndStore(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/.claude/settings.json": `{"memoryMode": "daily-log", "memoryIndexMaxLines": 7, "memoryIndexMaxBytes": 900}`,
	})
	ws := f.open(Options{})
	want := filepath.Join(f.env.Home, "projects", config.Slug(f.repo), "memory")
	if dir, err := ws.MemoryDir(); err != nil || dir != want {
		t.Errorf("MemoryDir = %s, %v; want %s", dir, err, want)
	}
	if _, err := os.Stat(filepath.Join(f.env.Home, "projects")); !os.IsNotExist(err) {
		t.Errorf("Open created or opened something: %v", err)
	}
	mo := ws.MemdirOptions()
	if mo.Mode != memdir.ModeDailyLog || mo.MaxIndexLines != 7 || mo.MaxIndexBytes != 900 {
		t.Errorf("MemdirOptions = %+v", mo)
	}
	s1, err := ws.Store()
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := ws.Store()
	if s1 != s2 || s1.Dir() != want || s1.Mode() != memdir.ModeDailyLog {
		t.Errorf("Store: same %v, dir %s, mode %q", s1 == s2, s1.Dir(), s1.Mode())
	}
	r1, err := ws.Ranker()
	if r2, _ := ws.Ranker(); err != nil || r1 == nil || r1 != r2 {
		t.Errorf("Ranker: %v, same %v", err, r1 == r2)
	}
	if st, err := ws.Stats(); err != nil || filepath.Dir(st.Path()) != want {
		t.Errorf("Stats = %v, %v", st, err)
	}

	// The flag beats the environment, which beats the user's setting; a project's own is
	// ignored (a clone must not choose where memory is written), with a diagnostic.
	f.write("repo/.claude/settings.json", `{"autoMemoryDirectory": "from-project"}`)
	ws = f.open(Options{})
	if dir, _ := ws.MemoryDir(); dir != want || len(ws.Diagnostics()) != 1 || !strings.Contains(ws.Diagnostics()[0].Error(), "autoMemoryDirectory") {
		t.Errorf("project setting: MemoryDir = %s, diagnostics %v", dir, ws.Diagnostics())
	}
	f.write("home/.strata/settings.json", `{"autoMemoryDirectory": "mem"}`)
	if dir, _ := f.open(Options{}).MemoryDir(); dir != filepath.Join(f.repo, "mem") {
		t.Errorf("setting: MemoryDir = %s", dir)
	}
	f.vars[memdir.EnvVar] = "/env/mem"
	if dir, _ := f.open(Options{}).MemoryDir(); dir != "/env/mem" {
		t.Errorf("environment: MemoryDir = %s", dir)
	}
	if dir, _ := f.open(Options{MemoryDir: "flag"}).MemoryDir(); dir != filepath.Join(f.repo, "flag") {
		t.Errorf("flag: MemoryDir = %s", dir)
	}
}

func TestInstructionsCarryTheIndex(t *testing.T) {
	f := newFixture(t, map[string]string{"repo/CLAUDE.md": "project rules\n"})
	ws := f.open(Options{})
	store, err := ws.Store()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Add(t.Context(), memdir.Input{Name: "tabs", Description: "the user indents with tabs", Type: memdir.TypeUser, Body: "Tabs."}); err != nil {
		t.Fatal(err)
	}
	last := func(ws *Workspace, o SetOptions) instructions.Source {
		t.Helper()
		set, err := ws.Instructions(t.Context(), o)
		if err != nil {
			t.Fatal(err)
		}
		srcs := set.Sources()
		return srcs[len(srcs)-1]
	}
	if src := last(ws, SetOptions{}); src.Layer != instructions.LayerAutomem || src.Path != store.IndexPath() || !strings.Contains(src.Text, "tabs") {
		t.Errorf("last piece = %s %s, want the memory index", src.Layer, src.Path)
	}
	if src := last(ws, SetOptions{NoIndex: true}); src.Layer == instructions.LayerAutomem {
		t.Errorf("NoIndex: the index is in the set")
	}
	if src := last(f.open(Options{NoMemory: true}), SetOptions{}); src.Layer == instructions.LayerAutomem {
		t.Errorf("NoMemory: the index is in the set")
	}
	f.write("home/.strata/settings.json", `{"autoMemoryEnabled": false}`)
	off := f.open(Options{})
	if off.AutoMemory() {
		t.Errorf("autoMemoryEnabled false: AutoMemory() is true")
	}
	if src := last(off, SetOptions{}); src.Layer == instructions.LayerAutomem {
		t.Errorf("auto-memory off: the index is in the set")
	}
}

func TestForgetAfterAndConsolidateOptions(t *testing.T) {
	const day = 24 * time.Hour
	for _, tt := range []struct {
		raw      string
		want     time.Duration
		wantDiag string // a diagnostic naming the setting: the value was dropped or capped
	}{{"", 0, ""}, {"30", 30 * day, ""}, {"0", -1, ""}, {"-3", -1, ""}, {`"soon"`, 0, "want a whole number"},
		{"213504", config.MaxDays * day, "capped"}} {
		settings := `{"memoryIndexMaxLines": 50}`
		if tt.raw != "" {
			settings = `{"memoryIndexMaxLines": 50, "memoryForgetAfterDays": ` + tt.raw + `}`
		}
		f := newFixture(t, map[string]string{"repo/.claude/settings.json": settings})
		ws := f.open(Options{})
		if got := ws.ForgetAfter(); got != tt.want {
			t.Errorf("%s: ForgetAfter = %v; want %v", tt.raw, got, tt.want)
		}
		diags := ws.Diagnostics()
		if tt.wantDiag == "" && len(diags) != 0 || tt.wantDiag != "" && (len(diags) != 1 ||
			!strings.Contains(diags[0].Error(), ForgetAfterSetting) || !strings.Contains(diags[0].Error(), tt.wantDiag)) {
			t.Errorf("%s: diagnostics %v, want %q", tt.raw, diags, tt.wantDiag)
		}
		co, err := ws.ConsolidateOptions()
		if err != nil || co.ForgetAfter != tt.want || co.MaxIndexLines != 50 || co.Root != f.repo {
			t.Errorf("%s: ConsolidateOptions = %+v, %v", tt.raw, co, err)
		}
	}
}

func TestForgetSessionsSetting(t *testing.T) {
	for _, tt := range []struct {
		raw      string
		want     int
		wantDiag bool
	}{{"", 0, false}, {"25", 25, false}, {"0", -1, false}, {"-1", -1, false}, {`"many"`, 0, true}} {
		settings := `{}`
		if tt.raw != "" {
			settings = `{"memoryForgetAfterSessions": ` + tt.raw + `}`
		}
		f := newFixture(t, map[string]string{"repo/.claude/settings.json": settings})
		ws := f.open(Options{})
		co, err := ws.ConsolidateOptions()
		if err != nil || co.ForgetSessions != tt.want {
			t.Errorf("%s: ForgetSessions = %d, %v; want %d", tt.raw, co.ForgetSessions, err, tt.want)
		}
		if diags := ws.Diagnostics(); tt.wantDiag != (len(diags) == 1 && strings.Contains(diags[0].Error(), ForgetSessionsSetting)) {
			t.Errorf("%s: diagnostics %v", tt.raw, diags)
		}
	}
}

func TestLLMConfigFromSettings(t *testing.T) {
	f := newFixture(t, map[string]string{
		"home/.strata/settings.json": `{"provider": "openai", "model": "m1", "smallModel": "m0", "contextWindow": 64000}`,
	})
	f.vars["OPENAI_API_KEY"] = "k"
	cfg, err := f.open(Options{}).LLMConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Provider != llm.OpenAI || cfg.Model != "m1" || cfg.SmallModel != "m0" || cfg.ContextWindow != 64000 {
		t.Errorf("LLMConfig = %+v", cfg)
	}
}

func TestRetentionFollowsCleanupPeriod(t *testing.T) {
	f := newFixture(t, map[string]string{"home/.strata/settings.json": `{"cleanupPeriodDays": 30}`})
	old := f.write("home/.strata/projects/-p/old.jsonl", `{"type":"user"}`+"\n")
	young := f.write("home/.strata/projects/-p/young.jsonl", `{"type":"user"}`+"\n")
	now := time.Now()
	if err := os.Chtimes(old, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	ws := f.open(Options{})
	if ws.CleanupPeriod() != 30*24*time.Hour {
		t.Errorf("CleanupPeriod = %v", ws.CleanupPeriod())
	}
	moves, err := ws.Retention(t.Context(), now)
	if err != nil || len(moves) != 1 || moves[0].From != old || !moves[0].Moved {
		t.Fatalf("Retention = %+v, %v", moves, err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("the young transcript moved: %v", err)
	}
	if d := newFixture(t, nil).open(Options{}).CleanupPeriod(); d != 0 {
		t.Errorf("no setting: CleanupPeriod = %v", d)
	}
}

func TestTranscriptDirResolvesSymlinks(t *testing.T) {
	f := newFixture(t, nil)
	link := filepath.Join(f.root, "link")
	if err := os.Symlink(f.repo, link); err != nil {
		t.Skip(err)
	}
	ws := f.open(Options{Cwd: link})
	if want := filepath.Join(f.env.Home, "projects", config.Slug(f.repo)); ws.TranscriptDir() != want {
		t.Errorf("TranscriptDir = %s, want %s", ws.TranscriptDir(), want)
	}
	if ws.Cwd() != link {
		t.Errorf("Cwd = %s, want %s as given", ws.Cwd(), link)
	}
}
