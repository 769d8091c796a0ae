package compact

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/toolcall"
)

func openTestNotes(t *testing.T) (*Notes, string) {
	t.Helper()
	path := NotesPath(filepath.Join(t.TempDir(), "proj", "sess.jsonl"))
	n, err := OpenNotes(path)
	if err != nil {
		t.Fatal(err)
	}
	return n, path
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestOpenNotesCreatesTemplate(t *testing.T) {
	n, path := openTestNotes(t)
	if n.Path() != path {
		t.Errorf("Path = %q, want %q", n.Path(), path)
	}
	if got := readFile(t, path); got != NotesTemplate {
		t.Errorf("new file is not the template:\n%s", got)
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("modes file %v dir %v, want 0600 and 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("dir holds %d entries, want only the notes (temp file left?)", len(ents))
	}

	// Reopening keeps what is there.
	filled := fill(NotesTemplate, "## Task", "把 README 翻译成中文")
	if err := os.WriteFile(path, []byte(filled), 0o600); err != nil {
		t.Fatal(err)
	}
	n2, err := OpenNotes(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := n2.Read()
	if err != nil || got != filled {
		t.Errorf("Read after reopen = %q, %v", got, err)
	}
}

func TestNotesEdit(t *testing.T) {
	n, path := openTestNotes(t)
	desc := notesSections[0].desc
	msg, err := n.EditPath(path, desc+"\n", desc+"\n正在修复 parser.go 的 Parse；下一步：go test ./parser\n", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "at line 4") {
		t.Errorf("result %q", msg)
	}
	if !strings.Contains(readFile(t, path), "下一步：go test ./parser") {
		t.Error("edit not written")
	}
	// The usual edit errors.
	if _, err := n.Edit("no such text", "x", false); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing old: %v", err)
	}
	if _, err := n.Edit("_", "*", false); err == nil || !strings.Contains(err.Error(), "occurs") {
		t.Errorf("ambiguous old: %v", err)
	}
	if _, err := n.Edit("", "x", false); err == nil {
		t.Error("empty old accepted")
	}
	// replace_all
	before := readFile(t, path)
	if msg, err := n.Edit("下一步", "接下来", true); err != nil || !strings.Contains(msg, "at line") {
		t.Errorf("replace_all of one occurrence: %q, %v", msg, err)
	}
	if got := readFile(t, path); got != strings.ReplaceAll(before, "下一步", "接下来") {
		t.Errorf("replace_all wrote %q", got)
	}
}

func TestNotesRefusesBrokenResults(t *testing.T) {
	n, path := openTestNotes(t)
	before := readFile(t, path)
	tests := []struct {
		name    string
		do      func() (string, error)
		mention string
	}{
		{"drop a heading", func() (string, error) { return n.Edit("## Workflow\n", "", false) }, `"## Workflow" is missing`},
		{"drop a description", func() (string, error) { return n.Edit(notesSections[2].desc, "", false) }, "lost its description"},
		{"section over cap", func() (string, error) {
			return n.Edit(notesSections[7].desc, notesSections[7].desc+"\n"+strings.Repeat("日志", 1_001), false)
		}, `"## Worklog" is about 2002 tokens`},
		{"write without template", func() (string, error) { return n.Write(path, "just some text") }, "title line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.do()
			if !errors.Is(err, ErrNotesOnly) || !strings.Contains(err.Error(), tt.mention) {
				t.Fatalf("err = %v, want ErrNotesOnly naming %q", err, tt.mention)
			}
			if got := readFile(t, path); got != before {
				t.Error("refused change altered the file")
			}
		})
	}
}

func TestNotesMendsStepByStep(t *testing.T) {
	// A file that is already off (an older template, a hand edit) can be edited as long as
	// nothing gets worse, and the reply says what is still to fix.
	n, path := openTestNotes(t)
	old := strings.Replace(NotesTemplate, "## Learnings\n"+notesSections[5].desc+"\n", "", 1)
	old = fill(old, "## Worklog", strings.Repeat("旧", 2_500))
	if err := os.WriteFile(path, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	msg, err := n.Edit(notesSections[0].desc, notesSections[0].desc+"\nnow: tests", false)
	if err != nil {
		t.Fatalf("edit of a file already off: %v", err)
	}
	if !strings.Contains(msg, "Still to fix") || !strings.Contains(msg, "## Learnings") || !strings.Contains(msg, "## Worklog") {
		t.Errorf("reply does not name what is left: %q", msg)
	}
	// Growing the section already over its cap is refused.
	if _, err := n.Edit(notesSections[7].desc, notesSections[7].desc+"\n更多", false); !errors.Is(err, ErrNotesOnly) {
		t.Errorf("growing an over-cap section: %v, want ErrNotesOnly", err)
	}
	// Shrinking it is fine.
	if _, err := n.Edit(strings.Repeat("旧", 2_500), strings.Repeat("旧", 100), false); err != nil {
		t.Errorf("shrinking: %v", err)
	}
}

func TestNotesConfinement(t *testing.T) {
	n, path := openTestNotes(t)
	dir := filepath.Dir(path)
	outside := filepath.Join(filepath.Dir(dir), "other.md")
	cwd, _ := os.Getwd()
	rel, _ := filepath.Rel(cwd, path)
	tests := map[string]string{
		"another file":          outside,
		"sibling":               filepath.Join(dir, "summary2.md"),
		"dot-dot out":           filepath.Join(dir, "..", "other.md"),
		"dot-dot textual":       dir + "/../session-memory/../x.md",
		"relative name":         "summary.md",
		"relative to cwd":       rel,
		"relative with dot-dot": filepath.Join("..", "session-memory", "summary.md"),
		"directory":             dir,
		"empty":                 "",
	}
	for name, p := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := n.Write(p, NotesTemplate); !errors.Is(err, ErrNotesOnly) {
				t.Errorf("Write(%q) = %v, want ErrNotesOnly", p, err)
			}
			if _, err := n.EditPath(p, "# Session notes", "# Session notes ", false); !errors.Is(err, ErrNotesOnly) {
				t.Errorf("EditPath(%q) = %v, want ErrNotesOnly", p, err)
			}
		})
	}
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Error("a file outside was written")
	}
	// The clean form of the notes path itself is accepted.
	if _, err := n.Write(dir+"/./"+filepath.Base(path), fill(NotesTemplate, "## Task", "ok")); err != nil {
		t.Errorf("unclean but equal path refused: %v", err)
	}
}

