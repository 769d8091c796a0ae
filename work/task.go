package work

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Kind is what ran a task. Ids start with the kind's letter, as the reference's do (b shell,
// a agent, r remote, t teammate, w workflow, m monitor, d dream).
type Kind string

// Kinds of tasks.
const (
	KindShell    Kind = "shell"    // a shell command run in the background
	KindAgent    Kind = "agent"    // a local subagent
	KindRemote   Kind = "remote"   // an agent running elsewhere
	KindTeammate Kind = "teammate" // an in-process teammate agent
	KindWorkflow Kind = "workflow" // a local workflow
	KindMonitor  Kind = "monitor"  // a monitor of an MCP server
	KindDream    Kind = "dream"    // memory consolidation
)

// Status is where a task is in its life: pending → running → completed | failed | killed.
type Status string

// Task statuses.
const (
	Pending   Status = "pending"
	Running   Status = "running"
	Completed Status = "completed"
	Failed    Status = "failed"
	Killed    Status = "killed"
)

// Terminal reports whether s is an end state (completed, failed or killed).
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Killed }

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { return s == Pending || s == Running || s.Terminal() }

// Task is one unit of background work of a session, as the transcript's working-memory
// snapshot carries it.
type Task struct {
	ID          string `json:"id"`
	Kind        Kind   `json:"kind"`
	Status      Status `json:"status"`
	Description string `json:"description"`
	// Agent is the agent that started the task ("" for the main one).
	Agent   string    `json:"agent,omitempty"`
	Created time.Time `json:"created"`
	Start   time.Time `json:"start,omitzero"`
	End     time.Time `json:"end,omitzero"`
	// Output is the file the task's output was appended to.
	Output string `json:"output"`
	// Notified is set once the model has been told that the task ended.
	Notified bool `json:"notified,omitempty"`
	// Error says why a task failed or was killed.
	Error string `json:"error,omitempty"`
}

// Tasks is the registry of a session's tasks: what State.Restore brought back from the
// transcript, listed for compaction to re-inject and interrupted on resume. Safe for
// concurrent use.
type Tasks struct {
	now func() time.Time

	mu    sync.Mutex
	tasks map[string]*Task
}

// NewTasks returns an empty registry.
func NewTasks() *Tasks {
	return &Tasks{now: time.Now, tasks: map[string]*Task{}}
}

// List returns every task, oldest first (ties by id).
func (t *Tasks) List() []Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Task, 0, len(t.tasks))
	for _, task := range t.tasks {
		out = append(out, *task)
	}
	slices.SortFunc(out, func(a, b Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// Interrupt kills every task that is still pending or running, with reason as its Error and
// now as its End, and returns their ids, sorted. Resume calls it: the process that ran them is
// gone, and the model must hear that they did not finish rather than wait for them.
func (t *Tasks) Interrupt(reason string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0)
	for id, task := range t.tasks {
		if !task.Status.Terminal() {
			task.Status, task.End, task.Error = Killed, t.now(), reason
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// replace swaps the registry's content for tasks (used by State.Restore).
func (t *Tasks) replace(tasks []Task) {
	m := make(map[string]*Task, len(tasks))
	for i := range tasks {
		m[tasks[i].ID] = &tasks[i]
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tasks = m
}
