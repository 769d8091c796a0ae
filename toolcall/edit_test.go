package toolcall

import (
	"errors"
	"strings"
	"testing"
)

func TestEditApply(t *testing.T) {
	tests := []struct {
		name      string
		edit      Edit
		text      string
		want      string
		count     int
		line      int
		err       error
		errSubstr string
	}{
		{name: "unique", edit: Edit{FilePath: "/f", OldString: "b", NewString: "B"}, text: "a\nb\nc\n", want: "a\nB\nc\n", count: 1, line: 2},
		{name: "all", edit: Edit{FilePath: "/f", OldString: "x", NewString: "yy", ReplaceAll: true}, text: "x\n中x\nx", want: "yy\n中yy\nyy", count: 3, line: 1},
		{name: "all of one", edit: Edit{FilePath: "/f", OldString: "中", NewString: "文", ReplaceAll: true}, text: "a\n\n中", want: "a\n\n文", count: 1, line: 3},
		{name: "delete", edit: Edit{FilePath: "/f", OldString: "b\n", NewString: ""}, text: "a\nb\n", want: "a\n", count: 1, line: 2},
		{name: "empty old", edit: Edit{FilePath: "/f", OldString: "", NewString: "x"}, text: "a", err: ErrEmptyOld, errSubstr: "use Write"},
		{name: "same", edit: Edit{FilePath: "/f", OldString: "a", NewString: "a"}, text: "a", err: ErrNoChange, errSubstr: "nothing to change"},
		{name: "not found", edit: Edit{FilePath: "/f", OldString: "z", NewString: "y"}, text: "a", err: ErrNotFound, errSubstr: "not found in /f"},
		{name: "not unique", edit: Edit{FilePath: "/f", OldString: "a", NewString: "b"}, text: "a a", err: ErrNotUnique, errSubstr: "occurs 2 times in /f"},
	}
	for _, tt := range tests {
		got, err := tt.edit.Apply(tt.text)
		if tt.err != nil {
			if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.errSubstr) {
				t.Errorf("%s: err = %v, want %v with %q", tt.name, err, tt.err, tt.errSubstr)
			}
			continue
		}
		if err != nil || got.Text != tt.want || got.Count != tt.count || got.Line != tt.line {
			t.Errorf("%s: Apply = %+v, %v; want %q, %d at line %d", tt.name, got, err, tt.want, tt.count, tt.line)
		}
	}
	if s := (Applied{Count: 1, Line: 4}).Summary("/f"); s != "Edited /f at line 4." {
		t.Errorf("Summary = %q", s)
	}
	if s := (Applied{Count: 2, Line: 4}).Summary("/f"); s != "Edited /f: replaced 2 occurrences." {
		t.Errorf("Summary = %q", s)
	}
}
