package llmtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Dump renders a recorded call for a golden file: method and path, the named headers (in the
// order given, each value on its own line), a blank line, and the body exactly as it was sent,
// followed by a newline. Headers not named are left out, so that a user agent may change
// without touching the goldens.
func (r Request) Dump(headers ...string) string {
	var b strings.Builder
	b.WriteString(r.Method + " " + r.Path + "\n")
	for _, h := range headers {
		for _, v := range r.Header.Values(h) {
			b.WriteString(h + ": " + v + "\n")
		}
	}
	b.WriteString("\n")
	b.Write(r.Body)
	b.WriteString("\n")
	return b.String()
}

// CheckGolden compares got with the file at path, or, when update is set, writes got there
// (creating its directory). A difference fails the test and shows both.
func CheckGolden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: got something else (run the test with -update if the change is meant)\n got: %s\nwant: %s", path, got, want)
	}
}
