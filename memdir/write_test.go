package memdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddWritesFileAndOneIndexLine(t *testing.T) {
	s := newTestStore(t, Options{})
	if err := os.MkdirAll(s.Dir(), 0o700); err != nil {
		t.Fatal(err)
	}
	// A hand-written index with a heading and prose: Add must keep every other line as is.
	hand := "# Memory\r\n\r\nSome notes by hand.\r\n"
	if err := os.WriteFile(s.IndexPath(), []byte(hand), 0o600); err != nil {
		t.Fatal(err)
	}
	res := mustAdd(t, s, "Prefer tabs", "Use tabs, not spaces")
	if res.File != "prefer-tabs.md" || !res.Created || !res.Index {
		t.Errorf("result = %+v", res)
	}
	mustAdd(t, s, "部署流程", "如何部署到生产")
	got, _ := os.ReadFile(s.IndexPath())
	want := hand + "- [Prefer tabs](prefer-tabs.md) — Use tabs, not spaces\n- [部署流程](部署流程.md) — 如何部署到生产\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("index (-want +got):\n%s", diff)
	}
	file, _ := os.ReadFile(filepath.Join(s.Dir(), "prefer-tabs.md"))
	wantFile := "---\nname: Prefer tabs\ndescription: Use tabs, not spaces\ntype: project\nmodified: \"2026-01-02T03:04:05Z\"\n---\n\nbody of Prefer tabs\n"
	if diff := cmp.Diff(wantFile, string(file)); diff != "" {
		t.Errorf("topic file (-want +got):\n%s", diff)
	}

	// Update: same file, its one line changes, nothing else.
	res, err := s.Add(t.Context(), Input{Name: "Prefer tabs", Description: "Tabs everywhere,\nalways", Type: TypeFeedback, Body: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if res.File != "prefer-tabs.md" || res.Created {
		t.Errorf("update result = %+v", res)
	}
	got, _ = os.ReadFile(s.IndexPath())
	want = hand + "- [Prefer tabs](prefer-tabs.md) — Tabs everywhere, always\n- [部署流程](部署流程.md) — 如何部署到生产\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("index after update (-want +got):\n%s", diff)
	}
	m, err := s.Get(t.Context(), "Prefer tabs")
	if err != nil || m.Type != TypeFeedback || m.Body != "\nnew\n" || m.Description != "Tabs everywhere, always" {
		t.Errorf("Get after update = %+v, %v", m, err)
	}
	mems, _, _ := s.List(t.Context())
	if len(mems) != 2 {
		t.Errorf("%d memories, want 2", len(mems))
	}
}

func TestAddNameCollisionGetsHashedFile(t *testing.T) {
	s := newTestStore(t, Options{})
	a := mustAdd(t, s, "Prefer tabs", "a")
	b := mustAdd(t, s, "prefer-tabs", "b")
	if a.File == b.File || b.File != FileNameAlt("prefer-tabs") {
		t.Errorf("files %s and %s, want the second to be %s", a.File, b.File, FileNameAlt("prefer-tabs"))
	}
	// Updating the second finds its hashed file again.
	c := mustAdd(t, s, "prefer-tabs", "c")
	if c.File != b.File || c.Created {
		t.Errorf("update went to %s (created %v), want %s", c.File, c.Created, b.File)
	}
}

