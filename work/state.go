package work

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// StateVersion is the version of the JSON that State.Snapshot writes. Restore reads this version
// and refuses newer ones.
const StateVersion = 1

// State is a session's working memory: every agent's todos and the task registry. The
// transcript stores its Snapshot so that compaction and resume keep it.
type State struct {
	Todos *Todos
	Tasks *Tasks
}

// NewState returns empty working memory.
func NewState() *State {
	return &State{Todos: NewTodos(), Tasks: NewTasks()}
}

// snapshot is the JSON shape of a State. Field order and the sorting of tasks (creation, then id)
// and of todo agents (encoding/json sorts map keys) make the bytes stable.
type snapshot struct {
	Version int               `json:"version"`
	Todos   map[string][]Todo `json:"todos"`
	Tasks   []Task            `json:"tasks"`
}

// Snapshot returns the state as one line of versioned JSON:
// {"version":1,"todos":{"<agent>":[todo…]},"tasks":[task…]}. The same state gives the same bytes.
func (s *State) Snapshot() []byte {
	snap := snapshot{Version: StateVersion, Todos: s.Todos.snapshot(), Tasks: s.Tasks.List()}
	data, err := json.Marshal(snap)
	if err != nil {
		// Only strings, bools, ints and times are inside; Marshal cannot fail on them.
		panic(fmt.Sprintf("work: marshal state: %v", err))
	}
	return data
}

// Restore replaces the state with a Snapshot's. A snapshot of another version, or one that does
// not parse, changes nothing and returns an error. Otherwise every valid item is restored, and
// the error (if any) names each item that was left out and why: a task without id, with a
// duplicate id or an unknown status; a todo with an unknown status. Tasks that were running keep
// that status; call Tasks.Interrupt after a resume in a new process.
func (s *State) Restore(data []byte) error {
	var snap snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return fmt.Errorf("work: restore state: %w", err)
	}
	if snap.Version != StateVersion {
		return fmt.Errorf("work: restore state: version %d, this strata reads version %d", snap.Version, StateVersion)
	}
	var errs []error
	tasks := make([]Task, 0, len(snap.Tasks))
	seen := map[string]bool{}
	for i, task := range snap.Tasks {
		switch {
		case task.ID == "":
			errs = append(errs, fmt.Errorf("task %d: no id", i+1))
		case seen[task.ID]:
			errs = append(errs, fmt.Errorf("task %s: duplicate id", task.ID))
		case !task.Status.Valid():
			errs = append(errs, fmt.Errorf("task %s: unknown status %q", task.ID, task.Status))
		default:
			seen[task.ID] = true
			tasks = append(tasks, task)
		}
	}
	todos := make(map[string][]Todo, len(snap.Todos))
	agents := slices.Sorted(maps.Keys(snap.Todos))
	for _, agent := range agents {
		list := snap.Todos[agent]
		kept := slices.DeleteFunc(slices.Clone(list), func(td Todo) bool { return !td.Status.Valid() })
		if n := len(list) - len(kept); n > 0 {
			errs = append(errs, fmt.Errorf("todos of %s: %d item(s) with an unknown status", agent, n))
		}
		todos[agent] = kept
	}
	s.Tasks.replace(tasks)
	s.Todos.replace(todos)
	if len(errs) > 0 {
		return fmt.Errorf("work: restore state: left out: %w", errors.Join(errs...))
	}
	return nil
}
