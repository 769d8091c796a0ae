package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/memdir"
)

// killRounds is how many kills a kill test makes: n in the suite (2 with -short or the race
// detector, which makes each strata process several times slower), STRATA_KILL_ROUNDS if set.
func killRounds(t *testing.T, n int) int {
	if v := os.Getenv("STRATA_KILL_ROUNDS"); v != "" {
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			t.Fatalf("STRATA_KILL_ROUNDS=%q: want a positive number", v)
		}
		return k
	}
	if testing.Short() || raceEnabled {
		return min(n, 2)
	}
	return n
}

// killer runs the strata binary (this test binary, installed in $PATH by testscript.Main) in a
// fixed environment.
type killer struct {
	t   *testing.T
	bin string
	env []string
	dir string
}

func newKiller(t *testing.T, env ...string) *killer {
	t.Helper()
	bin, err := exec.LookPath("strata")
	if err != nil {
		t.Skipf("strata is not in PATH (testscript.Main sets it up): %v", err)
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	base := []string{"HOME=" + home, "STRATA_HOME=" + filepath.Join(home, ".strata"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"STRATA_NO_BACKGROUND=1", "STRATA_MEMORY_DIR=", "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}
	return &killer{t: t, bin: bin, env: append(base, env...), dir: work}
}

// run runs strata with args and returns its output; it fails the test when strata fails.
func (k *killer) run(args ...string) string {
	k.t.Helper()
	out, err := k.cmd(args...).CombinedOutput()
	if err != nil {
		k.t.Fatalf("strata %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (k *killer) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(k.bin, args...)
	cmd.Env = k.env
	cmd.Dir = k.dir
	return cmd
}

// killAfter starts strata with args, kills it with SIGKILL once delay has passed (if it is
// still running), and reports whether the kill came before it ended.
func (k *killer) killAfter(delay time.Duration, args ...string) (killed bool) {
	k.t.Helper()
	cmd := k.cmd(args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			k.t.Fatalf("strata %s failed before the kill: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		return false
	case <-time.After(delay):
		cmd.Process.Signal(syscall.SIGKILL)
		<-done
		return true
	}
}

// git runs git in dir and returns its output.
func (k *killer) git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Env = k.env
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// topicFiles returns the content of every memory file of dir but the index.
func topicFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md") && e.Name() != memdir.IndexFile {
			data, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = string(data)
		}
	}
	return out
}

// TestSyncKilled kills `strata memory sync` with SIGKILL at random moments of a sync that has
// everything to do: commit local changes, fetch, merge a memory both clones edited (a proposal
// for the inbox), update the index, push. After each kill a rerun completes, git's index agrees
// with HEAD and the work tree is committed, every memory the clone had is live (its text or the
// other clone's) or archived with a record, lint is clean after --fix, and the other clone gets
// what the killed sync was to push. STRATA_KILL_ROUNDS sets the number of kills.
func TestSyncKilled(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	k := newKiller(t, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "gitconfig"),
		"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.invalid", "GIT_COMMITTER_NAME=Ada", "GIT_COMMITTER_EMAIL=ada@example.invalid")
	team, a, b := filepath.Join(k.dir, "team.git"), filepath.Join(k.dir, "a"), filepath.Join(k.dir, "b")
	for _, args := range [][]string{{"init", "-q", "--bare", "-b", "main", team}, {"clone", "-q", team, a}, {"clone", "-q", team, b}} {
		if out, err := k.git(k.dir, args...); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	add := func(dir, name, body string) {
		k.run("memory", "add", "--memory-dir", dir, "--name", name, "--type", "project", "--description", "about "+name, "--body", body)
	}
	add(b, "shared", "the first text")
	k.run("memory", "sync", "--memory-dir", b)
	k.run("memory", "sync", "--memory-dir", a)
	rounds := killRounds(t, 3)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 28))
	killed := 0
	for round := 1; round <= rounds; round++ {
		// b moves the upstream: a's sync has a merge to make.
		add(b, "shared", fmt.Sprintf("edited on b in round %d", round))
		add(b, fmt.Sprintf("from b %d", round), "written on b")
		start := time.Now()
		k.run("memory", "sync", "--memory-dir", b)
		took := time.Since(start)
		theirs := topicFiles(t, b)
		add(a, "shared", fmt.Sprintf("edited on a in round %d", round))
		add(a, fmt.Sprintf("from a %d", round), fmt.Sprintf("written on a in round %d", round))
		if round > 1 {
			k.run("memory", "forget", "--memory-dir", a, "--archive", fmt.Sprintf("from a %d", round-1))
		}
		ours := topicFiles(t, a)

		delay := time.Duration(rng.Int64N(int64(took) * 3 / 2))
		if k.killAfter(delay, "memory", "sync", "--memory-dir", a) {
			killed++
		}
		k.run("memory", "sync", "--memory-dir", a)

		if out, err := k.git(a, "diff", "--cached", "--quiet", "HEAD"); err != nil {
			st, _ := k.git(a, "status", "--short")
			t.Errorf("round %d (kill at %s): git's index differs from HEAD after the rerun: %v %s\n%s", round, delay, err, out, st)
		}
		if st, _ := k.git(a, "status", "--porcelain", "--", "*.md"); strings.TrimSpace(st) != "" {
			t.Errorf("round %d (kill at %s): memories left uncommitted after the rerun:\n%s", round, delay, st)
		}
		checkSyncedStore(t, a, ours, theirs, round, delay)
		k.run("memory", "lint", "--fix", "--memory-dir", a)
		if out := k.run("memory", "lint", "--memory-dir", a); !strings.Contains(out, "no problems") {
			t.Errorf("round %d (kill at %s): lint after --fix:\n%s", round, delay, out)
		}
		k.run("memory", "sync", "--memory-dir", b)
		want := fmt.Sprintf("written on a in round %d", round)
		found := false
		for _, text := range topicFiles(t, b) {
			found = found || strings.Contains(text, want)
		}
		if !found {
			t.Errorf("round %d (kill at %s): what a's sync was to push never reached b", round, delay)
		}
	}
	t.Logf("%d rounds, %d syncs killed before they ended", rounds, killed)
}

// checkSyncedStore checks that every memory of ours is live in dir with its text or theirs, or
// archived with a record of ARCHIVE.log that names it.
func checkSyncedStore(t *testing.T, dir string, ours, theirs map[string]string, round int, delay time.Duration) {
	t.Helper()
	now := topicFiles(t, dir)
	recs, err := memdir.ReadArchiveLog(dir)
	if err != nil {
		t.Fatal(err)
	}
	archived := map[string]bool{}
	for _, r := range memdir.Restorable(recs) {
		if r.ArchivedTo != "" {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(r.ArchivedTo))); err == nil {
				archived[r.File] = true
			}
		}
	}
	for file, text := range ours {
		got, live := now[file]
		switch {
		case live && (got == text || got == theirs[file]):
		case live:
			t.Errorf("round %d (kill at %s): %s holds neither clone's text:\n%s", round, delay, file, got)
		case !archived[file]:
			t.Errorf("round %d (kill at %s): %s is neither live nor archived with a record", round, delay, file)
		}
	}
}

