package workspace

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/permission"
)

// Policy reads every setting the agent acts on, and the session's own choices win over the
// settings' mode and add to their patterns.
func TestPolicy(t *testing.T) {
	f := newFixture(t, nil)
	no, every := false, 3
	s := &config.Settings{Permissions: config.Permissions{DefaultMode: "acceptEdits", Allow: []string{"Bash(go test:*)"}, Deny: []string{"Read(secret)"}},
		MemoryExtraction: "confirm", MemoryExtractEvery: every, SessionNotesEnabled: &no, CleanupPeriodDays: 40}
	w, err := Open(t.Context(), Options{Cwd: f.repo, Env: f.env, Settings: s, Deny: []string{"Bash(rm:*)"}, AddDirs: []string{"../docs", "~/notes"}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Policy()
	if err != nil {
		t.Fatal(err)
	}
	mem, _ := w.MemoryDir()
	got := struct {
		Mode                 permission.Mode
		Allow, Deny, Dirs    []string
		Extraction           extract.WriteMode
		Extract, Notes, Gate bool
		Every, Days          int
	}{p.Permissions.Mode, rules(p.Permissions.Allow), rules(p.Permissions.Deny), p.Permissions.Dirs, p.Extraction, p.Extract, p.Notes, p.Dream != nil, p.ExtractEvery, p.RetentionDays}
	want := got
	want.Mode, want.Allow, want.Deny = permission.ModeAcceptEdits, []string{"Bash(go test:*)"}, []string{"Read(secret)", "Bash(rm:*)"}
	want.Dirs = []string{f.repo, f.repo, filepath.Join(f.root, "docs"), filepath.Join(f.root, "home", "notes"), mem}
	want.Extraction, want.Extract, want.Notes, want.Gate, want.Every, want.Days = extract.WriteConfirm, true, false, true, every, 40
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("policy (-want +got):\n%s", d)
	}
	if p.Dream.MemDir != mem {
		t.Errorf("dream gate on %s, want the memory dir %s", p.Dream.MemDir, mem)
	}

	// The session's mode wins; extraction off and auto-memory off leave no background work.
	for _, tc := range []struct {
		o       Options
		s       config.Settings
		extract bool
		dream   bool
		mode    permission.Mode
	}{
		{Options{Mode: permission.ModeBypass}, config.Settings{MemoryExtraction: "off"}, false, true, permission.ModeBypass},
		{Options{NoMemory: true}, config.Settings{}, false, false, permission.ModeAsk},
		{Options{}, config.Settings{AutoDreamEnabled: &no, MemoryExtraction: "read-only"}, false, false, permission.ModeAsk},
	} {
		tc.o.Cwd, tc.o.Env, tc.o.Settings = f.repo, f.env, &tc.s
		w, err := Open(t.Context(), tc.o)
		if err != nil {
			t.Fatal(err)
		}
		p, err := w.Policy()
		if err != nil || p.Extract != tc.extract || (p.Dream != nil) != tc.dream || p.Permissions.Mode != tc.mode {
			t.Errorf("%+v, %+v: extract %v, dream %v, mode %s, err %v", tc.o, tc.s, p.Extract, p.Dream != nil, p.Permissions.Mode, err)
		}
	}

	// A setting that does not parse fails, naming it.
	for _, bad := range []config.Settings{{MemoryExtraction: "sometimes"}, {Permissions: config.Permissions{DefaultMode: "yolo"}}, {Permissions: config.Permissions{Allow: []string{"Bash(("}}}} {
		w, err := Open(t.Context(), Options{Cwd: f.repo, Env: f.env, Settings: &bad})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Policy(); err == nil || !strings.HasPrefix(err.Error(), "workspace: ") {
			t.Errorf("%+v: err %v", bad, err)
		}
	}
}

func rules(rs []permission.Rule) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}
