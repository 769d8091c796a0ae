package recall

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/strata-mem/strata/memdir"
)

// Index.Find picks, for every kind of name, the memory memdir.Store.Get picks from the files:
// the frontmatter name, the file with or without .md, the only look-alike, and nothing when
// several look alike.
func TestFindAgreesWithStoreGet(t *testing.T) {
	dir := t.TempDir()
	for file, name := range map[string]string{
		"tabs.md":     "prefer-tabs",
		"deploy-a.md": "Deploy",
		"deploy-b.md": "deploy",
		"cn.md":       "部署流程",
		"kr.md":       "배포 규칙",
		"port.md":     "ＤＢ Port", // full-width letters
	} {
		body := "---\nname: " + name + "\ndescription: d\ntype: project\n---\nbody\n"
		if err := os.WriteFile(filepath.Join(dir, file), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, _, err := store.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(DefaultParams())
	for _, m := range mems {
		ix.Put(m)
	}
	for _, name := range []string{"prefer-tabs", "tabs", "tabs.md", "PREFER-TABS", "Deploy", "deploy", "DEPLOY",
		"部署流程", "cn", "배포 규칙", "db port", "DB PORT", "ＤＢ Port", "missing", ""} {
		want, err := store.Get(t.Context(), name)
		if err != nil && !errors.Is(err, memdir.ErrNotFound) {
			t.Fatal(err)
		}
		got, ok := ix.Find(name)
		if ok != (err == nil) || got.File != want.File {
			t.Errorf("Find(%q) = %q, %v; Store.Get picks %q (err %v)", name, got.File, ok, want.File, err)
		}
	}
	if _, ok := ix.Find("DEPLOY"); ok {
		t.Error("Find picked one of two look-alikes")
	}
	if got := ix.Files(); len(got) != len(mems) {
		t.Errorf("Files: %d, want %d", len(got), len(mems))
	}
	ix.Remove("cn.md")
	if _, ok := ix.Find("部署流程"); ok || slices.Contains(ix.Files(), "cn.md") {
		t.Error("a removed memory is still found")
	}
	if m, ok := ix.Find("db port"); !ok || m.File != "port.md" {
		t.Errorf("Find(db port) = %q, %v; want port.md", m.File, ok)
	}
}
