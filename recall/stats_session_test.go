package recall

import (
	"testing"
	"time"

	"github.com/strata-mem/strata/memdir"
)

// Each session counts once for every eligible memory; a recall sets the memory's count back to
// 0; the store's watch state starts at the first session and counts them all.
func TestStatsRecordSession(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	st := NewStats(dir)
	if _, ok, err := memdir.ReadWatch(dir); ok || err != nil {
		t.Fatalf("watch before any session: ok=%v err=%v", ok, err)
	}
	t1 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := st.RecordSession(ctx, []string{"a.md", "b.md"}, t1.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if err := st.Record(ctx, []string{"a.md"}, t1.Add(90*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, err := st.Load(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got["a.md"].IdleSessions != 1 || got["b.md"].IdleSessions != 3 || got["a.md"].Recalled != 1 {
		t.Errorf("stats = %+v; want a.md idle 1 (recalled in session 2), b.md idle 3", got)
	}
	w, ok, err := memdir.ReadWatch(dir)
	if !ok || err != nil || w.Sessions != 3 || !w.Since.Equal(t1) {
		t.Errorf("watch = %+v ok=%v err=%v; want 3 sessions since %v", w, ok, err, t1)
	}
}
