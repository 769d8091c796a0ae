package work

import (
	"encoding/json"
	"github.com/strata-mem/strata/internal/sharedtest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeTodoInput(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Todo
		wantErr string
	}{
		{"current shape", `{"todos":[{"content":"运行测试","status":"in_progress","activeForm":"正在运行测试"}]}`,
			[]Todo{{Content: "运行测试", Status: TodoInProgress, ActiveForm: "正在运行测试"}}, ""},
		{"legacy shape", `{"todos":[{"id":"1","content":"Examine","status":"pending","priority":"high"}]}`,
			[]Todo{{ID: "1", Content: "Examine", Status: TodoPending, Priority: "high"}}, ""},
		{"empty list", `{"todos":[]}`, []Todo{}, ""},
		{"unknown fields ignored", `{"todos":[{"content":"a","status":"completed","activeForm":"A","x":1}],"y":2}`,
			[]Todo{{Content: "a", Status: TodoCompleted, ActiveForm: "A"}}, ""},
		{"missing todos", `{}`, nil, `missing "todos"`},
		{"null todos", `{"todos":null}`, nil, `missing "todos"`},
		{"todos not a list", `{"todos":"x"}`, nil, "todo input"},
		{"item not an object", `{"todos":[1]}`, nil, "item 1"},
		{"bad status", `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"done"}]}`, nil, `item 2: status "done"`},
		{"not json", `todos`, nil, "not a JSON object"},
		{"array", `[]`, nil, "not a JSON object"},
		{"truncated", `{"todos":[{"content":"a"`, nil, "todo input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeTodoInput([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateTodos(t *testing.T) {
	ok := func(c string, s TodoStatus) Todo { return Todo{Content: c, Status: s, ActiveForm: c + "ing"} }
	tests := []struct {
		name    string
		todos   []Todo
		wantErr []string
	}{
		{"empty list", nil, nil},
		{"one in progress", []Todo{ok("a", TodoCompleted), ok("b", TodoInProgress), ok("c", TodoPending)}, nil},
		{"chinese", []Todo{{Content: "写文档", Status: TodoPending, ActiveForm: "正在写文档"}}, nil},
		{"two in progress", []Todo{ok("a", TodoInProgress), ok("b", TodoPending), ok("c", TodoInProgress)},
			[]string{"items 1, 3 are all in_progress", "at most one"}},
		{"empty content", []Todo{{Content: "  ", Status: TodoPending, ActiveForm: "x"}}, []string{"item 1: content is empty"}},
		{"no activeForm", []Todo{{Content: "a", Status: TodoPending}}, []string{"item 1: activeForm is empty"}},
		{"bad status", []Todo{ok("a", TodoPending), {Content: "b", Status: "doing", ActiveForm: "b"}}, []string{`item 2: status "doing"`}},
		{"every problem listed", []Todo{{Status: "x"}}, []string{"content is empty", "activeForm is empty", `status "x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateTodos(tt.todos)
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestTodosWriteReplaces(t *testing.T) {
	td := NewTodos()
	first := []Todo{{Content: "a", Status: TodoInProgress, ActiveForm: "A"}, {Content: "b", Status: TodoPending, ActiveForm: "B"}}
	if old, err := td.Write(MainAgent, first); err != nil || old != nil {
		t.Fatalf("first write: %v, %v", old, err)
	}
	second := []Todo{{Content: "c", Status: TodoPending, ActiveForm: "C"}}
	old, err := td.Write(MainAgent, second)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, old); diff != "" {
		t.Fatalf("old list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(second, td.Get(MainAgent)); diff != "" {
		t.Fatalf("whole list not replaced (-want +got):\n%s", diff)
	}
	if _, err := td.Write(MainAgent, []Todo{{Content: "x", Status: TodoInProgress, ActiveForm: "X"}, {Content: "y", Status: TodoInProgress, ActiveForm: "Y"}}); err == nil {
		t.Fatal("invalid list accepted")
	}
	if diff := cmp.Diff(second, td.Get(MainAgent)); diff != "" {
		t.Fatalf("a refused write changed the list (-want +got):\n%s", diff)
	}
	// Agents are separate.
	td.Write("agent-1", first)
	if len(td.Get(MainAgent)) != 1 || len(td.Get("agent-1")) != 2 {
		t.Fatal("agents share a list")
	}
	// All completed: the list is cleared.
	td.Write(MainAgent, []Todo{{Content: "c", Status: TodoCompleted, ActiveForm: "C"}})
	if got := td.Get(MainAgent); len(got) != 0 {
		t.Fatalf("finished list kept: %v", got)
	}
	if diff := cmp.Diff([]string{"agent-1"}, td.Agents()); diff != "" {
		t.Fatalf("Agents (-want +got):\n%s", diff)
	}
	// The returned slice is a copy.
	got := td.Get("agent-1")
	got[0].Content = "changed"
	if td.Get("agent-1")[0].Content != "a" {
		t.Fatal("Get returned the internal slice")
	}
}

func TestRestoreFromToolUseIsLenient(t *testing.T) {
	td := NewTodos()
	// Legacy items (no activeForm) and two in progress: accepted when written, so restored.
	in := `{"todos":[{"id":"1","content":"a","status":"in_progress","priority":"high"},{"id":"2","content":"b","status":"in_progress","priority":"low"}]}`
	if err := td.RestoreFromToolUse(MainAgent, []byte(in)); err != nil {
		t.Fatal(err)
	}
	if got := td.Get(MainAgent); len(got) != 2 || got[1].Priority != "low" {
		t.Fatalf("restored %+v", got)
	}
	if err := td.RestoreFromToolUse(MainAgent, []byte(`{"todos":`)); err == nil {
		t.Fatal("torn input accepted")
	}
	if len(td.Get(MainAgent)) != 2 {
		t.Fatal("a failed restore changed the list")
	}
}

// TestRestoreFromCorpus rebuilds todos from the last TodoWrite of each real Claude Code
// transcript in the shared corpus.
func TestRestoreFromCorpus(t *testing.T) {
	dir := corpusDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	restored := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var last json.RawMessage
		for _, line := range strings.Split(string(data), "\n") {
			var e struct {
				Message struct {
					Content []struct {
						Type  string          `json:"type"`
						Name  string          `json:"name"`
						Input json.RawMessage `json:"input"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal([]byte(line), &e) != nil {
				continue // string content, metadata lines
			}
			for _, b := range e.Message.Content {
				if b.Type == "tool_use" && b.Name == "TodoWrite" {
					last = b.Input
				}
			}
		}
		if last == nil {
			continue
		}
		td := NewTodos()
		if err := td.RestoreFromToolUse(MainAgent, last); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		restored++
	}
	if restored == 0 {
		t.Fatal("no TodoWrite found in the corpus")
	}
	t.Logf("restored todos from %d transcripts", restored)
}

func corpusDir(t *testing.T) string {
	t.Helper()
	return sharedtest.Dir(t, "corpus", "transcripts")
}

func TestTodosConcurrent(t *testing.T) {
	td := NewTodos()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			agent := string(rune('a' + g))
			for i := range 200 {
				td.Write(agent, []Todo{{Content: "x", Status: TodoPending, ActiveForm: "X"}, {Content: "y", Status: TodoStatus([]string{"pending", "in_progress"}[i%2]), ActiveForm: "Y"}})
				td.Get(MainAgent)
				td.Agents()
			}
		})
	}
	wg.Wait()
	if len(td.Agents()) != 4 {
		t.Fatalf("agents %v", td.Agents())
	}
}

func FuzzDecodeTodoInput(f *testing.F) {
	f.Add([]byte(`{"todos":[{"content":"运行测试","status":"in_progress","activeForm":"正在运行测试"}]}`))
	f.Add([]byte(`{"todos":[{"id":"1","content":"a","status":"pending","priority":"high"}]}`))
	f.Add([]byte(`{"todos":[]}`))
	f.Add([]byte(`{"todos":null}`))
	f.Add([]byte(` {"todos":[{"status":"completed"}]} `))
	f.Fuzz(func(t *testing.T, in []byte) {
		todos, err := DecodeTodoInput(in)
		if err != nil {
			return
		}
		for _, td := range todos {
			if !td.Status.Valid() {
				t.Fatalf("accepted status %q", td.Status)
			}
		}
		// Whatever decodes round-trips through the tool's shape.
		data, err := json.Marshal(map[string][]Todo{"todos": todos})
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeTodoInput(data)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", data, err)
		}
		if diff := cmp.Diff(todos, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		ValidateTodos(todos) // must not panic
	})
}
