package work

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// Kind is what runs a task. Its Prefix starts the task's id, so an id says what it is.
type Kind string

// Kinds of tasks.
const (
	KindShell    Kind = "shell"    // a shell command run in the background (prefix b)
	KindAgent    Kind = "agent"    // a local subagent (prefix a)
	KindRemote   Kind = "remote"   // an agent running elsewhere (prefix r)
	KindTeammate Kind = "teammate" // an in-process teammate agent (prefix t)
	KindWorkflow Kind = "workflow" // a local workflow (prefix w)
	KindMonitor  Kind = "monitor"  // a monitor of an MCP server (prefix m)
	KindDream    Kind = "dream"    // memory consolidation (prefix d)
)

var prefixes = map[Kind]byte{
	KindShell: 'b', KindAgent: 'a', KindRemote: 'r', KindTeammate: 't',
	KindWorkflow: 'w', KindMonitor: 'm', KindDream: 'd',
}

// Prefix returns the id prefix of k, and false for an unknown kind.
func (k Kind) Prefix() (byte, bool) {
	p, ok := prefixes[k]
	return p, ok
}

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

// transitions lists the statuses each status may move to. A task that never started may fail
// (it could not be started) or be killed (cancelled); the terminal statuses have no way out.
var transitions = map[Status][]Status{
	Pending: {Running, Failed, Killed},
	Running: {Completed, Failed, Killed},
}

// Terminal reports whether s is an end state (completed, failed or killed).
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Killed }

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool { return s == Pending || s == Running || s.Terminal() }

// CanMove reports whether a task may go from s to to.
func (s Status) CanMove(to Status) bool { return slices.Contains(transitions[s], to) }

// Task is one unit of background work the model can start, watch and stop.
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
	// Output is the file the task's output is appended to.
	Output string `json:"output"`
	// Notified is set once the model has been told that the task ended.
	Notified bool `json:"notified,omitempty"`
	// Error says why a task failed or was killed.
	Error string `json:"error,omitempty"`
}

// Errors of Tasks; returned wrapped with the task id.
var (
	// ErrNoTask is returned for an id the registry does not hold.
	ErrNoTask = errors.New("no such task")
	// ErrTransition is returned for a status change the life cycle does not allow.
	ErrTransition = errors.New("invalid status change")
)

// Tasks is the registry of a session's tasks. Safe for concurrent use.
type Tasks struct {
	dir string
	now func() time.Time

	mu    sync.Mutex
	tasks map[string]*Task
}

// NewTasks returns an empty registry whose tasks write their output under dir (created 0700 at
// the first output; files 0600).
func NewTasks(dir string) *Tasks {
	return &Tasks{dir: dir, now: time.Now, tasks: map[string]*Task{}}
}

const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyz"

// NewID returns a fresh id for a task of kind k: its prefix and 8 random base-36 characters.
func NewID(k Kind) (string, error) {
	p, ok := k.Prefix()
	if !ok {
		return "", fmt.Errorf("work: unknown task kind %q", k)
	}
	var b [8]byte
	rand.Read(b[:]) // never returns an error (crypto/rand crashes the program instead)
	id := []byte{p}
	for _, c := range b {
		id = append(id, idAlphabet[int(c)%len(idAlphabet)])
	}
	return string(id), nil
}

// Create registers a pending task of kind k and returns it.
func (t *Tasks) Create(k Kind, description, agent string) (Task, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var id string
	for {
		var err error
		if id, err = NewID(k); err != nil {
			return Task{}, err
		}
		if _, taken := t.tasks[id]; !taken {
			break
		}
	}
	task := &Task{
		ID: id, Kind: k, Status: Pending, Description: description, Agent: agent,
		Created: t.now(), Output: filepath.Join(t.dir, id+".output"),
	}
	t.tasks[id] = task
	return *task, nil
}

// Get returns the task with id.
func (t *Tasks) Get(id string) (Task, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if task, ok := t.tasks[id]; ok {
		return *task, true
	}
	return Task{}, false
}

// List returns every task, oldest first (ties by id).
func (t *Tasks) List() []Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Task, 0, len(t.tasks))
	for _, task := range t.tasks {
		out = append(out, *task)
	}
	sortTasks(out)
	return out
}

