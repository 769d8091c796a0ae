package bench

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

func TestStartupStats(t *testing.T) {
	var ds []time.Duration
	for i := 10; i >= 1; i-- { // unsorted on purpose
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := startupStats(ds)
	// Nearest rank, as every percentile of the benchmarks: the 5th and the 9th of 10.
	if got.Median != 5 || got.P90 != 9 || got.Min != 1 {
		t.Errorf("startupStats = %+v, want median 5, p90 9, min 1", got)
	}
	if ds[0] != 10*time.Millisecond {
		t.Error("startupStats sorted its argument in place")
	}
}

func TestStartupEnv(t *testing.T) {
	env := startupEnv([]string{"PATH=/bin", "STRATA_HOME=/u", "STRATA_MEMORY_DIR=/m", "STRATA_MANAGED_DIR=/g", "X=1"}, "/tmp/b")
	want := []string{"PATH=/bin", "X=1", "STRATA_HOME=/tmp/b/home", "STRATA_MANAGED_DIR=/tmp/b/managed"}
	if !slices.Equal(env, want) {
		t.Errorf("startupEnv = %q, want %q", env, want)
	}
}

func TestResolveBinary(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "prog")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Chdir(dir)
	for _, name := range []string{"prog", bin, "./prog"} {
		got, err := ResolveBinary(name)
		if err != nil || got != bin {
			t.Errorf("ResolveBinary(%q) = %q, %v; want %q", name, got, err, bin)
		}
	}
	for _, name := range []string{"", "missing", filepath.Join(dir, "missing")} {
		if _, err := ResolveBinary(name); err == nil {
			t.Errorf("ResolveBinary(%q): no error", name)
		}
	}
}

// TestTimeAlternately: every process runs once per round plus a warm-up round, in order, and a
// failing process ends the benchmark.
func TestTimeAlternately(t *testing.T) {
	sh := lookSh(t)
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

// TestStartup runs Startup with shell scripts standing in for strata and the baseline: each
// records its arguments, working directory and STRATA_* environment. The processes run in
// order, round after round, on an empty store inside a temporary directory that is gone
// afterwards, and the report's ratios are the medians' ratios.
func TestStartup(t *testing.T) {
	sh := lookSh(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!"+sh+"\n"+body), 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	record := `echo "$0 $* | $PWD | $STRATA_HOME | $STRATA_MANAGED_DIR | ${STRATA_MEMORY_DIR-unset}" >> ` + log + "\n"
	strata := script("strata", record)
	baseline := script("hello", record)
	env := []string{"PATH=" + os.Getenv("PATH"), "STRATA_HOME=/u", "STRATA_MEMORY_DIR=/m"}
	rep, err := Startup(context.Background(), StartupOptions{Strata: strata, Baseline: baseline, Runs: 3, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Runs != 3 || rep.BaselineBuilt || rep.VersionRatioTarget != StartupVersionTarget || rep.MemoryListRatioTarget != StartupListTarget {
		t.Errorf("report = %+v", rep)
	}
	if rep.Baseline.Min <= 0 || rep.Version.Min > rep.Version.Median || rep.Version.Median > rep.Version.P90 {
		t.Errorf("figures out of order: %+v", rep)
	}
	if rep.VersionRatio != rep.Version.Median/rep.Baseline.Median || rep.MemoryListRatio != rep.MemoryList.Median/rep.Baseline.Median {
		t.Errorf("ratios %v, %v are not the medians' ratios: %+v", rep.VersionRatio, rep.MemoryListRatio, rep)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 3*4 {
		t.Fatalf("%d runs, want 3 processes × (1 warm-up + 3 rounds):\n%s", len(lines), data)
	}
	want := []string{baseline + " ", strata + " --version", strata + " memory list"}
	var tmp string
	for i, line := range lines {
		f := strings.Split(line, " | ")
		if len(f) != 5 || f[0] != want[i%3] {
			t.Fatalf("run %d = %q, want %q first", i, line, want[i%3])
		}
		tmp = filepath.Dir(f[1])
		if filepath.Base(f[1]) != "project" || f[2] != filepath.Join(tmp, "home") || f[3] != filepath.Join(tmp, "managed") || f[4] != "unset" {
			t.Errorf("run %d: dir, STRATA_HOME, STRATA_MANAGED_DIR, STRATA_MEMORY_DIR = %q, want an empty store in one temporary directory", i, f[1:])
		}
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s left behind (%v)", tmp, err)
	}

	fail := script("fail", "exit 3\n")
	if _, err := Startup(context.Background(), StartupOptions{Strata: fail, Baseline: baseline, Runs: 1, Env: env}); err == nil || !strings.Contains(err.Error(), "--version") {
		t.Errorf("a failing strata: err = %v, want one naming the failed process", err)
	}
	for _, o := range []StartupOptions{{Strata: strata, Baseline: baseline}, {Strata: filepath.Join(dir, "missing"), Baseline: baseline, Runs: 1},
		{Strata: strata, Baseline: filepath.Join(dir, "missing"), Runs: 1}} {
		if _, err := Startup(context.Background(), o); err == nil {
			t.Errorf("Startup(%+v): no error", o)
		}
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

func lookSh(t *testing.T) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	return sh
}
