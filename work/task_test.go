package work

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

func TestNewID(t *testing.T) {
	tests := []struct {
		kind   Kind
		prefix string
	}{
		{KindShell, "b"}, {KindAgent, "a"}, {KindRemote, "r"}, {KindTeammate, "t"},
		{KindWorkflow, "w"}, {KindMonitor, "m"}, {KindDream, "d"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		for range 50 {
			id, err := NewID(tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if !regexp.MustCompile(`^` + tt.prefix + `[0-9a-z]{8}$`).MatchString(id) {
				t.Fatalf("%s: id %q", tt.kind, id)
			}
			if seen[id] {
				t.Fatalf("id %s repeated", id)
			}
			seen[id] = true
		}
	}
	if _, err := NewID("ghost"); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestTransitions(t *testing.T) {
	all := []Status{Pending, Running, Completed, Failed, Killed}
	valid := map[[2]Status]bool{
		{Pending, Running}: true, {Pending, Failed}: true, {Pending, Killed}: true,
		{Running, Completed}: true, {Running, Failed}: true, {Running, Killed}: true,
	}
	for _, from := range all {
		for _, to := range all {
			t.Run(fmt.Sprintf("%s→%s", from, to), func(t *testing.T) {
				ts := NewTasks(t.TempDir())
				task, _ := ts.Create(KindShell, "npm test", "")
				// Walk to from along a valid path.
				path := map[Status][]Status{Pending: nil, Running: {Running}, Completed: {Running, Completed}, Failed: {Running, Failed}, Killed: {Killed}}[from]
				for _, s := range path {
					if _, err := ts.Move(task.ID, s, ""); err != nil {
						t.Fatal(err)
					}
				}
				_, err := ts.Move(task.ID, to, "why")
				if valid[[2]Status{from, to}] {
					if err != nil {
						t.Fatalf("valid move refused: %v", err)
					}
				} else if !errors.Is(err, ErrTransition) {
					t.Fatalf("invalid move: err = %v, want ErrTransition", err)
				}
				got, _ := ts.Get(task.ID)
				if want := from; err != nil && got.Status != want {
					t.Fatalf("refused move changed status to %s", got.Status)
				}
			})
		}
	}
}

func TestTaskLifecycle(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tasks")
	ts := NewTasks(dir)
	task, err := ts.Create(KindShell, "构建项目", MainAgent)
	if err != nil {
		t.Fatal(err)
	}
	if task.Status != Pending || task.Created.IsZero() || task.Output != filepath.Join(dir, task.ID+".output") {
		t.Fatalf("created %+v", task)
	}
	if err := ts.MarkNotified(task.ID); err == nil {
		t.Fatal("a pending task was marked notified")
	}
	task, _ = ts.Move(task.ID, Running, "")
	if task.Start.IsZero() {
		t.Fatal("no start time")
	}
	if err := ts.AppendOutput(task.ID, []byte("编译中…\n")); err != nil {
		t.Fatal(err)
	}
	w, err := ts.OutputWriter(task.ID)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(w, "done\n")
	w.Close()
	out, next, err := ts.ReadOutput(task.ID, 0)
	if err != nil || string(out) != "编译中…\ndone\n" || next != int64(len(out)) {
		t.Fatalf("ReadOutput = %q, %d, %v", out, next, err)
	}
	ts.AppendOutput(task.ID, []byte("more"))
	if out, _, _ := ts.ReadOutput(task.ID, next); string(out) != "more" {
		t.Fatalf("incremental read = %q", out)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, task.Output: 0o600} {
		fi, err := os.Stat(path)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, %v; want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	if len(ts.Unnotified()) != 0 {
		t.Fatal("a running task is listed as unnotified")
	}
	task, _ = ts.Move(task.ID, Failed, "exit status 2")
	if task.End.IsZero() || task.Error != "exit status 2" {
		t.Fatalf("failed task %+v", task)
	}
	if un := ts.Unnotified(); len(un) != 1 || un[0].ID != task.ID {
		t.Fatalf("Unnotified = %+v", un)
	}
	if err := ts.MarkNotified(task.ID); err != nil {
		t.Fatal(err)
	}
	if len(ts.Unnotified()) != 0 {
		t.Fatal("notified task still listed")
	}
}

func TestTaskErrors(t *testing.T) {
	ts := NewTasks(t.TempDir())
	if _, err := ts.Move("bnope", Running, ""); !errors.Is(err, ErrNoTask) || !strings.Contains(err.Error(), "bnope") {
		t.Fatalf("Move unknown: %v", err)
	}
	if err := ts.AppendOutput("bnope", nil); !errors.Is(err, ErrNoTask) {
		t.Fatalf("AppendOutput unknown: %v", err)
	}
	if err := ts.MarkNotified("bnope"); !errors.Is(err, ErrNoTask) {
		t.Fatalf("MarkNotified unknown: %v", err)
	}
	if _, err := ts.Create("ghost", "x", ""); err == nil {
		t.Fatal("unknown kind accepted")
	}
	task, _ := ts.Create(KindAgent, "explore", "")
	if out, next, err := ts.ReadOutput(task.ID, 0); err != nil || len(out) != 0 || next != 0 {
		t.Fatalf("output of a silent task: %q %d %v", out, next, err)
	}
}

func TestInterrupt(t *testing.T) {
	ts := NewTasks(t.TempDir())
	p, _ := ts.Create(KindShell, "pending", "")
	r, _ := ts.Create(KindAgent, "running", "")
	d, _ := ts.Create(KindShell, "done", "")
	ts.Move(r.ID, Running, "")
	ts.Move(d.ID, Running, "")
	ts.Move(d.ID, Completed, "")
	ts.MarkNotified(d.ID)
	ids := ts.Interrupt("the session ended before the task finished")
	if len(ids) != 2 {
		t.Fatalf("interrupted %v", ids)
	}
	for _, id := range []string{p.ID, r.ID} {
		got, _ := ts.Get(id)
		if got.Status != Killed || got.Notified || !strings.Contains(got.Error, "session ended") {
			t.Fatalf("%s after Interrupt: %+v", id, got)
		}
	}
	if got, _ := ts.Get(d.ID); got.Status != Completed {
		t.Fatalf("completed task changed: %+v", got)
	}
}

func TestTasksConcurrent(t *testing.T) {
	ts := NewTasks(t.TempDir())
	var wg sync.WaitGroup
	ids := make(chan string, 100)
	for range 4 {
		wg.Go(func() {
			for range 25 {
				task, err := ts.Create(KindShell, "job", "")
				if err != nil {
					t.Error(err)
					return
				}
				ids <- task.ID
				ts.Move(task.ID, Running, "")
				ts.AppendOutput(task.ID, []byte("line\n"))
				ts.Move(task.ID, Completed, "")
				ts.Unnotified()
				ts.List()
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			ts.Interrupt("stop")
		}
	})
	wg.Wait()
	close(ids)
	n := 0
	for id := range ids {
		n++
		task, _ := ts.Get(id)
		if !task.Status.Terminal() {
			t.Errorf("%s ended %s", id, task.Status)
		}
	}
	if n != 100 || len(ts.List()) != 100 {
		t.Fatalf("%d ids, %d tasks", n, len(ts.List()))
	}
}

func TestOutputConcurrentAppends(t *testing.T) {
	ts := NewTasks(t.TempDir())
	task, _ := ts.Create(KindShell, "noisy", "")
	line := strings.Repeat("输出", 20) + "\n"
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				if err := ts.AppendOutput(task.ID, []byte(line)); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	out, _, err := ts.ReadOutput(task.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != strings.Repeat(line, 200) {
		t.Fatalf("interleaved output: %d bytes", len(out))
	}
}
