package memdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// InsertIndexLines undoes WithoutIndexLines given the lines it removed, whatever they were.
func TestInsertIndexLinesUndoesRemoval(t *testing.T) {
	idx := "# Memory\n- [a](a.md) — one\n<!--\n- [a](a.md) — example\n-->\n- [b](b.md) — two\n- [a](a.md) — again\n\n- [c](c.md)\n"
	for _, file := range []string{"a.md", "b.md", "c.md"} {
		removed := removedLines(idx, file)
		if len(removed) == 0 {
			t.Fatalf("%s: no lines found", file)
		}
		out, n := WithoutIndexLines(idx, func(f string) bool { return f == file })
		if n != len(removed) {
			t.Fatalf("%s: removed %d lines, recorded %d", file, n, len(removed))
		}
		if got := InsertIndexLines(out, removed); got != idx {
			t.Errorf("%s: restored index differs (-want +got):\n%s", file, cmp.Diff(idx, got))
		}
	}
	if got := removedLines(idx, "a.md"); len(got) != 2 || got[0].Line != 2 || got[1].Line != 7 {
		t.Errorf("lines of a.md = %+v; want lines 2 and 7 (not the one in the comment)", got)
	}
}

// The log reads its JSON lines and the older tab-separated ones; a torn line is skipped; a
// restore record makes its archive record no longer restorable.
func TestArchiveLogReadAndRestorable(t *testing.T) {
	dir := t.TempDir()
	old := "2026-01-02T03:04:05Z\tforget\told.md\t.archive/old.md\t-\tnot recalled\n"
	if err := os.MkdirAll(filepath.Join(dir, ArchiveDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ArchiveLogFile), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	recs := []ArchiveRecord{
		{Time: t1, Run: "r1", Action: "merge", File: "x.md", ArchivedTo: ".archive/x.md", Survivor: "y.md",
			IndexLines: []RemovedLine{{Line: 3, Text: "- [x](x.md) — x"}}},
		{Time: t1, Run: "r1", Action: "dangling", File: "gone.md", IndexLines: []RemovedLine{{Line: 1, Text: "- [gone](gone.md)"}}},
		{Time: t1, Run: "r1", Action: "reject", File: ".inbox/p.md", ArchivedTo: ".archive/inbox/p.md"},
		{Time: t1.Add(time.Hour), Action: ActionRestore, File: "x.md", ArchivedTo: ".archive/x.md"},
	}
	for _, r := range recs {
		if err := AppendArchiveLog(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(filepath.Join(dir, ArchiveLogFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-`) // torn
	f.Close()
	got, err := ReadArchiveLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("read %d records, want 5: %+v", len(got), got)
	}
	if got[0].Action != "forget" || got[0].ArchivedTo != ".archive/old.md" || got[0].Survivor != "" || got[0].Run != "2026-01-02T03:04:05Z" || got[0].Reason != "not recalled" {
		t.Errorf("old text line read as %+v", got[0])
	}
	if diff := cmp.Diff(recs[0], got[1]); diff != "" {
		t.Errorf("JSON record (-want +got):\n%s", diff)
	}
	var files []string
	for _, r := range Restorable(got) {
		files = append(files, r.File)
	}
	if diff := cmp.Diff([]string{"old.md", "gone.md"}, files); diff != "" {
		t.Errorf("restorable (-want +got):\n%s", diff)
	}
	run, last := LastRun(got, "merge", "dangling", "forget")
	if run != "r1" || len(last) != 1 || last[0].File != "gone.md" {
		t.Errorf("LastRun = %q %+v; want r1 with gone.md only (x.md was restored)", run, last)
	}
	if !strings.HasPrefix(got[1].Time.Format(time.RFC3339), "2026-02-01") {
		t.Errorf("time %v", got[1].Time)
	}
}

// A record is data: a log that sync carried from another clone may name any path. One whose
// archived copy is not under .archive/ once cleaned, or whose file is no topic file, is not
// restorable, and Restore refuses it without moving anything (.git/config stays).
func TestForgedArchiveRecordsRefused(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, ".git"), 0o700)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n"), 0o600)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	forged := []ArchiveRecord{
		{Time: now, Run: "r", Action: "archive", File: "deploy-notes-old.md", ArchivedTo: ".archive/../.git/config"},
		{Time: now, Run: "r", Action: "archive", File: "x/../.git/evil.md", ArchivedTo: ".archive/evil.md"},
		{Time: now, Run: "r", Action: "archive", File: "../outside.md", ArchivedTo: ".archive/o.md"},
		{Time: now, Run: "r", Action: "archive", File: "MEMORY.md", ArchivedTo: ".archive/m.md"},
		{Time: now, Run: "r", Action: "archive", File: "a.md", ArchivedTo: ".archive/.git/config"},
	}
	os.MkdirAll(filepath.Join(dir, ArchiveDir), 0o700)
	os.WriteFile(filepath.Join(dir, ArchiveDir, "evil.md"), []byte("---\nname: evil\n---\nx\n"), 0o600)
	for _, r := range forged {
		if err := AppendArchiveLog(dir, r); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := ReadArchiveLog(dir)
	if err != nil || len(recs) != len(forged) {
		t.Fatalf("read %d records, %v", len(recs), err)
	}
	if got := Restorable(recs); len(got) != 0 {
		t.Errorf("forged records restorable: %+v", got)
	}
	for _, r := range forged {
		if err := s.Restore(t.Context(), r, now); err == nil {
			t.Errorf("Restore(%s ← %s) accepted", r.File, r.ArchivedTo)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != "[remote \"origin\"]\n" {
		t.Errorf(".git/config changed: %q", b)
	}
	for _, f := range []string{"deploy-notes-old.md", ".git/evil.md"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was made", f)
		}
	}
}