func TestNotesApply(t *testing.T) {
	n, path := openTestNotes(t)
	in := `{"file_path":` + quote(path) + `,"old_string":` + quote(notesSections[1].desc) + `,"new_string":` + quote(notesSections[1].desc+"\n写中文文档") + `}`
	if _, err := applyRaw(n, "Edit", in); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(readFile(t, path), "写中文文档") {
		t.Error("Apply Edit not written")
	}
	content := fill(NotesTemplate, "## Task", "rewritten")
	if _, err := applyRaw(n, "Write", `{"file_path":`+quote(path)+`,"content":`+quote(content)+`}`); err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != content {
		t.Error("Apply Write not written")
	}
	for _, c := range []toolcall.Call{&toolcall.Bash{Command: "rm -rf /"}, &toolcall.Read{FilePath: path}, &toolcall.MemorySave{Name: "x"}, nil} {
		if _, err := n.Apply(c); !errors.Is(err, ErrNotesOnly) {
			t.Errorf("Apply(%#v) = %v, want ErrNotesOnly", c, err)
		}
	}
	if _, err := applyRaw(n, "Write", `{"file_path":"/etc/passwd","content":"x"}`); !errors.Is(err, ErrNotesOnly) {
		t.Errorf("Write elsewhere = %v", err)
	}
	if _, err := applyRaw(n, "Edit", `not json`); err == nil {
		t.Error("bad input accepted")
	}
}

// applyRaw decodes input as the agent does (paths left as given) and applies the call. A
// call that does not decode is refused before Notes sees it: the error wraps errUndecodable.
func applyRaw(n *Notes, tool, input string) (string, error) {
	c, err := toolcall.Decode(tool, []byte(input), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errUndecodable, err)
	}
	return n.Apply(c)
}

