package instructions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/strata-mem/strata/config"
)

// fixture is a temp dir with a home, a managed dir and a git repository "repo".
type fixture struct {
	t    *testing.T
	dir  string
	repo string
	opts Options
}

func newFixture(t *testing.T, files map[string]string) *fixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, dir: dir, repo: filepath.Join(dir, "repo")}
	f.opts = Options{Env: config.Env{
		Home:       filepath.Join(dir, "home", ".strata"),
		ManagedDir: filepath.Join(dir, "managed"),
		UserHome:   filepath.Join(dir, "home"),
	}}
	f.mkdir("repo/.git")
	f.write(files)
	return f
}

func (f *fixture) mkdir(rel string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Join(f.dir, rel), 0o700); err != nil {
		f.t.Fatal(err)
	}
}

// write creates files relative to the fixture dir; a value "->target" makes a symlink.
func (f *fixture) write(files map[string]string) {
	f.t.Helper()
	for rel, content := range files {
		p := filepath.Join(f.dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			f.t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				f.t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) load(cwdRel string) *Set {
	f.t.Helper()
	s, err := Load(context.Background(), filepath.Join(f.dir, cwdRel), f.opts)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// rel turns fixture paths into short names; pieces outside the fixture are dropped (the machine
// running the tests may have instruction files in /tmp or /).
func (f *fixture) rel(srcs []Source) []string {
	var out []string
	for _, s := range srcs {
		if r, ok := strings.CutPrefix(s.Path, f.dir+string(filepath.Separator)); ok {
			out = append(out, string(s.Layer)+":"+string(s.Reason)+":"+filepath.ToSlash(r))
		}
	}
	return out
}

// diags returns the fixture's diagnostics as "severity rel:line message".
func (f *fixture) diags(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		r, ok := strings.CutPrefix(d.Path, f.dir+string(filepath.Separator))
		if !ok {
			continue
		}
		out = append(out, string(d.Severity)+" "+filepath.ToSlash(r)+":"+itoa(d.Line)+" "+strings.ReplaceAll(d.Message, f.dir+"/", ""))
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// hasDiag reports whether some diagnostic has the severity, path suffix and message part.
func hasDiag(ds []Diagnostic, sev Severity, pathSuffix, msgPart string) bool {
	for _, d := range ds {
		if d.Severity == sev && strings.HasSuffix(d.Path, pathSuffix) && strings.Contains(d.Message, msgPart) {
			return true
		}
	}
	return false
}
