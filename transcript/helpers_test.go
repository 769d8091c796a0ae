package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/strata-mem/strata/conversation"
)

// textEntry builds a user or assistant entry with one text block.
func textEntry(t testing.TB, typ, parent, text string) *Entry {
	t.Helper()
	role := conversation.User
	if typ == TypeAssistant {
		role = conversation.Assistant
	}
	msg, err := json.Marshal(conversation.NewText(role, text))
	if err != nil {
		t.Fatal(err)
	}
	return &Entry{Type: typ, ParentUUID: parent, Message: msg}
}

// checkFile asserts the journal's invariant on a file: every line but possibly the last is a
// JSON object, and the reader loads it.
func checkFile(t testing.TB, path string) *File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	lines := bytes.Split(data, []byte{'\n'})
	for i, l := range lines[:len(lines)-1] {
		var v map[string]any
		if err := json.Unmarshal(l, &v); err != nil {
			t.Fatalf("%s: line %d is not a JSON object: %v: %.80q", path, i+1, err, l)
		}
	}
	f, err := ReadFile(t.Context(), path, ReadOptions{Full: true})
	if err != nil {
		t.Fatalf("ReadFile %s: %v", path, err)
	}
	if len(f.Entries)+f.Skipped() != f.Lines {
		t.Fatalf("%s: %d entries + %d skipped != %d lines", path, len(f.Entries), f.Skipped(), f.Lines)
	}
	return f
}

// lineTypes returns the type of each entry of f.
func lineTypes(f *File) []string {
	var out []string
	for _, e := range f.Entries {
		out = append(out, e.Type)
	}
	return out
}
