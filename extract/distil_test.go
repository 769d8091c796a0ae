package extract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/llm"
	_ "github.com/strata-mem/strata/llm/anthropic"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
)

func TestDistil(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	day1 := time.Date(2026, 5, 30, 10, 0, 0, 0, time.Local)
	now := day1.Add(48 * time.Hour)
	logStore := func(at time.Time) *memdir.Store {
		s, err := memdir.Open(dir, memdir.Options{Mode: memdir.ModeDailyLog, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := logStore(day1).AppendLog(ctx, "user says: always run gofmt; 用户喜欢制表符"); err != nil {
		t.Fatal(err)
	}
	if _, err := logStore(now).AppendLog(ctx, "today's notes, still being written"); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text(`{"memories":[{"name":"格式化","description":"代码风格偏好","type":"feedback","body":"运行 gofmt；使用制表符。"},` +
		`{"name":"","description":"skipped","type":"user","body":"no name"}]}`))
	p, err := llm.New(srv.Config())
	if err != nil {
		t.Fatal(err)
	}
	s := logStore(now)
	got, err := Distil(ctx, p, s, DistilOptions{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.ToSlash(memdir.LogPath(day1))
	want := []Distilled{{Log: rel, Memories: []string{memdir.FileName("格式化")}, ArchivedTo: ".archive/" + rel}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Distil (-want +got):\n%s", diff)
	}
	// The request carried the log and asked for the schema.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if body := string(reqs[0].Body); !strings.Contains(body, "用户喜欢制表符") || !strings.Contains(body, `"memories"`) {
		t.Errorf("request lacks the log or the schema: %s", body)
	}
	// The memory is a topic file in the index; the old log moved, today's stayed; a log line.
	topics, _ := memdir.Open(dir, memdir.Options{})
	m, err := topics.Get(ctx, "格式化")
	if err != nil || !strings.Contains(m.Body, "gofmt") {
		t.Fatalf("memory: %v %+v", err, m)
	}
	if _, err := os.Stat(filepath.Join(dir, ".archive", filepath.FromSlash(rel))); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, memdir.LogPath(now))); err != nil {
		t.Errorf("today's log: %v", err)
	}
	alog, _ := os.ReadFile(filepath.Join(dir, ArchiveLog))
	if !strings.Contains(string(alog), `"action":"distil","file":"`+rel+`","archived_to":".archive/`+rel+`"`) {
		t.Errorf("archive log: %q", alog)
	}
	// Nothing left to distil: no request.
	if got, err := Distil(ctx, p, s, DistilOptions{Now: now}); err != nil || len(got) != 0 {
		t.Errorf("second Distil = %v, %v", got, err)
	}
}

func TestDistilBadReplyKeepsTheLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	day1 := time.Date(2026, 5, 30, 10, 0, 0, 0, time.Local)
	s, _ := memdir.Open(dir, memdir.Options{Mode: memdir.ModeDailyLog, Now: func() time.Time { return day1 }})
	if _, err := s.AppendLog(ctx, "a note"); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewAnthropic(t)
	srv.Script(llmtest.Text(`{"memories":[{"name":"leak","description":"d","type":"project","body":"aws key AKIAIOSFODNN7EXAMPLE"}]}`))
	p, _ := llm.New(srv.Config())
	got, err := Distil(ctx, p, s, DistilOptions{Now: day1.Add(24 * time.Hour)})
	if err == nil || len(got) != 0 {
		t.Fatalf("Distil = %v, %v; want a secret error", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, memdir.LogPath(day1))); err != nil {
		t.Errorf("the log moved after a failure: %v", err)
	}
}
