package work_test

import (
	"fmt"

	"github.com/strata-mem/strata/work"
)

// Working memory survives compaction and resume through State's snapshot, which the transcript
// carries.
func ExampleState() {
	s := work.NewState()
	s.Todos.Write(work.MainAgent, []work.Todo{
		{Content: "修复解析器", Status: work.TodoInProgress, ActiveForm: "正在修复解析器"},
		{Content: "Run the tests", Status: work.TodoPending, ActiveForm: "Running the tests"},
	})
	resumed := work.NewState()
	if err := resumed.Restore(s.Snapshot()); err != nil {
		fmt.Println(err)
	}
	for _, td := range resumed.Todos.Get(work.MainAgent) {
		fmt.Println(td.Status, td.Content)
	}

	// The snapshot of a session whose shell task was still running, resumed in a new process:
	// the shell that ran the task is gone.
	other := work.NewState()
	if err := other.Restore([]byte(`{"version":1,"tasks":[{"id":"b4k2m9x1q","kind":"shell","status":"running","description":"go test ./..."}]}`)); err != nil {
		fmt.Println(err)
	}
	fmt.Println(other.Tasks.Interrupt("the session ended before the task finished"))
	for _, t := range other.Tasks.List() {
		fmt.Println(t.ID, t.Status, t.Notified)
	}
	// Output:
	// in_progress 修复解析器
	// pending Run the tests
	// [b4k2m9x1q]
	// b4k2m9x1q killed false
}

// TodoWrite semantics: the model sends the whole list each time; a list with two items in
// progress is refused with a message the model can act on.
func ExampleValidateTodos() {
	todos, _ := work.DecodeTodoInput([]byte(`{"todos":[
		{"content":"a","status":"in_progress","activeForm":"doing a"},
		{"content":"b","status":"in_progress","activeForm":"doing b"}]}`))
	fmt.Println(work.ValidateTodos(todos))
	// Output: work: invalid todo list: items 1, 2 are all in_progress; at most one item may be in progress at a time
}
