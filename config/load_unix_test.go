//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/fsutil"
)

// A settings file that is a FIFO, a device or huge is refused by its type or size before it is
// read, named in an error, and the other files still apply. Without the check, the FIFO hangs
// every command and /dev/zero exhausts memory.
func TestSettingsFileNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	cases := map[string]func(path string) error{
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o600) },
		"devzero": func(p string) error { return os.Symlink("/dev/zero", p) },
		"huge": func(p string) error {
			if err := os.WriteFile(p, []byte(`{"model": "x"}`), 0o600); err != nil {
				return err
			}
			return os.Truncate(p, 100<<30) // sparse: 100 GB that take no space
		},
		"just over the cap": func(p string) error {
			return os.WriteFile(p, []byte(`{"model": "`+strings.Repeat("x", MaxSettingsBytes)+`"}`), 0o600)
		},
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			f := newSettingsFixture(t)
			f.write(f.user, `{"model": "from-user"}`)
			if err := mk(f.project); err != nil {
				t.Skip(err)
			}
			done := make(chan struct{})
			var s Settings
			var errs []error
			go func() { s, errs = f.env.Load(f.proj); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Load hangs on the settings file")
			}
			if s.Model != "from-user" || len(errs) != 1 || !strings.Contains(errs[0].Error(), f.project) {
				t.Fatalf("model %q, errs %v", s.Model, errs)
			}
			if !errors.Is(errs[0], fsutil.ErrNotRegular) && !errors.Is(errs[0], fsutil.ErrTooLarge) {
				t.Errorf("err = %v, want ErrNotRegular or ErrTooLarge", errs[0])
			}
		})
	}
}

// A repository's .git file as a FIFO does not hang finding the project root.
func TestProjectRootGitFileFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ".git"), 0o600); err != nil {
		t.Skip(err)
	}
	done := make(chan string)
	go func() { done <- ProjectRoot(dir) }()
	select {
	case got := <-done:
		if want, _ := filepath.EvalSymlinks(dir); got != want {
			t.Errorf("ProjectRoot = %s, want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ProjectRoot hangs on a .git FIFO")
	}
}