func sortTasks(ts []Task) {
	slices.SortFunc(ts, func(a, b Task) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

// Move changes the status of task id to to, if the life cycle allows it. Moving to running sets
// Start; moving to a terminal status sets End and records reason as the task's Error (for
// completed, reason is ignored).
func (t *Tasks) Move(id string, to Status, reason string) (Task, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.move(id, to, reason)
}

// move is Move for callers holding t.mu.
func (t *Tasks) move(id string, to Status, reason string) (Task, error) {
	task, ok := t.tasks[id]
	if !ok {
		return Task{}, fmt.Errorf("work: task %s: %w", id, ErrNoTask)
	}
	if !task.Status.CanMove(to) {
		return *task, fmt.Errorf("work: task %s: %w from %s to %s", id, ErrTransition, task.Status, to)
	}
	task.Status = to
	switch {
	case to == Running:
		task.Start = t.now()
	case to.Terminal():
		task.End = t.now()
		if to != Completed {
			task.Error = reason
		}
	}
	return *task, nil
}

// MarkNotified records that the model was told task id ended. Only an ended task can be notified.
func (t *Tasks) MarkNotified(id string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	task, ok := t.tasks[id]
	if !ok {
		return fmt.Errorf("work: task %s: %w", id, ErrNoTask)
	}
	if !task.Status.Terminal() {
		return fmt.Errorf("work: task %s: cannot mark a %s task notified", id, task.Status)
	}
	task.Notified = true
	return nil
}

// Unnotified returns the ended tasks the model has not been told about yet, oldest first.
func (t *Tasks) Unnotified() []Task {
	var out []Task
	for _, task := range t.List() {
		if task.Status.Terminal() && !task.Notified {
			out = append(out, task)
		}
	}
	return out
}

// Interrupt kills every task that is still pending or running, with reason as its Error, and
// returns their ids. Resume calls it: the process that ran them is gone, and the model must hear
// that they did not finish rather than wait for them.
func (t *Tasks) Interrupt(reason string) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	ids := make([]string, 0)
	for id, task := range t.tasks {
		if !task.Status.Terminal() {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		t.move(id, Killed, reason) // cannot fail: under the lock the task exists and is not terminal
	}
	return ids
}

// AppendOutput appends p to task id's output file (created 0600, its directory 0700).
func (t *Tasks) AppendOutput(id string, p []byte) error {
	w, err := t.OutputWriter(id)
	if err != nil {
		return err
	}
	_, err = w.Write(p)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("work: task %s: append output: %w", id, err)
	}
	return nil
}

// OutputWriter opens task id's output file for appending; the caller closes it. Each Write is
// one append, so concurrent writers do not interleave within a Write.
func (t *Tasks) OutputWriter(id string) (io.WriteCloser, error) {
	task, ok := t.Get(id)
	if !ok {
		return nil, fmt.Errorf("work: task %s: %w", id, ErrNoTask)
	}
	if err := os.MkdirAll(filepath.Dir(task.Output), 0o700); err != nil {
		return nil, fmt.Errorf("work: task %s: %w", id, err)
	}
	f, err := os.OpenFile(task.Output, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("work: task %s: %w", id, err)
	}
	return f, nil
}

// ReadOutput returns task id's output from byte offset from, and the offset to read from next
// time. A task that has written nothing yet has empty output.
func (t *Tasks) ReadOutput(id string, from int64) ([]byte, int64, error) {
	task, ok := t.Get(id)
	if !ok {
		return nil, from, fmt.Errorf("work: task %s: %w", id, ErrNoTask)
	}
	f, err := os.Open(task.Output)
	if errors.Is(err, os.ErrNotExist) {
		return nil, from, nil
	}
	if err != nil {
		return nil, from, fmt.Errorf("work: task %s: read output: %w", id, err)
	}
	defer f.Close()
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, from, fmt.Errorf("work: task %s: read output %s: %w", id, task.Output, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, from, fmt.Errorf("work: task %s: read output %s: %w", id, task.Output, err)
	}
	return data, from + int64(len(data)), nil
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