// compactionModel is a fake Anthropic server for TestCompactKilled: every call gets a short
// text reply with a large recorded prompt size unless the context was compacted (so the next
// turn compacts automatically), and
// a compaction's summary request is held for hold before its reply, the window the kill aims
// at. Each summary request is announced on compacting.
type compactionModel struct {
	srv        *llmtest.Server
	http       *httptest.Server
	hold       time.Duration
	compacting chan struct{}
}

func newCompactionModel(t *testing.T, hold time.Duration) *compactionModel {
	m := &compactionModel{srv: llmtest.NewHandler(llmtest.Anthropic, t.Errorf), hold: hold, compacting: make(chan struct{}, 16)}
	m.srv.Fallback = func(r llmtest.Request) llmtest.Reply {
		if isSummaryRequest(r.Body) {
			return llmtest.Text(summaryText)
		}
		if bytes.Contains(r.Body, []byte(summaryText)) {
			return llmtest.Text("Noted; working on it.").WithUsage(llm.Usage{InputTokens: 2_000, OutputTokens: 40})
		}
		return llmtest.Text("Noted; working on it.").WithUsage(llm.Usage{InputTokens: 26_000, OutputTokens: 40})
	}
	m.http = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if isSummaryRequest(body) {
			m.compacting <- struct{}{}
			time.Sleep(m.hold)
		}
		m.srv.ServeHTTP(w, r)
	}))
	m.srv.URL = m.http.URL
	t.Cleanup(m.http.Close)
	return m
}

