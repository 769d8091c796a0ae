package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecallCold runs RecallCold with a shell script standing in for strata, recording its
// arguments and whether the saved index was turned off: each size gets one first run, then
// the timed rounds alternate a search with the saved index and one without. Without sqlite3
// on PATH its column is left out with a message; with it, the FTS5 query runs on the files.
func TestRecallCold(t *testing.T) {
	sh := lookSh(t)
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip("no grep")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	strata := filepath.Join(dir, "strata")
	body := "#!" + sh + "\n" + `echo "$1 $2 ${STRATA_RECALL_CACHE-on} $XDG_CACHE_HOME" >> ` + log + "\n"
	if err := os.WriteFile(strata, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(grep, filepath.Join(bin, "grep")); err != nil {
		t.Fatal(err)
	}
	sqlite, sqliteErr := exec.LookPath("sqlite3")
	t.Setenv("PATH", bin)
	rep, err := RecallCold(t.Context(), ColdOptions{Strata: strata, Sizes: []int{12, 20}, Runs: 2, Env: []string{"PATH=" + bin}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NoSQLite == "" || len(rep.Rows) != 2 || rep.Rows[1].Memories != 20 || rep.Rows[0].SQLiteMS != 0 || rep.Rows[0].FindMS != 0 {
		t.Fatalf("report without sqlite3 = %+v", rep)
	}
	for _, r := range rep.Rows {
		if r.StrataMS <= 0 || r.NoCacheMS <= 0 || r.GrepMS <= 0 || r.GrepRatio != r.StrataMS/r.GrepMS {
			t.Errorf("row %+v: figures missing or ratio not the medians'", r)
		}
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	// Per size: the first run, a warm-up round and two timed rounds of two strata processes.
	if len(lines) != 2*(1+3*2) {
		t.Fatalf("%d strata runs, want 14:\n%s", len(lines), data)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		off := i%7 >= 1 && (i%7)%2 == 0 // the second process of each round
		want := "on"
		if off {
			want = "off"
		}
		if len(f) != 4 || f[0] != "memory" || f[1] != "search" || f[2] != want || !strings.HasSuffix(f[3], "cache") {
			t.Errorf("run %d = %q, want memory search with the saved index %s", i, l, want)
		}
	}
	if find, err := exec.LookPath("find"); err == nil {
		if err := os.Symlink(find, filepath.Join(bin, "find")); err != nil {
			t.Fatal(err)
		}
		rep, err := RecallCold(t.Context(), ColdOptions{Strata: strata, Sizes: []int{10}, Runs: 1, Env: []string{"PATH=" + bin}})
		if err != nil {
			t.Fatal(err)
		}
		if r := rep.Rows[0]; r.FindMS <= 0 || r.FindRatio != r.StrataMS/r.FindMS || r.GrepMS <= 0 {
			t.Errorf("report with find = %+v", rep)
		}
	}
	if sqliteErr != nil {
		return
	}
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+filepath.Dir(sqlite))
	rep, err = RecallCold(t.Context(), ColdOptions{Strata: strata, Sizes: []int{10}, Runs: 1, Env: []string{"PATH=" + bin}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.NoSQLite != "" || rep.Rows[0].SQLiteMS <= 0 || rep.Rows[0].SQLiteRatio != rep.Rows[0].StrataMS/rep.Rows[0].SQLiteMS {
		t.Errorf("report with sqlite3 = %+v", rep)
	}
}
