package work_test

import (
	"fmt"
	"os"

	"github.com/strata-mem/strata/work"
)

// Working memory survives compaction and resume through State's snapshot, which the transcript
// carries.
func ExampleState() {
	dir, _ := os.MkdirTemp("", "tasks")
	defer os.RemoveAll(dir)

	s := work.NewState(dir)
	s.Todos.Write(work.MainAgent, []work.Todo{
		{Content: "修复解析器", Status: work.TodoInProgress, ActiveForm: "正在修复解析器"},
		{Content: "Run the tests", Status: work.TodoPending, ActiveForm: "Running the tests"},
	})
	task, _ := s.Tasks.Create(work.KindShell, "go test ./...", work.MainAgent)
	s.Tasks.Move(task.ID, work.Running, "")

	resumed := work.NewState(dir)
	if err := resumed.Restore(s.Snapshot()); err != nil {
		fmt.Println(err)
	}
	// A new process: the shell that ran the task is gone.
	resumed.Tasks.Interrupt("the session ended before the task finished")
	for _, td := range resumed.Todos.Get(work.MainAgent) {
		fmt.Println(td.Status, td.Content)
	}
	t, _ := resumed.Tasks.Get(task.ID)
	fmt.Println(t.ID[0] == 'b', t.Status, t.Notified)
	// Output:
	// in_progress 修复解析器
	// pending Run the tests
	// true killed false
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