var errUndecodable = errors.New("the call does not decode")

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestNotesSymlinks(t *testing.T) {
	t.Run("parent is a symlink", func(t *testing.T) {
		base := t.TempDir()
		real := filepath.Join(base, "elsewhere")
		os.MkdirAll(real, 0o700)
		sess := filepath.Join(base, "sess")
		os.MkdirAll(sess, 0o700)
		if err := os.Symlink(real, filepath.Join(sess, "session-memory")); err != nil {
			t.Skip("no symlinks:", err)
		}
		_, err := OpenNotes(filepath.Join(sess, "session-memory", "summary.md"))
		if !errors.Is(err, ErrNotesSymlink) {
			t.Errorf("OpenNotes = %v, want ErrNotesSymlink", err)
		}
		if ents, _ := os.ReadDir(real); len(ents) != 0 {
			t.Error("something was written through the symlink")
		}
	})
	t.Run("file is a symlink", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "session-memory")
		os.MkdirAll(dir, 0o700)
		target := filepath.Join(t.TempDir(), "target.md")
		os.WriteFile(target, []byte("secret"), 0o600)
		if err := os.Symlink(target, filepath.Join(dir, "summary.md")); err != nil {
			t.Skip("no symlinks:", err)
		}
		if _, err := OpenNotes(filepath.Join(dir, "summary.md")); !errors.Is(err, ErrNotesSymlink) {
			t.Errorf("OpenNotes = %v, want ErrNotesSymlink", err)
		}
	})
	t.Run("swapped after open", func(t *testing.T) {
		n, path := openTestNotes(t)
		dir := filepath.Dir(path)
		real := filepath.Join(t.TempDir(), "real")
		os.MkdirAll(real, 0o700)
		os.WriteFile(filepath.Join(real, "summary.md"), []byte(NotesTemplate), 0o600)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, dir); err != nil {
			t.Skip("no symlinks:", err)
		}
		if _, err := n.Write(path, fill(NotesTemplate, "## Task", "x")); !errors.Is(err, ErrNotesSymlink) {
			t.Errorf("Write through a swapped dir = %v, want ErrNotesSymlink", err)
		}
		if _, err := n.Read(); !errors.Is(err, ErrNotesSymlink) {
			t.Errorf("Read through a swapped dir = %v, want ErrNotesSymlink", err)
		}
		if got := readFile(t, filepath.Join(real, "summary.md")); got != NotesTemplate {
			t.Error("the symlink target was written")
		}
		// The file replaced by a symlink inside a real dir.
		os.Remove(dir)
		os.MkdirAll(dir, 0o700)
		if err := os.Symlink(filepath.Join(real, "summary.md"), path); err != nil {
			t.Fatal(err)
		}
		if _, err := n.Edit(notesSections[1].desc, "x", false); !errors.Is(err, ErrNotesSymlink) {
			t.Errorf("Edit of a symlinked file = %v, want ErrNotesSymlink", err)
		}
	})
}

func TestNotesWriteFailuresKeepOldContent(t *testing.T) {
	cases := map[string]*fsutil.Faulty{
		"create":   {FailCreate: 1},
		"write":    {FailWrite: 1},
		"sync":     {FailSync: 1},
		"rename":   {FailRename: 1},
		"sync dir": {FailSyncDir: 1},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			n, path := openTestNotes(t)
			n.wrap = func(inner fsutil.FS) fsutil.FS { f.FS = inner; return f }
			_, err := n.Write(path, fill(NotesTemplate, "## Task", "new"))
			if !errors.Is(err, fsutil.ErrInjected) {
				t.Fatalf("err = %v, want injected", err)
			}
			got := readFile(t, path)
			if name == "sync dir" {
				// The rename happened: the content is complete, only its durability is in doubt.
				if !strings.Contains(got, "new") {
					t.Error("after a failed dir sync the new content should be in place")
				}
			} else if diff := cmp.Diff(NotesTemplate, got); diff != "" {
				t.Errorf("content changed (-want +got):\n%s", diff)
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
				t.Errorf("dir holds %d entries, want 1 (temp file left behind?)", len(ents))
			}
		})
	}
}