func TestAddRefusesBadInput(t *testing.T) {
	big := strings.Repeat("word ", 1<<20) // 5 MB
	tests := []struct {
		name string
		in   Input
		want error
	}{
		{"empty name", Input{Name: "  ", Type: TypeUser}, ErrBadName},
		{"slash", Input{Name: "a/b", Type: TypeUser}, ErrBadName},
		{"backslash", Input{Name: `a\b`, Type: TypeUser}, ErrBadName},
		{"dotdot", Input{Name: "..", Type: TypeUser}, ErrBadName},
		{"dotdot inside", Input{Name: "x..y", Type: TypeUser}, ErrBadName},
		{"newline", Input{Name: "a\nb", Type: TypeUser}, ErrBadName},
		{"NUL", Input{Name: "a\x00b", Type: TypeUser}, ErrBadName},
		{"invalid UTF-8", Input{Name: "a\xffb", Type: TypeUser}, ErrBadName},
		{"bad type", Input{Name: "ok", Type: "opinion"}, ErrBadType},
		{"5 MB body", Input{Name: "big", Type: TypeUser, Body: big}, ErrTooLarge},
		{"secret", Input{Name: "creds", Type: TypeReference, Body: "deploy key:\nghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n"}, ErrSecret},
		{"secret in description", Input{Name: "creds", Type: TypeReference, Description: "token AKIAIOSFODNN7EXAMPLE"}, ErrSecret},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t, Options{})
			mustAdd(t, s, "existing", "keep me")
			before := dirState(t, s.Dir())
			_, err := s.Add(t.Context(), tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
				t.Errorf("the dir changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestSecretErrorNamesKindAndLine(t *testing.T) {
	s := newTestStore(t, Options{})
	_, err := s.Add(t.Context(), Input{Name: "creds", Type: TypeReference, Body: "line one\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"})
	var se *SecretError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SecretError", err)
	}
	// The file: 6 frontmatter lines, a blank line, "line one", then the key on line 9.
	if se.Kind != "PEM private key" || se.Line != 9 || se.BodyLine != 2 {
		t.Errorf("SecretError = %+v, want PEM private key on line 9, line 2 of the body", se)
	}
	if !strings.Contains(err.Error(), "line 2 of the body (line 9 of the file)") || !strings.Contains(err.Error(), "PEM private key") {
		t.Errorf("message %q does not name kind and line", err)
	}
}

func TestAddIndexLimits(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		s := newTestStore(t, Options{MaxIndexLines: 3})
		for _, n := range []string{"a", "b", "c"} {
			mustAdd(t, s, n, "d")
		}
		before := dirState(t, s.Dir())
		_, err := s.Add(t.Context(), Input{Name: "d", Type: TypeUser, Description: "d"})
		if !errors.Is(err, ErrIndexFull) || !strings.Contains(err.Error(), "3-line limit") || !strings.Contains(err.Error(), "consolidate") {
			t.Fatalf("err = %v, want ErrIndexFull naming the 3-line limit", err)
		}
		if strings.Contains(err.Error(), "dangling") {
			t.Errorf("err = %v: suggests removing dangling lines, but every line links a file", err)
		}
		if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
			t.Errorf("the dir changed (-before +after):\n%s", diff)
		}
		// Updating an existing memory does not add a line: allowed.
		mustAdd(t, s, "b", "new description")
	})
	t.Run("characters", func(t *testing.T) {
		s := newTestStore(t, Options{MaxIndexBytes: 100})
		mustAdd(t, s, "a", "short")
		// 40 Chinese characters are 120 bytes but fit in 100 characters with the rest of the line.
		mustAdd(t, s, "b", strings.Repeat("长", 40))
		_, err := s.Add(t.Context(), Input{Name: "c", Type: TypeUser, Description: strings.Repeat("长", 40)})
		if !errors.Is(err, ErrIndexFull) || !strings.Contains(err.Error(), "100-character limit") {
			t.Fatalf("err = %v, want ErrIndexFull naming the 100-character limit", err)
		}
	})
	// Index lines whose files are gone: the error says how many and how to remove them.
	for _, gone := range [][]string{{"a"}, {"a", "b"}} {
		t.Run(fmt.Sprintf("%d dangling", len(gone)), func(t *testing.T) {
			s := newTestStore(t, Options{MaxIndexLines: 3})
			for _, n := range []string{"a", "b", "c"} {
				mustAdd(t, s, n, "d")
			}
			for _, n := range gone {
				if err := os.Remove(filepath.Join(s.Dir(), n+".md")); err != nil {
					t.Fatal(err)
				}
			}
			_, err := s.Add(t.Context(), Input{Name: "d", Type: TypeUser, Description: "d"})
			want := "1 index line links a file that does not exist: remove it with strata memory dream --accept dangling"
			if len(gone) == 2 {
				want = "2 index lines link files that do not exist: remove them with strata memory dream --accept dangling"
			}
			if !errors.Is(err, ErrIndexFull) || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want ErrIndexFull with %q", err, want)
			}
			for _, n := range gone {
				mustAdd(t, s, n, "d") // back, for the store's consistency check
			}
		})
	}
}

