package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDailyLog(t *testing.T) {
	now := time.Date(2026, 3, 4, 9, 8, 7, 0, time.UTC)
	s := newTestStore(t, Options{Mode: ModeDailyLog, Now: func() time.Time { return now }})
	res, err := s.Add(t.Context(), Input{Name: "部署", Type: TypeProject, Description: "发布前先跑测试", Body: "line one\n\nline two"})
	if err != nil || !res.Logged || res.File != "" {
		t.Fatalf("Add in daily-log mode = %+v, %v", res, err)
	}
	if _, err := s.AppendLog(t.Context(), "second note"); err != nil {
		t.Fatal(err)
	}
	want := "# 2026-03-04\n\n- 09:08:07 [project] 部署: 发布前先跑测试\n  line one\n\n  line two\n- 09:08:07 second note\n"
	got, err := os.ReadFile(filepath.Join(s.Dir(), "logs", "2026", "03", "2026-03-04.md"))
	if diff := cmp.Diff(want, string(got)); err != nil || diff != "" {
		t.Errorf("log (-want +got):\n%s %v", diff, err)
	}
	if res.Path != filepath.Join(s.Dir(), "logs", "2026", "03", "2026-03-04.md") {
		t.Errorf("path = %s", res.Path)
	}
	// Logs are not topic files and do not touch the index.
	if mems, _, _ := s.List(t.Context()); len(mems) != 0 {
		t.Errorf("List sees logs: %v", files(mems))
	}
	if _, err := os.Stat(s.IndexPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("daily log wrote an index: %v", err)
	}
	logs, err := s.Logs(t.Context())
	if diff := cmp.Diff([]string{"logs/2026/03/2026-03-04.md"}, logs); err != nil || diff != "" {
		t.Errorf("Logs (-want +got):\n%s %v", diff, err)
	}
	// A secret is refused and nothing is appended.
	if _, err := s.AppendLog(t.Context(), "key AKIAIOSFODNN7EXAMPLE"); !errors.Is(err, ErrSecret) {
		t.Errorf("secret in log: %v", err)
	}
	got2, _ := os.ReadFile(res.Path)
	if string(got2) != want {
		t.Errorf("log changed after a refused append")
	}
}

func TestDailyLogConcurrentAppends(t *testing.T) {
	s := newTestStore(t, Options{Mode: ModeDailyLog})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if _, err := s.AppendLog(t.Context(), "note"); err != nil {
				t.Errorf("append %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	data, _ := os.ReadFile(filepath.Join(s.Dir(), LogPath(testNow)))
	if n := len(ParseIndex(data)) + countBullets(string(data)); n != 20 {
		t.Errorf("%d bullets, want 20:\n%s", n, data)
	}
}

func countBullets(s string) int {
	n := 0
	for _, l := range splitLines(s) {
		if len(l) > 2 && l[:2] == "- " {
			n++
		}
	}
	return n
}
