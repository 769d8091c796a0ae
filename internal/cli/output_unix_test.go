//go:build unix

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// writeOutput never replaces a device: a character device like /dev/full (made in a temp dir,
// so the test touches no real device) and a symlink to one are refused and stay what they are.
func TestWriteOutputRefusesDevices(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "full-link")
	if err := os.Symlink("/dev/full", link); err != nil {
		t.Fatal(err)
	}
	targets := []string{link}
	if os.Geteuid() == 0 {
		dev := filepath.Join(dir, "full")
		if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|7); err == nil { // 1,7: /dev/full
			targets = append(targets, dev)
		}
	}
	for _, p := range targets {
		before, _ := os.Lstat(p)
		var out bytes.Buffer
		file, err := writeOutput(&out, p, []byte("data\n"))
		if err == nil || file || !strings.Contains(err.Error(), p) {
			t.Errorf("writeOutput(%s) = %v, %v; want an error naming it", p, file, err)
		}
		after, lerr := os.Lstat(p)
		if lerr != nil || after.Mode() != before.Mode() {
			t.Errorf("%s changed: %v -> %v (%v)", p, before.Mode(), after.Mode(), lerr)
		}
	}
	// A regular file is replaced; "-" goes to out.
	reg := filepath.Join(dir, "out.md")
	os.WriteFile(reg, []byte("old"), 0o600)
	if file, err := writeOutput(nil, reg, []byte("新")); err != nil || !file {
		t.Fatalf("writeOutput(regular) = %v, %v", file, err)
	}
	if data, _ := os.ReadFile(reg); string(data) != "新" {
		t.Errorf("regular file holds %q", data)
	}
	var out bytes.Buffer
	if file, err := writeOutput(&out, "-", []byte("x")); err != nil || file || out.String() != "x" {
		t.Errorf("writeOutput(-) = %v, %v, %q", file, err, out.String())
	}
}