func TestForget(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "one", "first")
	mustAdd(t, s, "two", "second")
	mustAdd(t, s, "三", "third")
	res, err := s.Forget(t.Context(), "one", false)
	if err != nil || res.File != "one.md" || res.IndexLines != 1 {
		t.Fatalf("Forget = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "one.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("one.md still there: %v", err)
	}
	res, err = s.Forget(t.Context(), "三", true)
	if err != nil || res.ArchivedTo != ".archive/三.md" {
		t.Fatalf("Forget archive = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), ".archive", "三.md")); err != nil {
		t.Errorf("archived file: %v", err)
	}
	// Archiving a second memory of the same file name keeps both.
	mustAdd(t, s, "三", "again")
	res, err = s.Forget(t.Context(), "三", true)
	if err != nil || res.ArchivedTo == ".archive/三.md" || !strings.HasPrefix(res.ArchivedTo, ".archive/三.") {
		t.Fatalf("second archive = %+v, %v", res, err)
	}
	if _, err := s.Forget(t.Context(), "nobody", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("forget unknown: %v, want ErrNotFound", err)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if string(idx) != "- [two](two.md) — second\n" {
		t.Errorf("index = %q", idx)
	}
}

func TestForgetIndexLinePointingNowhere(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "kept", "k")
	mustAdd(t, s, "gone", "g")
	os.Remove(filepath.Join(s.Dir(), "gone.md"))
	diags, err := s.Lint(t.Context())
	// A warning, not an error: Claude Code does nothing with such a line.
	if err != nil || len(diags) != 1 || Errors(diags) != 0 || diags[0].Severity != SevWarning || !strings.Contains(diags[0].Message, "does not exist") {
		t.Fatalf("Lint = %v, %v; want one warning for the dangling line", diags, err)
	}
	res, err := s.Forget(t.Context(), "gone", false)
	if err != nil || res.File != "" || res.IndexLines != 1 {
		t.Fatalf("Forget = %+v, %v", res, err)
	}
}

func TestReindexAfterHandEdit(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "style", "old hook")
	p := filepath.Join(s.Dir(), "style.md")
	edited := "---\nname: style\ndescription: new hook\ntype: feedback\n---\nhand-written body\n"
	if err := os.WriteFile(p, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	changed, err := s.Reindex(t.Context(), "style.md")
	if err != nil || !changed {
		t.Fatalf("Reindex = %v, %v", changed, err)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	if string(idx) != "- [style](style.md) — new hook\n" {
		t.Errorf("index = %q", idx)
	}
	got, _ := os.ReadFile(p)
	if string(got) != edited {
		t.Errorf("Reindex rewrote the topic file")
	}
	if changed, err := s.Reindex(t.Context(), "style.md"); err != nil || changed {
		t.Errorf("second Reindex = %v, %v; want no change", changed, err)
	}
	if _, err := s.Reindex(t.Context(), "../x.md"); err == nil {
		t.Errorf("Reindex outside the dir: no error")
	}
}

func TestHandEditedFilesAreNotRewritten(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "a", "first")
	broken := "---\nname: [unclosed\n---\nthe body still counts\n"
	bare := "no frontmatter at all\n"
	writeRaw(t, s.Dir(), "broken.md", broken)
	writeRaw(t, s.Dir(), "bare.md", bare)
	writeRaw(t, s.Dir(), "blob.md", "\x00\x01\x02binary")
	// Keep the consistency check happy: the hand files are in the index.
	idx, _ := os.ReadFile(s.IndexPath())
	idx = append(idx, "- [broken](broken.md)\n- [bare](bare.md)\n- [blob](blob.md)\n"...)
	os.WriteFile(s.IndexPath(), idx, 0o600)

	mustAdd(t, s, "b", "second")
	mustAdd(t, s, "a", "first, updated")
	if _, err := s.Forget(t.Context(), "b", false); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"broken.md": broken, "bare.md": bare} {
		got, _ := os.ReadFile(filepath.Join(s.Dir(), name))
		if string(got) != want {
			t.Errorf("%s was rewritten: %q", name, got)
		}
	}
	mems, diags, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.md", "bare.md", "broken.md"}, files(mems)); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	for _, m := range mems {
		if m.File == "broken.md" && m.Body != "the body still counts\n" {
			t.Errorf("broken.md body = %q", m.Body)
		}
	}
	var sev []string
	for _, d := range diags {
		sev = append(sev, filepath.Base(d.Path)+":"+string(d.Severity))
	}
	if diff := cmp.Diff([]string{"bare.md:warning", "blob.md:warning", "broken.md:error"}, sortedCopy(sev)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, diags)
	}
	// A name whose file is taken by the binary blob goes to the hashed file.
	res := mustAdd(t, s, "blob", "named like the blob")
	if res.File != FileNameAlt("blob") {
		t.Errorf("file = %s, want %s", res.File, FileNameAlt("blob"))
	}
	os.Remove(filepath.Join(s.Dir(), "blob.md"))
	s.Forget(t.Context(), "blob.md", false)
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestSymlinkOutOfTheDirIsNeverFollowedForAWrite(t *testing.T) {
	outside := t.TempDir()
	secretFile := filepath.Join(outside, "target.md")
	os.WriteFile(secretFile, []byte("outside content\n"), 0o600)

	t.Run("topic file", func(t *testing.T) {
		s := newTestStore(t, Options{})
		mustAdd(t, s, "other", "o")
		if err := os.Symlink(secretFile, filepath.Join(s.Dir(), "evil.md")); err != nil {
			t.Fatal(err)
		}
		_, err := s.Add(t.Context(), Input{Name: "evil", Type: TypeUser, Description: "x", Body: "overwrite?"})
		if !errors.Is(err, ErrUnsafePath) {
			// The file name is taken (by the link), so the hashed name is used instead: also fine,
			// as long as the target was not written.
			if err != nil {
				t.Fatalf("err = %v", err)
			}
		}
		got, _ := os.ReadFile(secretFile)
		if string(got) != "outside content\n" {
			t.Fatalf("the symlink target was written: %q", got)
		}
		// List does not read through it either.
		mems, diags, _ := s.List(t.Context())
		for _, m := range mems {
			if m.File == "evil.md" {
				t.Errorf("List read through the symlink")
			}
		}
		if len(diags) == 0 {
			t.Errorf("no diagnostic for the symlink")
		}
		os.Remove(filepath.Join(s.Dir(), "evil.md"))
		s.Forget(t.Context(), "evil", false)
	})
	t.Run("index", func(t *testing.T) {
		s := newTestStore(t, Options{})
		os.MkdirAll(s.Dir(), 0o700)
		if err := os.Symlink(secretFile, s.IndexPath()); err != nil {
			t.Fatal(err)
		}
		_, err := s.Add(t.Context(), Input{Name: "x", Type: TypeUser, Description: "x"})
		if !errors.Is(err, ErrUnsafePath) {
			t.Fatalf("err = %v, want ErrUnsafePath", err)
		}
		got, _ := os.ReadFile(secretFile)
		if string(got) != "outside content\n" {
			t.Fatalf("the symlink target was written: %q", got)
		}
		if _, err := os.Stat(filepath.Join(s.Dir(), "x.md")); err == nil {
			t.Errorf("x.md was written although the index could not be")
		}
		it, _ := s.LoadIndex(t.Context())
		if it.Exists {
			t.Errorf("LoadIndex read through a symlink leading outside")
		}
		os.Remove(s.IndexPath())
	})
	t.Run("logs and archive", func(t *testing.T) {
		s := newTestStore(t, Options{})
		mustAdd(t, s, "a", "x")
		outDir := t.TempDir()
		os.RemoveAll(filepath.Join(s.Dir(), ArchiveDir)) // the name map the add wrote
		os.Symlink(outDir, filepath.Join(s.Dir(), LogsDir))
		os.Symlink(outDir, filepath.Join(s.Dir(), ArchiveDir))
		if _, err := s.AppendLog(t.Context(), "note"); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("AppendLog through a symlinked logs/: %v, want ErrUnsafePath", err)
		}
		before := dirState(t, s.Dir())
		if _, err := s.Forget(t.Context(), "a", true); !errors.Is(err, ErrUnsafePath) {
			t.Errorf("Forget --archive through a symlinked .archive/: %v, want ErrUnsafePath", err)
		}
		if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
			t.Errorf("failed forget changed the dir (-before +after):\n%s", diff)
		}
		if ents, _ := os.ReadDir(outDir); len(ents) != 0 {
			t.Errorf("something was written outside: %v", ents)
		}
		os.Remove(filepath.Join(s.Dir(), LogsDir))
		os.Remove(filepath.Join(s.Dir(), ArchiveDir))
	})
}

