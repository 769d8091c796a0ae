package recall

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefreshFirstThenIncremental: the first Refresh of a directory (which lists the files
// and takes each stamp as it reads the file) indexes exactly the topic files, with the
// stamps a later Scan sees, so the next Refresh finds nothing to do; then changes, removals
// and additions are each picked up.
func TestRefreshFirstThenIncremental(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("deploy.md", "---\nname: deploy\ndescription: never deploy on Fridays\ntype: feedback\n---\n\nFriday deploys broke prod twice.\n")
	write("db.md", "---\nname: 数据库\ndescription: 项目使用PostgreSQL数据库\ntype: project\n---\n\n迁移在周一进行。\n")
	write("bare.md", "no frontmatter here, still about kubernetes\n")
	write("empty.md", "")
	write("MEMORY.md", "- [deploy](deploy.md)\n")
	write(".hidden.md", "---\nname: hidden\n---\nsecret kubernetes\n")
	write("notes.txt", "kubernetes\n")
	if err := os.Mkdir(filepath.Join(dir, "logs.md"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "deploy.md"), filepath.Join(dir, "link.md")); err != nil {
		t.Logf("no symlink: %v", err) // some systems do not allow them; the rest still holds
	}

	r := NewRanker(DirSource{Dir: dir}, RankerOptions{Workers: 2})
	st, diags, err := r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st.Added = sorted(st.Added)
	if diff := cmp.Diff(RefreshStats{Added: []string{"bare.md", "db.md", "deploy.md", "empty.md"}}, st); diff != "" {
		t.Errorf("first refresh (-want +got):\n%s", diff)
	}
	if len(diags) != 2 { // bare.md and empty.md have no frontmatter
		t.Errorf("diagnostics = %v, want the two files without frontmatter", diags)
	}
	var got []string
	for _, m := range r.Index().Memories() {
		got = append(got, m.File)
	}
	if diff := cmp.Diff([]string{"bare.md", "db.md", "deploy.md", "empty.md"}, sorted(got)); diff != "" {
		t.Errorf("indexed files (-want +got):\n%s", diff)
	}
	for q, want := range map[string]string{"friday deploy": "deploy.md", "数据库": "db.md", "kubernetes": "bare.md"} {
		if hits := r.Search(q, 1); len(hits) != 1 || hits[0].Memory.File != want {
			t.Errorf("Search(%q) = %v, want %s first", q, files(hits), want)
		}
	}
	infos, err := DirSource{Dir: dir}.Scan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, fi := range infos {
		m, ok := r.Index().Get(fi.File)
		if !ok || !m.ModTime.Equal(fi.ModTime) || m.Size != fi.Size {
			t.Errorf("%s: indexed stamp %v/%d, Scan says %v/%d", fi.File, m.ModTime, m.Size, fi.ModTime, fi.Size)
		}
	}
	if st, _, err := r.Refresh(t.Context()); err != nil || !st.empty() {
		t.Errorf("second refresh = %+v, %v; want nothing to do", st, err)
	}

	write("bare.md", "now about terraform\n")
	if err := os.Remove(filepath.Join(dir, "empty.md")); err != nil {
		t.Fatal(err)
	}
	write("new.md", "---\nname: new\ndescription: ansible playbooks\ntype: reference\n---\n")
	write("deploy.md", "---\nname: deploy\ndescription: never deploy on Fridays or Saturdays\ntype: feedback\n---\n\nFriday deploys broke prod twice.\n")
	st, _, err = r.Refresh(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st.Updated = sorted(st.Updated)
	// Only the description is a label; bare.md's new body is not.
	want := RefreshStats{Added: []string{"new.md"}, Updated: []string{"bare.md", "deploy.md"}, Removed: []string{"empty.md"}, Relabelled: []string{"deploy.md"}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("refresh after changes (-want +got):\n%s", diff)
	}
	if hits := r.Search("terraform", 1); len(hits) != 1 || hits[0].Memory.File != "bare.md" {
		t.Errorf("Search(terraform) = %v after the edit", files(hits))
	}
	if hits := r.Search("kubernetes", 5); len(hits) != 0 {
		t.Errorf("Search(kubernetes) = %v, want nothing after the edit", files(hits))
	}
}

// TestReadStat covers the reader of a cold build's first refresh.
func TestReadStat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.md")
	text := "---\nname: 长的\n---\n" + strings.Repeat("body ", 100)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, limit := range []int64{0, 10, int64(len(text)), 1 << 20} {
		data, mod, size, err := readStat(p, &buf, limit)
		if err != nil {
			t.Fatal(err)
		}
		if want := text[:min(int(limit), len(text))]; string(data) != want {
			t.Errorf("limit %d: read %q, want %q", limit, data, want)
		}
		if !mod.Equal(fi.ModTime()) || size != fi.Size() {
			t.Errorf("limit %d: stamp %v/%d, want %v/%d", limit, mod, size, fi.ModTime(), fi.Size())
		}
	}
	if _, _, _, err := readStat(filepath.Join(dir, "gone.md"), &buf, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}
	if _, _, _, err := readStat(dir, &buf, 10); !errors.Is(err, errNotRegular) {
		t.Errorf("directory: err = %v, want errNotRegular", err)
	}
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
