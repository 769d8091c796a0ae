package memdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/unicode/norm"
)

// TestAddLookAlikeUpdates: a write whose name differs from an existing memory's only in case,
// width or Unicode form (NameKey) updates that memory, which keeps its name and file; no
// look-alike file is created. Chinese, Korean, full-width and NFC/NFD names alike.
func TestAddLookAlikeUpdates(t *testing.T) {
	for _, tt := range []struct {
		existing, given string
	}{
		{"db port", "DB PORT"},
		{"db port", "ＤＢ ＰＯＲＴ"},                        // full-width, as a Chinese IME types it
		{"café rules", norm.NFD.String("Café Rules")}, // typed on macOS
		{norm.NFD.String("café rules"), "café rules"}, // the NFD name first
		{"部署流程1", "部署流程１"},                            // full-width digit
		{"배포 절차", norm.NFD.String("배포 절차")},           // Hangul decomposed into jamo
		{norm.NFD.String("배포 절차"), "배포 절차"},           // and the other way
		{"数据库迁移 Steps", "数据库迁移 steps"},                // mixed script, case aside
		{"Ｐｏｒｔ 설정", "port 설정"},                        // full-width Latin beside Korean
	} {
		t.Run(tt.given, func(t *testing.T) {
			s := newTestStore(t, Options{})
			first := mustAdd(t, s, tt.existing, "old description")
			idxBefore, _ := os.ReadFile(s.IndexPath())
			res, err := s.Add(t.Context(), Input{Name: tt.given, Description: "new description", Type: TypeProject, Body: "new body\n"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Created || res.File != first.File || res.Name != tt.existing {
				t.Errorf("Add(%q) over %q = %+v; want the existing %s updated under its own name", tt.given, tt.existing, res, first.File)
			}
			mems, _, err := s.List(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(mems) != 1 {
				t.Fatalf("%d memories after the look-alike write, want 1: %+v", len(mems), mems)
			}
			if m := mems[0]; m.Name != tt.existing || strings.TrimSpace(m.Body) != "new body" || m.Description != "new description" {
				t.Errorf("memory = name %q, description %q, body %q; want the existing name with the new text", m.Name, m.Description, m.Body)
			}
			idx, _ := os.ReadFile(s.IndexPath())
			want := strings.Replace(string(idxBefore), "old description", "new description", 1)
			if diff := cmp.Diff(want, string(idx)); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
			// The replaced text is kept, logged, and comes back with Restore.
			recs, err := ReadArchiveLog(s.Dir())
			if err != nil || len(recs) != 1 || recs[0].Action != ActionReplace || recs[0].File != first.File || res.Kept == "" || recs[0].ArchivedTo != res.Kept {
				t.Fatalf("archive log after a look-alike write: %+v, %v; Kept %q", recs, err, res.Kept)
			}
			if err := s.Restore(t.Context(), recs[0], time.Now()); err != nil {
				t.Fatal(err)
			}
			back, err := s.Get(t.Context(), tt.existing)
			if err != nil || back.Description != "old description" {
				t.Errorf("after Restore: %+v, %v; want the old description back", back, err)
			}
		})
	}
}

// TestAddLookAlikeRules: an exact name wins over look-alikes; a look-alike in a file named by
// hand (an index line titled freely) is found; several look-alikes and no exact name refuse
// the write, naming them, and nothing changes; a different name still adds a file.
func TestAddLookAlikeRules(t *testing.T) {
	s := newTestStore(t, Options{})
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(file, name string) {
		t.Helper()
		data := "---\nname: " + name + "\ndescription: d\ntype: project\n---\nbody of " + file + "\n"
		if err := os.WriteFile(filepath.Join(s.Dir(), file), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("database.md", "DB Port")
	if err := os.WriteFile(s.IndexPath(), []byte("- [Database port](database.md) — which port\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := s.Add(t.Context(), Input{Name: "db port", Description: "d2", Type: TypeProject, Body: "5433\n"})
	if err != nil || res.Created || res.File != "database.md" || res.Name != "DB Port" {
		t.Fatalf("Add over a hand-named look-alike = %+v, %v; want database.md updated", res, err)
	}

	// Two look-alikes: a write by a third spelling could mean either and picks neither.
	write("port-b.md", "ＤＢ ｐｏｒｔ")
	if err := os.WriteFile(s.IndexPath(), []byte("- [DB Port](database.md) — d2\n- [ＤＢ ｐｏｒｔ](port-b.md) — d\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, s.Dir())
	_, err = s.Add(t.Context(), Input{Name: "Db Port", Description: "d3", Type: TypeProject, Body: "x\n"})
	if !errors.Is(err, ErrAmbiguousName) || !strings.Contains(err.Error(), "database.md, port-b.md") {
		t.Errorf("Add with two look-alikes = %v; want ErrAmbiguousName naming database.md and port-b.md", err)
	}
	if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
		t.Errorf("a refused write changed the dir (-before +after):\n%s", diff)
	}
	// The exact name is no look-alike: it updates its own file.
	res, err = s.Add(t.Context(), Input{Name: "ＤＢ ｐｏｒｔ", Description: "d4", Type: TypeProject, Body: "y\n"})
	if err != nil || res.File != "port-b.md" || res.Created {
		t.Errorf("Add by an exact name beside a look-alike = %+v, %v; want port-b.md updated", res, err)
	}
	// A name that only starts the same is another memory.
	res, err = s.Add(t.Context(), Input{Name: "db ports", Description: "d5", Type: TypeProject, Body: "z\n"})
	if err != nil || !res.Created || res.File != "db-ports.md" {
		t.Errorf("Add of another name = %+v, %v; want a new db-ports.md", res, err)
	}
}
