package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/transcript"
	"github.com/strata-mem/strata/workspace"
)

// With cleanupPeriodDays set, starting a session archives (moves) older transcripts of every
// project; newer ones, and the session being resumed, stay. Without it nothing moves.
func TestRetentionAtStart(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Text("Hi."))
	first := f.agent(Options{})
	if _, err := first.Run(t.Context(), "Hello.", nil); err != nil {
		t.Fatal(err)
	}
	first.Close(t.Context())
	own := first.TranscriptPath()

	other := filepath.Join(f.env.ProjectsDir(), "-elsewhere")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	oldT, newT := filepath.Join(other, "old.jsonl"), filepath.Join(other, "new.jsonl")
	for _, p := range []string{oldT, newT} {
		if err := os.WriteFile(p, []byte(`{"type":"user","message":{"role":"user","content":"x"}}`+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-60 * 24 * time.Hour)
	for _, p := range []string{oldT, own} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}

	// Not set: nothing moves.
	a := f.agent(Options{})
	if got := a.Archived(); len(got) != 0 {
		t.Fatalf("archived %v without the setting", got)
	}

	// Set, resuming the old own session: the other old transcript moves, the resumed one stays.
	b := f.agent(Options{Resume: first.SessionID(), Open: workspace.Options{Settings: &config.Settings{CleanupPeriodDays: 30}}})
	got := b.Archived()
	if len(got) != 1 || got[0].From != oldT || !got[0].Moved {
		t.Fatalf("archived %+v, want only %s", got, oldT)
	}
	want := filepath.Join(transcript.DefaultArchiveDir(f.env.ProjectsDir()), "-elsewhere", "old.jsonl")
	if got[0].To != want {
		t.Errorf("moved to %s, want %s", got[0].To, want)
	}
	for _, p := range []string{want, newT, own} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := os.Stat(oldT); err == nil {
		t.Error("the old transcript is still in place")
	}
	for _, w := range b.Warnings() {
		if strings.Contains(w, "cleanupPeriodDays") {
			t.Errorf("warning about its own session: %s", w)
		}
	}
}
