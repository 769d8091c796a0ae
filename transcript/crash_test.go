package transcript

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashWriterEnv makes the test binary act as the crash test's writer process.
const crashWriterEnv = "STRATA_TRANSCRIPT_CRASH_WRITER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashWriterEnv); spec != "" {
		os.Exit(crashWriter(spec))
	}
	os.Exit(m.Run())
}

// crashWriter appends entries to the file as fast as it can, syncing every few entries, and
// prints "<run> <seq>" after each successful Sync: every entry up to seq is durable.
func crashWriter(spec string) int {
	path, runStr, _ := strings.Cut(spec, "|")
	run, _ := strconv.Atoi(runStr)
	ctx := context.Background()
	var j *Journal
	var err error
	for range 200 { // the killed predecessor's lock is released by the kernel; wait for it
		if j, err = Open(ctx, path, Options{SessionID: "crash"}); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	out := bufio.NewWriter(os.Stdout)
	text := strings.Repeat("crash-safe 崩溃 ", 1+run%7)
	for seq := 1; ; seq++ {
		e := textEntry(nopTB{}, TypeUser, j.Leaf(), text)
		e.Extra = map[string]json.RawMessage{"run": json.RawMessage(strconv.Itoa(run)), "seq": json.RawMessage(strconv.Itoa(seq))}
		if err := j.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
		if seq%(1+run%4) == 0 {
			if err := j.Sync(ctx); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 5
			}
			fmt.Fprintf(out, "%d %d\n", run, seq)
			out.Flush()
		}
	}
}

// nopTB lets test helpers run in the writer process, where there is no *testing.T.
type nopTB struct{ testing.TB }

func (nopTB) Helper()               {}
func (nopTB) Fatal(args ...any)     { panic(fmt.Sprint(args...)) }
func (nopTB) Fatalf(string, ...any) { panic("fatal") }

// TestCrashSafety kills a writer process with SIGKILL at random moments, 50 times on one file.
// Afterwards every entry a writer reported as synced is in the file, every line but possibly
// the last is a JSON object, and the reader loads the file.
func TestCrashSafety(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p", "crash.jsonl")
	const runs = 50
	reported := make([]int, runs)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for run := range runs {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashWriterEnv+"="+path+"|"+strconv.Itoa(run))
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan int)
		go func() { // ends when the killed process's stdout closes
			defer close(lines)
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				var r, seq int
				if _, err := fmt.Sscanf(sc.Text(), "%d %d", &r, &seq); err == nil && r == run {
					lines <- seq
				}
			}
		}()
		// Wait for the first synced report, then kill at a random moment.
		first, ok := <-lines
		if !ok {
			cmd.Wait()
			t.Fatalf("run %d: writer exited without syncing: %s", run, stderr.String())
		}
		reported[run] = first
		delay := time.Duration(rng.IntN(30_000)) * time.Microsecond
		timer := time.NewTimer(delay)
	wait:
		for {
			select {
			case seq, ok := <-lines:
				if !ok {
					break wait
				}
				reported[run] = seq
			case <-timer.C:
				cmd.Process.Signal(syscall.SIGKILL)
				timer.C = nil
			}
		}
		cmd.Wait()
	}
	f := checkFile(t, path)
	present := make([]map[int]bool, runs)
	for i := range present {
		present[i] = map[int]bool{}
	}
	for _, e := range f.Entries {
		var tag struct{ Run, Seq *int }
		if err := json.Unmarshal(e.Raw, &tag); err != nil || tag.Run == nil || tag.Seq == nil {
			continue
		}
		present[*tag.Run][*tag.Seq] = true
	}
	total := 0
	for run, last := range reported {
		for seq := 1; seq <= last; seq++ {
			if !present[run][seq] {
				t.Fatalf("run %d: entry %d was reported synced but is missing", run, seq)
			}
		}
		total += last
	}
	if s := FromFile(f); len(s.Chain) == 0 {
		t.Fatal("no chain in the crashed file")
	}
	t.Logf("%d kills, %d entries reported synced, %d lines in the file, %d skipped", runs, total, f.Lines, f.Skipped())
}
