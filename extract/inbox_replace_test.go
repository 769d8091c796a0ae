package extract

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/memdir"
)

// TestAcceptOverLiveMemory: a proposal accepted over a live memory of that file keeps the
// user's version in the archive and logs a replace record; restoring it gives back the file
// and MEMORY.md byte for byte and keeps the accepted version in the archive, so restoring again
// swaps back. Nothing is lost either way.
func TestAcceptOverLiveMemory(t *testing.T) {
	ctx := t.Context()
	c, s, dir, _ := newConfined(t, WriteConfirm, memdir.Options{})
	if _, err := s.Add(ctx, memdir.Input{Name: "tabs", Description: "indent with tabs", Type: memdir.TypeFeedback, Body: "my own words: tabs, width 4"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, memdir.Input{Name: "部署流程", Description: "如何部署", Type: memdir.TypeProject, Body: "先预发布"}); err != nil {
		t.Fatal(err)
	}
	userFile, _ := os.ReadFile(filepath.Join(dir, "tabs.md"))
	userIdx, _ := os.ReadFile(s.IndexPath())
	proposal := memText("tabs", "indent with tabs, width 8", "feedback", "tabs, width 8")
	if _, err := c.Write(ctx, "tabs.md", proposal); err != nil {
		t.Fatal(err)
	}
	res, err := Accept(ctx, s, "tabs.md")
	if err != nil || res.Created || res.Kept != ".archive/tabs.md" {
		t.Fatalf("Accept = %+v, %v; want the live file replaced and kept in .archive/tabs.md", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tabs.md")); string(got) != proposal {
		t.Errorf("live tabs.md = %q, want the proposal", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".archive", "tabs.md")); string(got) != string(userFile) {
		t.Errorf("kept copy = %q, want the user's file %q", got, userFile)
	}
	recs, err := memdir.ReadArchiveLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	open := memdir.Restorable(recs)
	if len(open) != 1 || open[0].Action != memdir.ActionReplace || open[0].File != "tabs.md" || len(open[0].IndexLines) != 1 {
		t.Fatalf("restorable records = %+v; want one replace record of tabs.md with its index line", open)
	}

	// Restore: the user's version and index line come back; the accepted one goes aside.
	if err := s.Restore(ctx, open[0], s.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tabs.md")); string(got) != string(userFile) {
		t.Errorf("after restore tabs.md = %q, want the user's file", got)
	}
	if got, _ := os.ReadFile(s.IndexPath()); string(got) != string(userIdx) {
		t.Errorf("after restore MEMORY.md differs (-want +got):\n%s", cmp.Diff(string(userIdx), string(got)))
	}
	recs, _ = memdir.ReadArchiveLog(dir)
	open = memdir.Restorable(recs)
	if len(open) != 1 || open[0].Action != memdir.ActionReplace || open[0].ArchivedTo == ".archive/tabs.md" {
		t.Fatalf("restorable after the restore = %+v; want the accepted version's replace record", open)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(open[0].ArchivedTo))); string(got) != proposal {
		t.Errorf("the accepted version in %s = %q, want the proposal", open[0].ArchivedTo, got)
	}
	// And back again.
	if err := s.Restore(ctx, open[0], s.Now()); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "tabs.md")); string(got) != proposal {
		t.Errorf("after the second restore tabs.md = %q, want the proposal", got)
	}
	mems, _, _ := s.List(ctx)
	if len(mems) != 2 {
		t.Errorf("%d memories, want 2", len(mems))
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if n := strings.Count(string(idx), "(tabs.md)"); n != 1 {
		t.Errorf("MEMORY.md links tabs.md %d times:\n%s", n, idx)
	}
}

// TestAcceptLookAlikeRefused: a proposal whose name differs from a live memory's in another
// file only in case or width is refused (listed with the reason, Accept a denial naming the
// live file); the live memory is untouched.
func TestAcceptLookAlikeRefused(t *testing.T) {
	ctx := t.Context()
	_, s, dir, _ := newConfined(t, WriteConfirm, memdir.Options{})
	if _, err := s.Add(ctx, memdir.Input{Name: "db port", Description: "port", Type: memdir.TypeProject, Body: "5432"}); err != nil {
		t.Fatal(err)
	}
	live, _ := os.ReadFile(filepath.Join(dir, "db-port.md"))
	if err := os.MkdirAll(filepath.Join(dir, ".inbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, filepath.Join(dir, ".inbox", "ｄｂ-ｐｏｒｔ.md"), memText("ＤＢ ＰＯＲＴ", "port", "project", "5433"))
	staged, err := Inbox(ctx, s)
	if err != nil || len(staged) != 1 || !strings.Contains(staged[0].Problem, "db-port.md") {
		t.Fatalf("Inbox = %+v, %v; want the proposal refused, naming db-port.md", staged, err)
	}
	if _, err := Accept(ctx, s, "ｄｂ-ｐｏｒｔ.md"); !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), "db-port.md") {
		t.Errorf("Accept of a look-alike = %v; want a denial naming db-port.md", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "db-port.md")); string(got) != string(live) {
		t.Errorf("the live memory changed: %q", got)
	}
}
