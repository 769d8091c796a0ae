package work

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// MainAgent is the key of the main agent's todo list; subagents use their own id.
const MainAgent = "main"

// TodoStatus is the state of one todo item.
type TodoStatus string

// Todo statuses, as the TodoWrite tool takes them.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoCompleted  TodoStatus = "completed"
)

// Valid reports whether s is one of the three statuses.
func (s TodoStatus) Valid() bool {
	return s == TodoPending || s == TodoInProgress || s == TodoCompleted
}

// Todo is one item of an agent's todo list, in the TodoWrite tool's shape.
type Todo struct {
	// Content is the imperative form ("Run the tests").
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
	// ActiveForm is the present continuous form shown while the item is in progress ("Running
	// the tests").
	ActiveForm string `json:"activeForm,omitempty"`
	// ID and Priority are kept from older transcripts, whose items carried them.
	ID       string `json:"id,omitempty"`
	Priority string `json:"priority,omitempty"`
}

// DecodeTodoInput parses a TodoWrite tool input, {"todos":[{"content","status","activeForm"}]}
// (older items with "id" and "priority" are accepted too). It checks the shape only; see
// ValidateTodos for the rules a new list must follow.
func DecodeTodoInput(input []byte) ([]Todo, error) {
	var in struct {
		Todos *[]json.RawMessage `json:"todos"`
	}
	trimmed := bytes.TrimSpace(input)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, errors.New("work: todo input: not a JSON object")
	}
	if err := json.Unmarshal(trimmed, &in); err != nil {
		return nil, fmt.Errorf("work: todo input: %w", err)
	}
	if in.Todos == nil {
		return nil, errors.New(`work: todo input: missing "todos" list`)
	}
	todos := make([]Todo, 0, len(*in.Todos))
	for i, raw := range *in.Todos {
		var td Todo
		if err := json.Unmarshal(raw, &td); err != nil {
			return nil, fmt.Errorf("work: todo input: item %d: %w", i+1, err)
		}
		if !td.Status.Valid() {
			return nil, fmt.Errorf("work: todo input: item %d: status %q is not pending, in_progress or completed", i+1, td.Status)
		}
		todos = append(todos, td)
	}
	return todos, nil
}

// ValidateTodos checks a list about to be written: every item has content, a valid status and an
// activeForm, and at most one item is in progress. The error lists every problem, by item number.
func ValidateTodos(todos []Todo) error {
	var errs []error
	var inProgress []string
	for i, td := range todos {
		n := i + 1
		if strings.TrimSpace(td.Content) == "" {
			errs = append(errs, fmt.Errorf("item %d: content is empty", n))
		}
		if strings.TrimSpace(td.ActiveForm) == "" {
			errs = append(errs, fmt.Errorf("item %d: activeForm is empty (give the present continuous form, e.g. \"Running tests\")", n))
		}
		if !td.Status.Valid() {
			errs = append(errs, fmt.Errorf("item %d: status %q is not pending, in_progress or completed", n, td.Status))
		}
		if td.Status == TodoInProgress {
			inProgress = append(inProgress, fmt.Sprint(n))
		}
	}
	if len(inProgress) > 1 {
		errs = append(errs, fmt.Errorf("items %s are all in_progress; at most one item may be in progress at a time", strings.Join(inProgress, ", ")))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("work: invalid todo list: %w", errors.Join(errs...))
}

// Todos holds each agent's todo list. A write replaces the whole list, as TodoWrite does. Todos
// are working memory: they are carried by State through compaction and resume, never saved as
// long-term memory. Safe for concurrent use; the zero value is not ready, use NewTodos.
type Todos struct {
	mu      sync.Mutex
	byAgent map[string][]Todo
}

// NewTodos returns empty lists.
func NewTodos() *Todos { return &Todos{byAgent: map[string][]Todo{}} }

// Write validates todos and makes them agent's list, returning the previous list. A list whose
// items are all completed is stored as empty (the work is done; keeping it would only remind the
// model of finished work), as the reference does.
func (t *Todos) Write(agent string, todos []Todo) (old []Todo, err error) {
	if err := ValidateTodos(todos); err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	old = t.byAgent[agent]
	t.set(agent, todos)
	return old, nil
}

func (t *Todos) set(agent string, todos []Todo) {
	done := !slices.ContainsFunc(todos, func(td Todo) bool { return td.Status != TodoCompleted })
	if done {
		delete(t.byAgent, agent)
		return
	}
	t.byAgent[agent] = slices.Clone(todos)
}

// Get returns a copy of agent's list.
func (t *Todos) Get(agent string) []Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.byAgent[agent])
}

// Agents returns the agents that have a non-empty list, sorted.
func (t *Todos) Agents() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]string, 0, len(t.byAgent))
	for a := range t.byAgent {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// RestoreFromToolUse sets agent's list from the input of the last TodoWrite tool use of a
// transcript (resume). It is lenient where ValidateTodos is strict, because the list was
// accepted when it was written: items without activeForm (older transcripts) or several in
// progress are kept. Only an input that does not parse is an error, and then nothing changes.
func (t *Todos) RestoreFromToolUse(agent string, input []byte) error {
	todos, err := DecodeTodoInput(input)
	if err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.set(agent, todos)
	return nil
}

func (t *Todos) snapshot() map[string][]Todo {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string][]Todo, len(t.byAgent))
	for a, l := range t.byAgent {
		out[a] = slices.Clone(l)
	}
	return out
}

func (t *Todos) replace(m map[string][]Todo) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.byAgent = map[string][]Todo{}
	for a, l := range m {
		t.set(a, l)
	}
}
