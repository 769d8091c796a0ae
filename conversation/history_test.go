package conversation

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
)

func TestHistoryAppendLinksEntries(t *testing.T) {
	h, err := NewHistory(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := h.Append(NewText(User, "你好"))
	b := h.AppendMeta(NewText(User, "<system-reminder>提醒</system-reminder>"))
	c := h.Append(NewText(Assistant, "hi"))
	if a.ParentUUID != "" || b.ParentUUID != a.UUID || c.ParentUUID != b.UUID {
		t.Fatalf("parents: %q %q %q", a.ParentUUID, b.ParentUUID, c.ParentUUID)
	}
	for _, e := range []Entry{a, b, c} {
		id, err := uuid.Parse(e.UUID)
		if err != nil || id.Version() != 7 {
			t.Fatalf("uuid %q: %v version %v", e.UUID, err, id.Version())
		}
		if e.Timestamp.IsZero() {
			t.Fatal("no timestamp")
		}
	}
	if !b.IsMeta || a.IsMeta {
		t.Fatal("isMeta flags wrong")
	}
	if _, err := h.AppendEntry(Entry{UUID: a.UUID}); err == nil {
		t.Fatal("duplicate uuid accepted")
	}
	if last, _ := h.Last(); last.UUID != c.UUID || h.Len() != 3 {
		t.Fatalf("Last = %s, Len = %d", last.UUID, h.Len())
	}
}

func TestNewHistoryValidates(t *testing.T) {
	tests := []struct {
		name    string
		chain   []Entry
		wantErr string
	}{
		{"empty", nil, ""},
		{"linked", []Entry{{UUID: "a"}, {UUID: "b", ParentUUID: "a"}}, ""},
		{"boundary with an outside parent", []Entry{{UUID: "a", ParentUUID: "gone"}, {UUID: "b", ParentUUID: "a"}}, ""},
		{"no uuid", []Entry{{UUID: "a"}, {}}, "entry 1: no uuid"},
		{"duplicate", []Entry{{UUID: "a"}, {UUID: "a"}}, "duplicate uuid a"},
		{"self parent", []Entry{{UUID: "a", ParentUUID: "a"}}, "parent a comes at or after it"},
		{"cycle", []Entry{{UUID: "a", ParentUUID: "b"}, {UUID: "b", ParentUUID: "a"}}, "parent b comes at or after it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHistory(tt.chain)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.chain, h.Entries(), cmpEmpty); diff != "" {
					t.Fatalf("entries (-want +got):\n%s", diff)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []Entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].UUID != b[i].UUID || a[i].ParentUUID != b[i].ParentUUID {
			return false
		}
	}
	return true
})

func TestResumedHistoryContinuesChain(t *testing.T) {
	h, _ := NewHistory([]Entry{{UUID: "u1"}, {UUID: "u2", ParentUUID: "u1"}})
	if e := h.Append(NewText(User, "继续")); e.ParentUUID != "u2" {
		t.Fatalf("parent %q, want u2", e.ParentUUID)
	}
}

func TestFitDropsMetaFirst(t *testing.T) {
	big := strings.Repeat("字", 100) // 100 tokens
	build := func() *History {
		h, _ := NewHistory(nil)
		h.Append(NewText(User, "question")) // 2 tokens
		h.AppendMeta(NewText(User, big))    // droppable
		h.AppendEntry(Entry{IsMeta: true, Message: Message{Role: User, Content: []Block{{Type: ToolResult, ToolUseID: "t", Content: []Block{{Type: Text, Text: big}}}}}})
		h.AppendMeta(NewText(User, big)) // droppable
		h.Append(NewText(Assistant, "answer"))
		h.AppendMeta(NewText(User, big)) // newest: never dropped
		return h
	}
	tests := []struct {
		name        string
		budget      int
		wantDropped int
		wantErr     error
	}{
		{"everything fits", 1000, 0, nil},
		{"one meta dropped", 350, 1, nil},
		{"two meta dropped", 250, 2, nil},
		{"tool result and newest kept", 150, 2, ErrOverBudget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := build()
			all := h.Entries()
			f, err := h.Fit(tt.budget)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if len(f.Dropped) != tt.wantDropped || len(f.Entries) != len(all)-tt.wantDropped {
				t.Fatalf("dropped %d, kept %d of %d", len(f.Dropped), len(f.Entries), len(all))
			}
			if len(f.Dropped) > 0 && f.Dropped[0] != all[1].UUID {
				t.Fatalf("dropped %v first, want the oldest meta entry %s", f.Dropped, all[1].UUID)
			}
			if f.Tokens != ContextTokens(f.Entries) {
				t.Fatalf("Tokens %d, entries cost %d", f.Tokens, ContextTokens(f.Entries))
			}
			if h.Len() != len(all) {
				t.Fatal("Fit changed the history")
			}
		})
	}
}

func TestMessagesMergesSameRole(t *testing.T) {
	entries := []Entry{
		{Message: Message{Role: User, Content: []Block{{Type: ToolResult, ToolUseID: "t1", Content: []Block{{Type: Text, Text: "ok"}}}}}},
		{Message: NewText(User, "<reminder>"), IsMeta: true},
		{Message: NewText(Assistant, "done")},
		{Message: NewText(User, "谢谢")},
	}
	got := Messages(entries)
	want := []Message{
		{Role: User, Content: []Block{{Type: ToolResult, ToolUseID: "t1", Content: []Block{{Type: Text, Text: "ok"}}}, {Type: Text, Text: "<reminder>"}}},
		NewText(Assistant, "done"),
		NewText(User, "谢谢"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Messages (-want +got):\n%s", diff)
	}
	if len(entries[0].Message.Content) != 1 {
		t.Fatal("Messages modified its input")
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatal(err)
	}
}

func TestHistoryConcurrent(t *testing.T) {
	h, _ := NewHistory(nil)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				h.Append(NewText(User, "x"))
				h.Tokens()
				h.Fit(10)
			}
		})
	}
	wg.Wait()
	es := h.Entries()
	if len(es) != 800 {
		t.Fatalf("%d entries", len(es))
	}
	for i := 1; i < len(es); i++ {
		if es[i].ParentUUID != es[i-1].UUID {
			t.Fatalf("entry %d parent %s, want %s", i, es[i].ParentUUID, es[i-1].UUID)
		}
	}
}
