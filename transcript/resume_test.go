package transcript

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/conversation"
)

func TestResumeRawMaterial(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p", "s.jsonl")
	j, err := Open(t.Context(), path, Options{SessionID: "s", FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	msg := func(role conversation.Role, id string, blocks ...conversation.Block) json.RawMessage {
		b, _ := json.Marshal(struct {
			ID string `json:"id,omitempty"`
			conversation.Message
		}{id, conversation.Message{Role: role, Content: blocks}})
		return b
	}
	_, err = j.AppendMessage(conversation.NewText(conversation.User, "read main.go and plan"), false)
	must(err)
	must(j.Append(&Entry{Type: TypeFileHistorySnapshot, MessageID: "m1", Snapshot: json.RawMessage(`{"trackedFileBackups":{}}`)}))
	// An assistant reply split over two lines sharing the provider message id.
	must(j.Append(&Entry{Type: TypeAssistant, ParentUUID: j.Leaf(), Message: msg(conversation.Assistant, "msg_1", conversation.Block{Type: conversation.Text, Text: "Reading."})}))
	must(j.Append(&Entry{Type: TypeAssistant, ParentUUID: j.Leaf(), Message: msg(conversation.Assistant, "msg_1",
		conversation.Block{Type: conversation.ToolUse, ID: "t1", Name: "Read", Input: json.RawMessage(`{"file_path":"/w/main.go"}`)})}))
	must(j.Append(&Entry{Type: TypeUser, ParentUUID: j.Leaf(), ToolUseResult: json.RawMessage(`{"type":"text","file":{"filePath":"/w/main.go","numLines":3}}`),
		Message: msg(conversation.User, "", conversation.Block{Type: conversation.ToolResult, ToolUseID: "t1", Content: []conversation.Block{{Type: conversation.Text, Text: "package main"}}})}))
	must(j.Append(&Entry{Type: TypeAssistant, ParentUUID: j.Leaf(), Message: msg(conversation.Assistant, "msg_2",
		conversation.Block{Type: conversation.ToolUse, ID: "t2", Name: "TodoWrite", Input: json.RawMessage(`{"todos":[{"content":"步骤一","status":"in_progress"}]}`)})}))
	must(j.Append(&Entry{Type: TypeCustomTitle, CustomTitle: "plan"}))
	before := j.Leaf()
	must(j.Append(&Entry{Type: TypeSystem, Subtype: SubtypeCompactBoundary, LogicalParentUUID: before, Content: json.RawMessage(`"Conversation compacted"`)}))
	_, err = j.Append2(t, &Entry{Type: TypeUser, IsCompactSummary: true, Message: msg(conversation.User, "", conversation.Block{Type: conversation.Text, Text: "summary"})})
	must(err)
	must(j.Close(t.Context()))

	s, err := Load(t.Context(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 0 {
		t.Fatalf("problems: %v", s.Problems)
	}
	if s.Boundary < 0 || len(s.Live()) != 1 || !s.Live()[0].IsCompactSummary {
		t.Fatalf("boundary %d, live %d", s.Boundary, len(s.Live()))
	}
	msgs, err := Messages(s.Chain[:s.Boundary])
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, fmt.Sprintf("%s:%d", m.Role, len(m.Content)))
	}
	if diff := cmp.Diff([]string{"user:1", "assistant:2", "user:1", "assistant:1"}, roles); diff != "" {
		t.Fatalf("messages (-want +got):\n%s", diff)
	}
	todos, ok := s.LastTodos()
	if !ok || string(todos.Input) != `{"todos":[{"content":"步骤一","status":"in_progress"}]}` {
		t.Fatalf("LastTodos = %s, %v", todos.Input, ok)
	}
	reads := s.ReadToolUses()
	if len(reads) != 1 || reads[0].Result == nil || string(reads[0].Input) != `{"file_path":"/w/main.go"}` || len(reads[0].Output) == 0 {
		t.Fatalf("ReadToolUses = %+v", reads)
	}
	if n := len(s.FileSnapshots()); n != 1 {
		t.Fatalf("FileSnapshots = %d", n)
	}
	if s.Meta.Title() != "plan" {
		t.Fatalf("title = %q", s.Meta.Title())
	}

	// Resume: the next message hangs off the restored leaf.
	j, err = Open(t.Context(), path, Options{Metadata: s.Meta.List(), FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	j.SetLeaf(s.Leaf().UUID)
	e, err := j.AppendMessage(conversation.NewText(conversation.User, "continue"), false)
	must(err)
	must(j.Close(t.Context()))
	s2, err := Load(t.Context(), path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s2.Leaf().UUID != e.UUID || len(s2.Chain) != len(s.Chain)+1 {
		t.Fatalf("resumed chain: leaf %s (want %s), %d entries (want %d)", s2.Leaf().UUID, e.UUID, len(s2.Chain), len(s.Chain)+1)
	}
}

// Append2 appends e with the journal's leaf as parent (test helper).
func (j *Journal) Append2(t *testing.T, e *Entry) (*Entry, error) {
	e.ParentUUID = j.Leaf()
	return e, j.Append(e)
}

// TestJournalModel drives a journal with random operations (appends, flushes, syncs, close and
// reopen) and compares the file with an in-memory model after each reopen.
func TestJournalModel(t *testing.T) {
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 7))
		path := filepath.Join(t.TempDir(), "m.jsonl")
		var model []string // uuids of conversation entries, in order
		open := func() *Journal {
			j, err := Open(t.Context(), path, Options{FlushInterval: -1})
			if err != nil {
				t.Fatal(err)
			}
			return j
		}
		check := func() {
			if _, err := os.Stat(path); os.IsNotExist(err) && len(model) == 0 {
				return
			}
			f := checkFile(t, path)
			var got []string
			for _, e := range f.Entries {
				if e.Type == TypeUser || e.Type == TypeAssistant {
					got = append(got, e.UUID)
				}
			}
			if diff := cmp.Diff(model, got); diff != "" {
				t.Fatalf("seed %d: file differs from model (-model +file):\n%s", seed, diff)
			}
		}
		j := open()
		for range 200 {
			switch op := rng.IntN(10); {
			case op < 6:
				typ := TypeUser
				if rng.IntN(2) == 0 {
					typ = TypeAssistant
				}
				e := textEntry(t, typ, j.Leaf(), fmt.Sprint("text ", rng.IntN(1000)))
				if err := j.Append(e); err != nil {
					t.Fatal(err)
				}
				model = append(model, e.UUID)
			case op == 6:
				j.Append(&Entry{Type: TypeAITitle, AITitle: fmt.Sprint("t", rng.IntN(9))})
			case op == 7:
				if err := j.Flush(t.Context()); err != nil {
					t.Fatal(err)
				}
			case op == 8:
				if err := j.Sync(t.Context()); err != nil {
					t.Fatal(err)
				}
			default:
				if err := j.Close(t.Context()); err != nil {
					t.Fatal(err)
				}
				check()
				j = open()
			}
		}
		if err := j.Close(t.Context()); err != nil {
			t.Fatal(err)
		}
		check()
	}
}
