package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMsStats(t *testing.T) {
	var ds []time.Duration
	for i := 10; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := msStats(ds)
	if got.Median != 6 || got.P90 != 10 || got.Min != 1 {
		t.Errorf("msStats = %+v, want median 6, p90 10, min 1", got)
	}
	if ds[0] != 10*time.Millisecond {
		t.Error("msStats sorted its argument in place")
	}
}

func TestStartupEnv(t *testing.T) {
	env := startupEnv([]string{"PATH=/bin", "STRATA_HOME=/u", "STRATA_MEMORY_DIR=/m", "STRATA_MANAGED_DIR=/g", "X=1"}, "/tmp/b")
	want := []string{"PATH=/bin", "X=1", "STRATA_HOME=/tmp/b/home", "STRATA_MANAGED_DIR=/tmp/b/managed"}
	if !slices.Equal(env, want) {
		t.Errorf("startupEnv = %q, want %q", env, want)
	}
}

func TestStartupBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, c := range []struct{ flag, arg0 string }{{"", "prog"}, {"prog", "other"}, {bin, ""}} {
		got, err := startupBinary(c.flag, c.arg0)
		if err != nil || got != bin {
			t.Errorf("startupBinary(%q, %q) = %q, %v; want %q", c.flag, c.arg0, got, err, bin)
		}
	}
	if _, err := startupBinary("", "missing"); err == nil {
		t.Error("startupBinary of a name not on PATH: no error")
	}
	if _, err := startupBinary(filepath.Join(dir, "missing"), ""); err == nil {
		t.Error("startupBinary of a missing path: no error")
	}
}

// TestTimeAlternately: every process runs once per round plus a warm-up round, in order, and a
// failing process ends the benchmark.
func TestTimeAlternately(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	log := filepath.Join(t.TempDir(), "log")
	step := func(name string) *exec.Cmd {
		return &exec.Cmd{Path: sh, Args: []string{sh, "-c", "echo " + name + " >> " + log}}
	}
	times, err := timeAlternately(context.Background(), []*exec.Cmd{step("a"), step("b")}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(times) != 2 || len(times[0]) != 3 || len(times[1]) != 3 {
		t.Fatalf("times = %v, want 2 × 3", times)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(data)); !slices.Equal(got, strings.Fields("a b a b a b a b")) {
		t.Errorf("run order = %v, want a warm-up round and 3 alternating rounds", got)
	}
	fail := &exec.Cmd{Path: sh, Args: []string{sh, "-c", "exit 3"}}
	if _, err := timeAlternately(context.Background(), []*exec.Cmd{step("a"), fail}, 2); err == nil {
		t.Error("a failing process: no error")
	}
}

// TestBuildHello builds the hello-world baseline with the go tool and runs it.
func TestBuildHello(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool on PATH")
	}
	bin, err := buildHello(context.Background(), filepath.Join(t.TempDir(), "hello"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin).Output()
	if err != nil || string(out) != "hello, world\n" {
		t.Errorf("hello = %q, %v", out, err)
	}
}
