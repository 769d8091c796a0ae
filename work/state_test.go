package work

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func sampleState(t *testing.T) *State {
	t.Helper()
	s := NewState()
	if _, err := s.Todos.Write(MainAgent, []Todo{
		{Content: "读取配置", Status: TodoCompleted, ActiveForm: "正在读取配置"},
		{Content: "Fix the parser", Status: TodoInProgress, ActiveForm: "Fixing the parser"},
	}); err != nil {
		t.Fatal(err)
	}
	s.Todos.Write("a1b2c3", []Todo{{Content: "explore", Status: TodoPending, ActiveForm: "exploring"}})
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	s.Tasks.replace([]Task{
		{ID: "b0000test", Kind: KindShell, Status: Running, Description: "go test ./...", Created: at, Start: at},
		{ID: "a0000test", Kind: KindAgent, Status: Completed, Description: "research 记忆", Created: at.Add(time.Second),
			Start: at.Add(time.Second), End: at.Add(time.Minute), Notified: true, Output: "/tmp/a0000test.output"},
		{ID: "r0000test", Kind: KindRemote, Status: Pending, Description: "remote review", Created: at.Add(2 * time.Second)},
	})
	return s
}

func TestStateSnapshotRoundTrip(t *testing.T) {
	s := sampleState(t)
	data := s.Snapshot()
	if !bytes.Equal(data, s.Snapshot()) {
		t.Fatal("Snapshot is not stable")
	}
	if bytes.ContainsRune(data, '\n') {
		t.Fatal("Snapshot is not one line")
	}
	if !bytes.HasPrefix(data, []byte(`{"version":1,`)) {
		t.Fatalf("no version first: %s", data[:40])
	}
	r := NewState()
	if err := r.Restore(data); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Tasks.List(), r.Tasks.List()); diff != "" {
		t.Fatalf("tasks (-want +got):\n%s", diff)
	}
	for _, agent := range []string{MainAgent, "a1b2c3"} {
		if diff := cmp.Diff(s.Todos.Get(agent), r.Todos.Get(agent)); diff != "" {
			t.Fatalf("todos of %s (-want +got):\n%s", agent, diff)
		}
	}
	if !bytes.Equal(data, r.Snapshot()) {
		t.Fatalf("restored state snapshots differently:\n%s\n%s", data, r.Snapshot())
	}
	// The restored registry keeps working: a resume interrupts what was still open.
	if got := r.Tasks.Interrupt("resumed"); len(got) != 2 {
		t.Fatalf("interrupted %v, want the running and the pending task", got)
	}
}

func TestStateRestoreErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantErr   string
		wantTasks int
		wantTodos int
	}{
		{"empty state", `{"version":1}`, "", 0, 0},
		{"not json", `{"version":1,`, "restore state", -1, -1},
		{"no version", `{"todos":{},"tasks":[]}`, "version 0", -1, -1},
		{"newer version", `{"version":2,"tasks":[]}`, "version 2", -1, -1},
		{"bad items left out", `{"version":1,"tasks":[
			{"id":"b1","kind":"shell","status":"running"},
			{"id":"","status":"running"},
			{"id":"b1","status":"completed"},
			{"id":"b2","status":"exploded"},
			{"id":"z9","kind":"future","status":"pending"}],
			"todos":{"main":[{"content":"a","status":"pending"},{"content":"b","status":"blocked"}]}}`,
			"task 2: no id", 2, 1},
		{"unknown fields tolerated", `{"version":1,"extra":true,"tasks":[{"id":"b1","status":"killed","later":1}]}`, "", 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sampleState(t)
			before := s.Snapshot()
			err := s.Restore([]byte(tt.in))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
			} else if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantTasks < 0 {
				if !bytes.Equal(before, s.Snapshot()) {
					t.Fatal("a refused snapshot changed the state")
				}
				return
			}
			if n := len(s.Tasks.List()); n != tt.wantTasks {
				t.Fatalf("%d tasks restored, want %d", n, tt.wantTasks)
			}
			if n := len(s.Todos.Get(MainAgent)); n != tt.wantTodos {
				t.Fatalf("%d todos restored, want %d", n, tt.wantTodos)
			}
		})
	}
}

func TestStateErrorNamesEveryItem(t *testing.T) {
	s := NewState()
	err := s.Restore([]byte(`{"version":1,"tasks":[{"id":"","status":"running"},{"id":"a1","status":"x"},{"id":"a1","status":"pending"}],"todos":{"z":[{"status":"?"}]}}`))
	for _, want := range []string{"task 1: no id", `task a1: unknown status "x"`, "todos of z: 1 item(s)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if got := s.Tasks.List(); len(got) != 1 || got[0].Status != Pending {
		t.Fatalf("tasks %+v", got)
	}
}

func FuzzStateRestore(f *testing.F) {
	s := NewState()
	s.Todos.Write(MainAgent, []Todo{{Content: "a", Status: TodoInProgress, ActiveForm: "A"}})
	s.Tasks.replace([]Task{{ID: "b1", Kind: KindShell, Status: Running, Description: "x"}})
	f.Add(s.Snapshot())
	f.Add([]byte(`{"version":1,"tasks":[{"id":"b1","status":"weird"}]}`))
	f.Add([]byte(`{"version":1,"todos":{"m":null}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		s := NewState()
		s.Restore(in) // errors are fine (partial restores included); what is kept must be consistent
		for _, task := range s.Tasks.List() {
			if task.ID == "" || !task.Status.Valid() {
				t.Fatalf("restored invalid task %+v", task)
			}
		}
		// What was restored snapshots and restores to the same bytes.
		data := s.Snapshot()
		r := NewState()
		if err := r.Restore(data); err != nil {
			t.Fatalf("own snapshot refused: %v\n%s", err, data)
		}
		if !bytes.Equal(data, r.Snapshot()) {
			t.Fatalf("snapshot not stable:\n%s\n%s", data, r.Snapshot())
		}
	})
}
