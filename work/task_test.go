package work

import (
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStatus(t *testing.T) {
	tests := []struct {
		s               Status
		valid, terminal bool
	}{
		{Pending, true, false}, {Running, true, false},
		{Completed, true, true}, {Failed, true, true}, {Killed, true, true},
		{"exploded", false, false}, {"", false, false},
	}
	for _, tt := range tests {
		if tt.s.Valid() != tt.valid || tt.s.Terminal() != tt.terminal {
			t.Errorf("%q: valid %v terminal %v, want %v %v", tt.s, tt.s.Valid(), tt.s.Terminal(), tt.valid, tt.terminal)
		}
	}
}

// restored returns a registry holding the tasks of a resumed session.
func restored(t *testing.T) *Tasks {
	t.Helper()
	s := NewState()
	if err := s.Restore([]byte(`{"version":1,"tasks":[
		{"id":"bpending1","kind":"shell","status":"pending","description":"pending","created":"2026-11-30T08:00:01Z"},
		{"id":"arunning1","kind":"agent","status":"running","description":"running","created":"2026-11-30T08:00:02Z"},
		{"id":"bdone0001","kind":"shell","status":"completed","description":"done","created":"2026-11-30T08:00:03Z","notified":true}]}`)); err != nil {
		t.Fatal(err)
	}
	return s.Tasks
}

func TestInterrupt(t *testing.T) {
	ts := restored(t)
	end := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ts.now = func() time.Time { return end }
	ids := ts.Interrupt("the session ended before the task finished")
	if strings.Join(ids, ",") != "arunning1,bpending1" {
		t.Fatalf("interrupted %v, want the running and the pending task, sorted", ids)
	}
	for _, task := range ts.List() {
		switch task.ID {
		case "bdone0001":
			if task.Status != Completed || !task.End.IsZero() || task.Error != "" {
				t.Errorf("completed task changed: %+v", task)
			}
		default:
			if task.Status != Killed || task.Notified || !task.End.Equal(end) || !strings.Contains(task.Error, "session ended") {
				t.Errorf("%s after Interrupt: %+v", task.ID, task)
			}
		}
	}
	if again := ts.Interrupt("twice"); len(again) != 0 {
		t.Errorf("a second Interrupt killed %v", again)
	}
}

func TestListOrder(t *testing.T) {
	ts := NewTasks()
	at := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	ts.replace([]Task{{ID: "b2", Created: at.Add(time.Second)}, {ID: "b3", Created: at}, {ID: "a1", Created: at}})
	var got []string
	for _, task := range ts.List() {
		got = append(got, task.ID)
	}
	if strings.Join(got, ",") != "a1,b3,b2" {
		t.Fatalf("List order %v, want oldest first, ties by id", got)
	}
}

func TestTasksConcurrent(t *testing.T) {
	ts := restored(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				ts.Interrupt("stop")
				ts.List()
			}
		})
	}
	wg.Wait()
	for _, task := range ts.List() {
		if !task.Status.Terminal() {
			t.Errorf("%s ended %s", task.ID, task.Status)
		}
	}
}
