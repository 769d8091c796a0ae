package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/memdir"
)

// TestMemoryAddConcurrentProcesses runs `strata memory add` in 4 processes at once, 250 times
// each, against one memory dir, and checks that nothing was lost: 1,000 topic files, 1,000
// index lines, and a clean `strata memory lint`. The strata binary is this test binary,
// installed in $PATH by testscript.Main (see TestMain). With -short it runs 4 × 25, under the race detector 4 × 60.
func TestMemoryAddConcurrentProcesses(t *testing.T) {
	bin, err := exec.LookPath("strata")
	if err != nil {
		t.Skipf("strata is not in PATH (testscript.Main sets it up): %v", err)
	}
	const procs = 4
	per := 250
	switch {
	case testing.Short():
		per = 25
	case raceEnabled:
		per = 60 // the race detector makes each process ~10× slower; the contention is the same
	}
	work := t.TempDir()
	dir := filepath.Join(work, "memory")
	// 1,000 index lines do not fit the default limits (200 lines, 25,000 bytes): raise them.
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"memoryIndexMaxLines": 2000, "memoryIndexMaxBytes": 200000}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "STRATA_HOME="+filepath.Join(work, "home"), "STRATA_MEMORY_DIR="+dir, "HOME="+work)
	start := time.Now()
	var wg sync.WaitGroup
	for p := range procs {
		wg.Go(func() {
			for i := range per {
				name := fmt.Sprintf("proc %d note %d", p, i)
				desc := fmt.Sprintf("note %d written by process %d", i, p)
				if i%5 == 0 {
					name = fmt.Sprintf("进程%d 笔记%d", p, i) // Chinese names in the mix
				}
				cmd := exec.Command(bin, "memory", "add", "--name", name, "--type", "project", "--description", desc, "--body", "body of "+name)
				cmd.Env = env
				cmd.Dir = work
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("process %d add %d: %v\n%s", p, i, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	t.Logf("%d processes × %d adds: %s", procs, per, time.Since(start).Round(time.Millisecond))
	want := procs * per
	s, err := memdir.Open(dir, memdir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mems, diags, err := s.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != want || len(diags) != 0 {
		t.Errorf("%d memories (want %d), diagnostics %v", len(mems), want, diags)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") && e.Name() != memdir.LockFile && e.Name() != memdir.ArchiveDir { // .archive/ holds the name map
			t.Errorf("left behind: %s", e.Name())
		}
	}
	idx, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(memdir.ParseIndex(idx)); n != want {
		t.Errorf("%d index lines, want %d", n, want)
	}
	cmd := exec.Command(bin, "memory", "lint")
	cmd.Env = env
	cmd.Dir = work
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "no problems") {
		t.Errorf("memory lint: %v\n%s", err, firstLines(out.String(), 12))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestMemoryTableWidths: memory list, search and sessions list print through one table writer
// that lines up columns by display width (a Chinese character takes two columns) and makes
// every cell terminal-safe.
func TestMemoryTableWidths(t *testing.T) {
	var b bytes.Buffer
	rows := [][]string{
		{"FILE", "NAME", "SCORE", "DESCRIPTION"},
		{"db.md", "数据库迁移", "1.000", "迁移文件"},
		{"deploy.md", "deploy", "0.500", "red \x1b[31mALERT\x1b[0m\nsecond line"},
		{"배포.md", "배포 규칙", "0.250", "금요일 배포 금지"},
	}
	if err := writeMemoryTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "\x1b") || strings.Count(out, "\n") != 4 {
		t.Fatalf("escape or newline reached the table:\n%q", out)
	}
	// SCORE starts at the same display column on every line.
	var cols []int
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		i := strings.Index(l, "SCORE")
		if i < 0 {
			i = strings.IndexAny(l, "01")
		}
		cols = append(cols, termtext.Width(l[:i]))
	}
	if cols[0] != cols[1] || cols[1] != cols[2] || cols[2] != cols[3] {
		t.Errorf("SCORE columns at %v:\n%s", cols, out)
	}
}

func TestOneShotGCPutsSettingsBack(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	gc, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(-1)
	defer func() { debug.SetGCPercent(gc); debug.SetMemoryLimit(limit) }()
	restore := oneShotGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent while a one-shot command runs = %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != oneShotHeap {
		t.Errorf("memory limit while a one-shot command runs = %d, want %d", got, oneShotHeap)
	}
	restore()
	if got := debug.SetGCPercent(-1); got != 100 {
		t.Errorf("GC percent after = %d, want 100", got)
	}
	debug.SetGCPercent(100)
	t.Setenv("GOGC", "50")
	oneShotGC()()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, GC percent = %d, want it left at 100", got)
	}
}