// summaryText is the fake model's summary: a context that holds it was compacted.
const summaryText = "1. Primary request and intent: the task the user gave, still open."

// isSummaryRequest reports whether body asks for a compaction's summary (compact's system
// prompt).
func isSummaryRequest(body []byte) bool {
	return bytes.Contains(body, []byte("condense a coding session"))
}

// TestCompactKilled kills `strata run --continue` with SIGKILL during an automatic compaction
// (while the summary is asked for, or while the compacted context is written) against a fake
// model. Afterwards the transcript has no torn entry, and `strata run --continue` resumes the
// same session with the task intact: the first request's text reaches the model again.
// STRATA_KILL_ROUNDS sets the number of kills.
func TestCompactKilled(t *testing.T) {
	const hold = 80 * time.Millisecond
	m := newCompactionModel(t, hold)
	rounds := killRounds(t, 4)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 29))
	again, ended := 0, 0
	for round := 1; round <= rounds; round++ {
		k := newKiller(t, "ANTHROPIC_BASE_URL="+m.srv.URL, "ANTHROPIC_API_KEY="+llmtest.Key, "STRATA_PROVIDER=anthropic",
			"STRATA_MODEL=test-model", "STRATA_STALL_TIMEOUT=5s", "STRATA_CONTEXT_WINDOW=40000")
		task := fmt.Sprintf("TASK-%d-%d: rename the ingest pipeline's retry queue and keep its metrics", round, rng.IntN(1e6))
		k.run("run", task)
		drain(m.compacting)

		cmd := k.cmd("run", "--continue", "and also update the dashboards")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		delay := hold/2 + time.Duration(rng.Int64N(int64(hold))) // about half before the summary arrives, half after
		select {
		case <-m.compacting:
		case err := <-done:
			t.Fatalf("round %d: the run ended (%v) without compacting:\n%s", round, err, out.String())
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: no compaction within 30 s:\n%s", round, out.String())
		}
		select {
		case <-done:
			ended++
		case <-time.After(delay):
			cmd.Process.Signal(syscall.SIGKILL)
			<-done
		}
		sessions := checkTranscripts(t, k.dir, round)

		before := len(m.srv.Requests())
		got := k.run("run", "--continue", "what is the state of the task?")
		if !strings.Contains(got, "Noted; working on it.") {
			t.Errorf("round %d (kill %s into the compaction): the resumed run answered:\n%s", round, delay, got)
		}
		reqs := m.srv.Requests()[before:]
		last := reqs[len(reqs)-1].Body
		if isSummaryRequest(reqs[0].Body) {
			again++ // killed before the compaction was durable: the resume compacts
		}
		if isSummaryRequest(last) || !bytes.Contains(last, []byte(task)) {
			t.Errorf("round %d (kill %s into the compaction): the resumed request lost the task %q", round, delay, task)
		}
		if after := checkTranscripts(t, k.dir, round); len(after) != len(sessions) {
			t.Errorf("round %d (kill %s into the compaction): %d transcripts before the resume, %d after: --continue started a new session", round, delay, len(sessions), len(after))
		}
	}
	t.Logf("%d rounds: %d runs killed during a compaction, %d of them before it was durable (the resume compacted); %d ended before the kill", rounds, rounds-ended, again, ended)
}

func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// checkTranscripts checks that every line of every transcript under dir is a whole JSON object,
// and returns the transcripts' paths.
func checkTranscripts(t *testing.T, dir string, round int) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), `"sessionId"`) {
			return nil // not a transcript
		}
		paths = append(paths, p)
		for i, line := range strings.SplitAfter(string(data), "\n") {
			if line == "" {
				continue
			}
			if !strings.HasSuffix(line, "\n") || !json.Valid([]byte(line)) {
				t.Errorf("round %d: %s:%d: torn entry: %.80q", round, p, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("round %d: no transcript under %s", round, dir)
	}
	return paths
}
