package memdir

import (
	"os"
	"strings"
	"testing"
	"time"
)

// A write with an author records it in the frontmatter (author: is a known key: Memory.Author
// reads it); a later write by someone else replaces it in place; a write without one leaves it.
func TestAuthorRecorded(t *testing.T) {
	s := newTestStore(t, Options{Now: func() time.Time { return time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC) }})
	in := Input{Name: "release day", Description: "Releases leave on Tuesdays", Type: TypeProject, Body: "Tuesdays.", Author: "Alice <alice@example.com>"}
	res, err := s.Add(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(res.Path)
	if want := "---\nname: release day\ndescription: Releases leave on Tuesdays\ntype: project\nauthor: Alice <alice@example.com>\nmodified: \"2026-05-01T08:00:00Z\"\n---\n"; !strings.HasPrefix(string(data), want) {
		t.Fatalf("new file:\n%s\nwant it to start:\n%s", data, want)
	}
	get := func() Memory {
		m, err := s.Get(t.Context(), "release day")
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if a := get().Author; a != "Alice <alice@example.com>" {
		t.Errorf("author = %q", a)
	}
	in.Author, in.Body = "李雷 <li@example.com>", "Tuesdays, 10:00."
	if _, err := s.Add(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if a := get().Author; a != "李雷 <li@example.com>" {
		t.Errorf("author after the second write = %q", a)
	}
	in.Author, in.Body = "", "Tuesdays, 11:00."
	if _, err := s.Add(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if m := get(); m.Author != "李雷 <li@example.com>" || !strings.Contains(m.Body, "11:00") {
		t.Errorf("a write without an author: author %q body %q", m.Author, m.Body)
	}
	// A file whose frontmatter cannot be edited in place (CRLF) is rewritten: the author stays.
	crlf := "---\r\nname: crlf\r\ndescription: d\r\ntype: user\r\nauthor: Ann <ann@example.com>\r\n---\r\nbody\r\n"
	if err := os.WriteFile(s.abs("crlf.md"), []byte(crlf), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(t.Context(), Input{Name: "crlf", Description: "d2", Type: TypeUser, Body: "new"}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(t.Context(), "crlf"); err != nil || m.Author != "Ann <ann@example.com>" || m.Description != "d2" {
		t.Errorf("rewritten file: %+v %v", m, err)
	}
	checkConsistency(t, s)
}
