package workspace

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
)

// A cloned repository's approvedExternalImports: ["/"] pulls nothing from outside the project
// into the instructions; the same approval in the user's settings does.
func TestProjectImportApprovalIgnored(t *testing.T) {
	files := map[string]string{
		"repo/CLAUDE.md":             "Project rules.\n@../secret/id_rsa\n",
		"repo/.claude/settings.json": `{"approvedExternalImports": ["/"], "model": "kept"}`,
		"secret/id_rsa":              "-----BEGIN PRIVATE KEY-----\n",
	}
	f := newFixture(t, files)
	ws := f.open(Options{})
	set, err := ws.Instructions(t.Context(), SetOptions{SettingsDiagnostics: true})
	if err != nil {
		t.Fatal(err)
	}
	if text := instructions.RenderSources(set.Sources()); strings.Contains(text, "PRIVATE KEY") {
		t.Fatalf("a project's own approval imported a file outside it:\n%s", text)
	}
	if ws.Settings().Model != "kept" {
		t.Errorf("the project's preferences were dropped with the approval: model %q", ws.Settings().Model)
	}
	var warned, refused bool
	for _, d := range set.Diagnostics() {
		warned = warned || d.Severity == instructions.SeverityWarning && strings.HasSuffix(d.Path, "settings.json") &&
			strings.Contains(d.Message, "approvedExternalImports") && strings.Contains(d.Message, "a project file may not set this")
		refused = refused || strings.Contains(d.Path, "CLAUDE.md") && strings.Contains(d.Message, "secret")
	}
	if !warned || !refused {
		t.Errorf("diagnostics %v: want the ignored approval (warning on settings.json) and the refused import", set.Diagnostics())
	}

	f = newFixture(t, files)
	f.write("home/.strata/settings.json", `{"approvedExternalImports": ["`+f.root+`/secret/**"]}`)
	set, err = f.open(Options{}).Instructions(t.Context(), SetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The user's approval imports the file; the secret scanner still withholds the key's line.
	text := instructions.RenderSources(set.Sources())
	if !strings.Contains(text, "secret/id_rsa") || !strings.Contains(text, memdir.SecretMarker("PEM private key")) || strings.Contains(text, "BEGIN PRIVATE KEY") {
		t.Errorf("the user's approval did not import the file, or its key was not withheld:\n%s\n%v", text, set.Diagnostics())
	}
}

// cleanupPeriodDays: 213504 once overflowed into about 25 minutes and archived every project's
// transcripts. Now it is capped at config.MaxDays (with a diagnostic) and a young transcript
// stays; from a project's file it is ignored altogether.
func TestCleanupPeriodOverflowAndProjectRetention(t *testing.T) {
	f := newFixture(t, map[string]string{"home/.strata/settings.json": `{"cleanupPeriodDays": 213504}`})
	hour := f.write("home/.strata/projects/-other/hour-old.jsonl", `{"type":"user"}`+"\n")
	year := f.write("home/.strata/projects/-other/year-old.jsonl", `{"type":"user"}`+"\n")
	now := time.Now()
	for p, age := range map[string]time.Duration{hour: time.Hour, year: 365 * 24 * time.Hour} {
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	ws := f.open(Options{})
	if d := ws.CleanupPeriod(); d != config.MaxDays*24*time.Hour {
		t.Errorf("CleanupPeriod = %v, want %d days", d, config.MaxDays)
	}
	if diags := ws.Diagnostics(); len(diags) != 1 || !strings.Contains(diags[0].Error(), "capped at 36,500") {
		t.Errorf("Diagnostics = %v, want the cap", diags)
	}
	moves, err := ws.Retention(t.Context(), now)
	if err != nil || len(moves) != 0 {
		t.Fatalf("Retention = %+v, %v; want nothing moved", moves, err)
	}
	// Settings given by a program are not range-checked by Load: the workspace caps them too.
	given := f.open(Options{Settings: &config.Settings{CleanupPeriodDays: 213504}})
	if d := given.CleanupPeriod(); d != config.MaxDays*24*time.Hour {
		t.Errorf("given settings: CleanupPeriod = %v", d)
	}
	if moves, err := given.Retention(t.Context(), now); err != nil || len(moves) != 0 {
		t.Fatalf("given settings: Retention = %+v, %v; want nothing moved", moves, err)
	}

	g := newFixture(t, map[string]string{"repo/.claude/settings.json": `{"cleanupPeriodDays": 1}`})
	old := g.write("home/.strata/projects/-other/old.jsonl", `{"type":"user"}`+"\n")
	if err := os.Chtimes(old, now.Add(-40*24*time.Hour), now.Add(-40*24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	ws = g.open(Options{})
	if moves, err := ws.Retention(t.Context(), now); err != nil || len(moves) != 0 || ws.CleanupPeriod() != 0 {
		t.Errorf("a project's cleanupPeriodDays archived %+v (%v)", moves, err)
	}
	if diags := ws.SettingsDiagnostics(); len(diags) != 1 || !strings.Contains(diags[0].Message, "cleanupPeriodDays") {
		t.Errorf("SettingsDiagnostics = %v", diags)
	}
}

// A settings file that is a FIFO is reported, by name, among the diagnostics, and Open goes on
// with the other files (it used to hang every command).
func TestOpenSettingsFIFO(t *testing.T) {
	f := newFixture(t, map[string]string{"home/.strata/settings.json": `{"model": "user"}`, "repo/.claude/.keep": ""})
	if err := mkfifo(f.root + "/repo/.claude/settings.json"); err != nil {
		t.Skip(err)
	}
	done := make(chan *Workspace)
	go func() { done <- f.open(Options{}) }()
	select {
	case ws := <-done:
		diags := ws.SettingsDiagnostics()
		if ws.Settings().Model != "user" || len(diags) != 1 || diags[0].Path != f.repo+"/.claude/settings.json" ||
			diags[0].Severity != instructions.SeverityError || !strings.Contains(diags[0].Message, "not a regular file") {
			t.Errorf("model %q, diagnostics %+v", ws.Settings().Model, diags)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open hangs on a settings FIFO")
	}
}

// A key split over lines in an instruction file (to slip past a line-by-line scan) is withheld
// whole: every line of it, not only the first, with the file's other lines kept.
func TestSplitSecretWithheldWhole(t *testing.T) {
	f := newFixture(t, map[string]string{
		"repo/CLAUDE.md": "# 部署\nToken:\nghp_aBcDeFgHiJkLmNo\nPqRsTuVwXyZ0123456789\nthen push.\n",
	})
	set, err := f.open(Options{}).Instructions(t.Context(), SetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := instructions.RenderSources(set.Sources())
	if strings.Contains(text, "ghp_") || strings.Contains(text, "PqRsTuVwXyZ") {
		t.Fatalf("part of a split key reached the model:\n%s", text)
	}
	for _, want := range []string{"# 部署", "then push.", "looks like a secret (GitHub token (split over lines))"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

// The secret scan of instruction text is kept per text for the process (memdir.ScanSecrets),
// short files included: a clean CLAUDE.md loaded again stays as written, and once it is
// edited to hold a token — same size, same directory entry — the next load withholds it.
func TestSecretScanAfterEdit(t *testing.T) {
	line := "Run the tests before a commit; deploy from CI only, never by hand."
	token := "export GITHUB_TOKEN=ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ01234567890"
	token += strings.Repeat("0", len(line)-len(token))
	clean := "# 约定\n\n" + line + "\n"
	f := newFixture(t, map[string]string{"repo/CLAUDE.md": clean})
	load := func() string {
		set, err := f.open(Options{}).Instructions(t.Context(), SetOptions{NoIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		return instructions.RenderSources(set.Sources())
	}
	for i := range 2 {
		if text := load(); !strings.Contains(text, line) || strings.Contains(text, "withheld") {
			t.Fatalf("load %d of the clean file:\n%s", i+1, text)
		}
	}
	f.write("repo/CLAUDE.md", strings.Replace(clean, line, token, 1))
	text := load()
	if strings.Contains(text, "ghp_") || !strings.Contains(text, "looks like a secret (GitHub token)") || !strings.Contains(text, "# 约定") {
		t.Fatalf("after the edit:\n%s", text)
	}
}