func TestNotesConcurrentEdits(t *testing.T) {
	n, path := openTestNotes(t)
	var wg sync.WaitGroup
	for _, s := range notesSections {
		wg.Go(func() {
			if _, err := n.Edit(s.desc, s.desc+"\n- 记录 "+s.heading, false); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	text := readFile(t, path)
	for _, s := range notesSections {
		if !strings.Contains(text, "- 记录 "+s.heading) {
			t.Errorf("edit of %s lost", s.heading)
		}
	}
	if p := CheckNotes(text); len(p) != 0 {
		t.Errorf("CheckNotes: %v", p)
	}
}

// escapes are tool calls a model might try from the notes fork; every one must be refused.
func escapes(path string) []struct{ tool, input string } {
	dir := filepath.Dir(path)
	var out []struct{ tool, input string }
	targets := []string{
		filepath.Join(dir, "..", "sess.jsonl"),
		filepath.Join(dir, "..", "..", "memory", "MEMORY.md"),
		filepath.Join(dir, "summary.md.bak"),
		filepath.Join(dir, ".covered"),
		dir,
		filepath.Dir(dir),
		"summary.md",
		"./summary.md",
		"session-memory/summary.md",
		"../session-memory/summary.md",
		"~/.bashrc",
		"/etc/passwd",
		path + "/",
		path + "\x00",
		path + " ",
		strings.ToUpper(path),
		"file://" + path,
	}
	for _, tgt := range targets {
		out = append(out,
			struct{ tool, input string }{"Write", `{"file_path":` + quote(tgt) + `,"content":` + quote(NotesTemplate) + `}`},
			struct{ tool, input string }{"Edit", `{"file_path":` + quote(tgt) + `,"old_string":"# Session notes","new_string":"# Session notes!"}`})
	}
	for _, tool := range []string{"Bash", "Read", "Glob", "Grep", "TodoWrite", "memory_save", "memory_forget", "edit", "write", "MultiEdit", "NotebookEdit"} {
		out = append(out, struct{ tool, input string }{tool, `{"file_path":` + quote(path) + `,"command":"rm -rf /"}`})
	}
	return out
}

func TestNotesEscapeAttempts(t *testing.T) {
	n, path := openTestNotes(t)
	before := readFile(t, path)
	attempts := escapes(path)
	for _, a := range attempts {
		if res, err := applyRaw(n, a.tool, a.input); !errors.Is(err, ErrNotesOnly) && !errors.Is(err, errUndecodable) {
			t.Errorf("%s %s: %q, %v; want ErrNotesOnly or a decoding error", a.tool, a.input, res, err)
		}
	}
	if got := readFile(t, path); got != before {
		t.Error("the notes changed")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("notes dir holds %d entries, want 1", len(ents))
	}
	if ents, _ := os.ReadDir(filepath.Dir(filepath.Dir(path))); len(ents) != 1 {
		t.Errorf("session dir holds %d entries, want only session-memory", len(ents))
	}
	if !t.Failed() {
		t.Logf("%d escape attempts, all refused", len(attempts))
	}
}

// FuzzNotesApply feeds arbitrary tool calls to a fresh notes file: nothing but the notes file
// is ever written, and since the template is clean, the file always passes CheckNotes.
func FuzzNotesApply(f *testing.F) {
	f.Add("Edit", `{"file_path":"%P","old_string":"# Session notes","new_string":"# Notes"}`)
	f.Add("Edit", `{"file_path":"%P","old_string":"## Task\n","new_string":"## Task\n- 修复\n"}`)
	f.Add("Write", `{"file_path":"%P","content":"# Session notes\n"}`)
	f.Add("Write", `{"file_path":"%P/../x.md","content":"x"}`)
	f.Add("Edit", `{"file_path":"summary.md","old_string":"_","new_string":"*","replace_all":true}`)
	f.Fuzz(func(t *testing.T, tool, input string) {
		n, path := openTestNotes(t)
		input = strings.ReplaceAll(input, "%P", strings.ReplaceAll(path, `\`, `\\`))
		applyRaw(n, tool, input)
		text := readFile(t, path)
		if p := CheckNotes(text); len(p) != 0 {
			t.Fatalf("the notes fail CheckNotes after %s %s: %v", tool, input, p)
		}
		ents, _ := os.ReadDir(filepath.Dir(path))
		if len(ents) != 1 {
			t.Fatalf("notes dir holds %d entries", len(ents))
		}
		if ents, _ := os.ReadDir(filepath.Dir(filepath.Dir(path))); len(ents) != 1 {
			t.Fatalf("session dir holds %d entries", len(ents))
		}
	})
}
