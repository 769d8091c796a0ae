package extract

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/strata-mem/strata/memdir"
)

func TestInboxAcceptReject(t *testing.T) {
	ctx := t.Context()
	c, s, dir, _ := newConfined(t, WriteConfirm, memdir.Options{})
	if _, err := s.Add(ctx, memdir.Input{Name: "tabs", Description: "indent with tabs", Type: memdir.TypeFeedback, Body: "tabs"}); err != nil {
		t.Fatal(err)
	}
	for _, w := range []struct{ file, text string }{
		{"部署.md", memText("部署流程", "如何部署", "project", "先构建，再发布。")},
		{"tabs.md", memText("tabs", "indent with tabs, width 8", "feedback", "tabs, width 8")},
		{"drop.md", memText("drop", "not wanted", "user", "x")},
	} {
		if _, err := c.Write(ctx, w.file, w.text); err != nil {
			t.Fatal(err)
		}
	}
	// A proposal put there by hand that breaks a rule is listed with its problem.
	mustWrite(t, filepath.Join(dir, ".inbox", "leak.md"), memText("leak", "a key", "reference", "key: AKIAIOSFODNN7QWERTYU"))

	got, err := Inbox(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	want := []Staged{
		{File: "drop.md", Name: "drop", Description: "not wanted", Type: "user"},
		{File: "leak.md", Name: "leak", Description: "a key", Type: "reference", Problem: "looks like a secret"},
		{File: "tabs.md", Name: "tabs", Description: "indent with tabs, width 8", Type: "feedback", Replaces: true},
		{File: "部署.md", Name: "部署流程", Description: "如何部署", Type: "project"},
	}
	opts := cmp.Options{
		cmpopts.IgnoreFields(Staged{}, "Path", "Modified", "Size"),
		// Problem: the want is a substring of the reason.
		cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Problem" },
			cmp.Comparer(func(a, b string) bool {
				return a == b || a != "" && b != "" && (strings.Contains(a, b) || strings.Contains(b, a))
			})),
	}
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("Inbox (-want +got):\n%s", diff)
	}

	res, err := Accept(ctx, s, "部署")
	if err != nil || !res.Created || !res.Index || res.File != "部署.md" {
		t.Fatalf("Accept 部署 = %+v, %v", res, err)
	}
	res, err = Accept(ctx, s, ".inbox/tabs.md")
	if err != nil || res.Created {
		t.Fatalf("Accept tabs = %+v, %v", res, err)
	}
	if _, err := Accept(ctx, s, "leak.md"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "secret") {
		t.Errorf("Accept leak = %v; want a denial naming a secret", err)
	}
	if _, err := Accept(ctx, s, "nobody.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Accept nobody = %v; want ErrNotExist", err)
	}
	if _, err := Accept(ctx, s, "../x.md"); !errors.Is(err, ErrDenied) {
		t.Errorf("Accept ../x.md = %v; want a denial", err)
	}
	to, err := Reject(ctx, s, "drop.md")
	if err != nil || to != ".archive/inbox/drop.md" {
		t.Fatalf("Reject = %q, %v", to, err)
	}
	// A second rejection of the same name keeps both.
	if _, err := c.Write(ctx, "drop.md", memText("drop", "again", "user", "y")); err != nil {
		t.Fatal(err)
	}
	to2, err := Reject(ctx, s, filepath.Join(dir, ".inbox", "drop.md"))
	if err != nil || to2 == to || !strings.HasPrefix(to2, ".archive/inbox/drop.") {
		t.Fatalf("second Reject = %q, %v", to2, err)
	}
	if _, err := Reject(ctx, s, "drop.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Reject of a gone proposal = %v; want ErrNotExist", err)
	}

	idx, _ := os.ReadFile(s.IndexPath())
	if want := "- [tabs](tabs.md) — indent with tabs, width 8\n- [部署流程](部署.md) — 如何部署\n"; string(idx) != want {
		t.Errorf("index = %q; want %q", idx, want)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ArchiveLog))
	if n := strings.Count(string(log), `"action":"reject","file":".inbox/drop.md","archived_to":".archive/inbox/drop`); n != 2 {
		t.Errorf("ARCHIVE.log has %d reject lines; want 2:\n%s", n, log)
	}
	left, err := Inbox(ctx, s)
	if err != nil || len(left) != 1 || left[0].File != "leak.md" {
		t.Errorf("inbox after = %+v, %v; want only leak.md", left, err)
	}
	for _, f := range []string{"部署.md", "tabs.md", ".archive/inbox/drop.md", to2} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestInboxAcceptIndexFullKeepsProposal(t *testing.T) {
	ctx := t.Context()
	c, s, dir, _ := newConfined(t, WriteConfirm, memdir.Options{MaxIndexLines: 1})
	if _, err := s.Add(ctx, memdir.Input{Name: "one", Description: "first", Type: memdir.TypeUser}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(ctx, "two.md", memText("two", "second", "user", "2")); err != nil {
		t.Fatal(err)
	}
	if _, err := Accept(ctx, s, "two.md"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "stays in the inbox") {
		t.Fatalf("Accept = %v; want a denial for the index limit", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "two.md")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("two.md live after a refused accept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".inbox", "two.md")); err != nil {
		t.Errorf("proposal gone after a refused accept: %v", err)
	}
}

func TestInboxEmpty(t *testing.T) {
	s, err := memdir.Open(filepath.Join(t.TempDir(), "none"), memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Inbox(t.Context(), s)
	if err != nil || len(got) != 0 {
		t.Errorf("Inbox of a missing dir = %v, %v", got, err)
	}
}

// Reject records its time with the store's clock, so a log and a second rejection's name are
// reproducible.
func TestRejectUsesTheStoreClock(t *testing.T) {
	ctx := t.Context()
	at := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	c, s, dir, _ := newConfined(t, WriteConfirm, memdir.Options{Now: func() time.Time { return at }})
	for range 2 {
		if _, err := c.Write(ctx, "drop.md", memText("drop", "not wanted", "user", "x")); err != nil {
			t.Fatal(err)
		}
		if _, err := Reject(ctx, s, "drop.md"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, InboxArchiveDir, "drop.20310203T040506.000000000Z.md")); err != nil {
		t.Errorf("second rejection not named by the store's clock: %v", err)
	}
	log, _ := os.ReadFile(filepath.Join(dir, ArchiveLog))
	if !strings.Contains(string(log), "2031-02-03") {
		t.Errorf("archive log does not carry the store's time:\n%s", log)
	}
}
