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

// escapeAttempts are the paths a hostile or confused model may try, given the memory dir and a
// sibling directory outside it. None may be written.
func escapeAttempts(dir, outside string) []string {
	var out []string
	for n := 1; n <= 8; n++ {
		out = append(out, strings.Repeat("../", n)+"x.md")
	}
	out = append(out,
		"../outside/secret.md", "../outside/new.md", "./../x.md", "foo/../../x.md",
		"foo/../../outside/secret.md", "a/b/../../../x.md", "foo/../x.md", "./foo/../../x.md",
		"/etc/passwd", "/etc/x.md", "/etc/../etc/x.md", "/", "//etc/x.md", "/tmp/x.md",
		filepath.Join(outside, "secret.md"), filepath.Join(outside, "new.md"),
		dir+"/../outside/new.md", dir+"/../outside/secret.md", dir+"/sub/new.md", dir+"/sub/secret.md",
		dir+"x.md", dir+"/", dir,
		"out.md", "./out.md", dir+"/out.md", "in.md", dir+"/in.md",
		"sub/new.md", "sub/secret.md", "sub/../x.md", "./sub/secret.md",
		"x.md\x00", "\x00../x.md", "x\x00/../../x.md", "../x.md\x00.md",
		`..\..\x.md`, `sub\new.md`, `C:\x.md`, `\\server\share\x.md`, `..\x.md`, `x\..\..\y.md`,
		strings.Repeat("a", 300)+".md", strings.Repeat("a/", 100)+"x.md", strings.Repeat("../", 1500)+"x.md",
		strings.Repeat("长", 100)+".md",
		"MEMORY.md", "./MEMORY.md", dir+"/MEMORY.md", "memory.md", "MEMORY\uff0emd", "\uff2d\uff25\uff2d\uff2f\uff32\uff39.md",
		"EXTRACT.md", "extract.md", dir+"/EXTRACT.md",
		".inbox/x.md", ".archive/x.md", ".archive/ARCHIVE.log", memdir.LockFile, ".consolidate-lock",
		".inbox", ".hidden.md", "./.inbox/x.md", dir+"/.inbox/x.md", "logs/2026/01/2026-01-01.md",
		"..\uff0fx.md", "\uff0e\uff0e\uff0fx.md", "a\u2215..\u2215x.md", "..\u2044x.md", "x\u202e.md",
		"\u200b../x.md", "\ufeffx.md", "a\u29f8b.md", "\u2024\u2024/x.md",
		"x.md\n", "x\r.md", "x\t.md", "\x1b[2Jx.md", "x\u2028.md",
		"x.md.sh", "x", "x.MD", "x.txt", ".md", "x.md/", "x.md/.",
		"\xff\xfe.md", "a\xc0\xaf.md",
		"~/x.md", "~/.ssh/authorized_keys", "$HOME/x.md",
	)
	return out
}

func TestConfinedHundredEscapes(t *testing.T) {
	ctx := t.Context()
	c, _, dir, outside := newConfined(t, WriteAuto, memdir.Options{})
	mustSymlink(t, filepath.Join(outside, "secret.md"), filepath.Join(dir, "out.md"))
	mustWrite(t, filepath.Join(dir, "real.md"), memText("real", "inside", "user", "b"))
	mustSymlink(t, "real.md", filepath.Join(dir, "in.md"))
	mustSymlink(t, outside, filepath.Join(dir, "sub"))
	if err := os.MkdirAll(filepath.Join(dir, ".inbox"), 0o700); err != nil {
		t.Fatal(err)
	}
	before, beforeOut := tree(t, dir), tree(t, outside)

	attempts := escapeAttempts(dir, outside)
	const races = 2 // the attempts below that swap a path while the write is under way
	if len(attempts) < 100-races {
		t.Fatalf("only %d attempts; want %d", len(attempts), 100-races)
	}
	attempts = attempts[:100-races]
	content := memText("escape", "an attempt", "user", "written where it should not be")
	for i, p := range attempts {
		var err error
		if i%2 == 0 {
			_, err = c.Write(ctx, p, content)
		} else {
			_, err = c.Edit(ctx, p, "inside", "owned", false)
		}
		if !errors.Is(err, ErrDenied) {
			t.Errorf("attempt %d %q: error = %v; want a denial", i, p, err)
		}
	}
	after := tree(t, dir)
	delete(after, memdir.LockFile)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("memory dir changed (-before +after):\n%s", diff)
	}

	// Races: the staging dir becomes a symlink out of the root between the checks and the
	// write; os.Root refuses to follow it.
	cc, err := OpenConfined(c.store, WriteConfirm)
	if err != nil {
		t.Fatal(err)
	}
	swap := func(rel string) {
		inbox := filepath.Join(dir, memdir.InboxDir)
		if err := os.RemoveAll(inbox); err != nil {
			t.Fatal(err)
		}
		mustSymlink(t, outside, inbox)
	}
	cc.beforeCommit = swap
	if _, err := cc.Write(ctx, "race.md", content); !errors.Is(err, ErrDenied) {
		t.Errorf("race Write: error = %v; want a denial", err)
	}
	// The same link, now in place before the call.
	cc.beforeCommit = nil
	if _, err := cc.Write(ctx, "race2.md", content); !errors.Is(err, ErrDenied) {
		t.Errorf("Write through a symlinked .inbox: error = %v; want a denial", err)
	}

	if diff := cmp.Diff(beforeOut, tree(t, outside)); diff != "" {
		t.Errorf("outside changed (-before +after):\n%s", diff)
	}
	for _, d := range cc.Denied() {
		t.Logf("race denial: %s", d.Reason)
	}
	denied := append(c.Denied(), cc.Denied()...)
	if len(denied) != 100 {
		t.Errorf("%d denials reported; want 100", len(denied))
	}
	for _, d := range denied {
		if d.Reason == "" {
			t.Errorf("denial of %q has no reason", d.Path)
		}
	}
	if w := append(c.Written(), cc.Written()...); len(w) != 0 {
		t.Errorf("Written = %q; want nothing", w)
	}
}

// FuzzResolveName checks that every name accepted lies directly in the memory dir, is a
// visible markdown file and none of the reserved ones.
func FuzzResolveName(f *testing.F) {
	dir := "/mem/dir"
	for _, p := range escapeAttempts(dir, "/mem/outside") {
		f.Add(p)
	}
	f.Add("ok.md")
	f.Add("部署.md")
	f.Add(dir + "/./a.md")
	f.Fuzz(func(t *testing.T, p string) {
		name, err := resolveName([]string{dir}, p)
		if err != nil {
			if name != "" {
				t.Fatalf("resolveName(%q) = %q with error %v", p, name, err)
			}
			return
		}
		switch {
		case strings.ContainsAny(name, "/\\\x00"), strings.HasPrefix(name, "."), strings.Contains(name, ".."),
			!strings.HasSuffix(name, ".md"), len(name) > MaxNameBytes,
			strings.EqualFold(name, memdir.IndexFile), strings.EqualFold(name, GuidanceFile):
			t.Fatalf("resolveName(%q) accepted %q", p, name)
		}
		if j := filepath.Join(dir, name); filepath.Dir(j) != dir {
			t.Fatalf("resolveName(%q) = %q, outside %s", p, name, dir)
		}
	})
}