func TestReadOnlyMemoryDir(t *testing.T) {
	t.Run("permissions", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("running as root: directory permissions do not stop root; the injected EROFS case below covers the error path")
		}
		s := newTestStore(t, Options{})
		mustAdd(t, s, "a", "x")
		os.Chmod(s.Dir(), 0o500)
		defer os.Chmod(s.Dir(), 0o700)
		if _, err := s.Add(t.Context(), Input{Name: "b", Type: TypeUser, Description: "y"}); err == nil {
			t.Fatal("Add into a read-only dir: no error")
		}
	})
	t.Run("read-only file system", func(t *testing.T) {
		s := newTestStore(t, Options{})
		mustAdd(t, s, "a", "x")
		before := dirState(t, s.Dir())
		s.opts.FS = readOnlyFS{s.opts.FS}
		_, err := s.Add(t.Context(), Input{Name: "b", Type: TypeUser, Description: "y"})
		if err == nil || !strings.Contains(err.Error(), "read-only file system") {
			t.Fatalf("err = %v, want a read-only file system error", err)
		}
		if diff := cmp.Diff(before, dirState(t, s.Dir())); diff != "" {
			t.Errorf("the dir changed (-before +after):\n%s", diff)
		}
		// Reads still work.
		if mems, _, err := s.List(t.Context()); err != nil || len(mems) != 1 {
			t.Errorf("List = %d, %v", len(mems), err)
		}
	})
}

func TestFileModes(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "a", "x")
	s.opts.Mode = ModeDailyLog
	mustAdd(t, s, "b", "y")
	// checkConsistency (cleanup) walks every file and dir and checks 0600/0700.
}

func TestReindexRefusesSecretInDescription(t *testing.T) {
	s := newTestStore(t, Options{})
	mustAdd(t, s, "ci", "how CI logs in")
	writeRaw(t, s.Dir(), "ci.md", "---\nname: ci\ndescription: uses ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\ntype: reference\n---\n")
	before, _ := os.ReadFile(s.IndexPath())
	if _, err := s.Reindex(t.Context(), "ci.md"); !errors.Is(err, ErrSecret) {
		t.Fatalf("Reindex = %v, want ErrSecret", err)
	}
	after, _ := os.ReadFile(s.IndexPath())
	if string(after) != string(before) {
		t.Errorf("index changed: %q", after)
	}
}

// The line of the body named is the line of the text as the caller gave it: leading blank lines
// and CRLF line ends (which the file does not keep) count; a secret in the description is named
// by its line in the file only.
func TestSecretErrorBodyLine(t *testing.T) {
	const key = "use AKIAIOSFODNN7EXAMPLE"
	tests := []struct {
		name     string
		in       Input
		bodyLine int
	}{
		{"first line", Input{Body: key}, 1},
		{"after blank lines", Input{Body: "\n\nintro\n" + key + "\n"}, 4},
		{"CRLF", Input{Body: "a\r\nb\r\n" + key + "\r\n"}, 3},
		{"description", Input{Description: "CI " + key, Body: "clean\n"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestStore(t, Options{})
			in := tt.in
			in.Name, in.Type = "creds", TypeReference
			if in.Description == "" {
				in.Description = "d"
			}
			_, err := s.Add(t.Context(), in)
			var se *SecretError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *SecretError", err)
			}
			if se.BodyLine != tt.bodyLine || se.Line < 1 {
				t.Errorf("SecretError = %+v, want body line %d", se, tt.bodyLine)
			}
			if want := fmt.Sprintf("line %d of the body", tt.bodyLine); (tt.bodyLine > 0) != strings.Contains(err.Error(), want) {
				t.Errorf("message %q, body line %d", err, tt.bodyLine)
			}
		})
	}
}
