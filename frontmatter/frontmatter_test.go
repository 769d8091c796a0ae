package frontmatter

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		fields   map[string]any
		body     string
		bodyLine int
		errLine  int
	}{
		{"none", "# Title\ntext\n", nil, "# Title\ntext\n", 1, 0},
		{"simple", "---\nname: a\ntype: user\n---\nbody\n", map[string]any{"name": "a", "type": "user"}, "body\n", 5, 0},
		{"crlf+bom", "\ufeff---\r\nname: a\r\n---\r\nbody\r\n", map[string]any{"name": "a"}, "body\n", 4, 0},
		{"empty", "---\n---\nbody", map[string]any{}, "body", 3, 0},
		{"list", "---\npaths:\n  - a/**\n  - b\n---\n", map[string]any{"paths": []any{"a/**", "b"}}, "", 6, 0},
		{"bad yaml", "---\nname: a\n\tbad: x\n---\nbody\n", nil, "body\n", 5, 3},
		{"bad flow", "---\npaths: [unclosed\n---\nbody\n", nil, "body\n", 4, 2},
		{"unclosed", "---\nname: a\nbody\n", nil, "---\nname: a\nbody\n", 1, 1},
		{"not mapping", "---\n- a\n- b\n---\nx", nil, "x", 5, 2},
		{"dots close", "---\nname: a\n...\nx", map[string]any{"name": "a"}, "x", 4, 0},
		{"no newline at end", "---\nname: a\n---", map[string]any{"name": "a"}, "", 4, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse([]byte(tt.in))
			if tt.errLine == 0 && err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if tt.errLine != 0 {
				var fe *Error
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if fe.Line != tt.errLine {
					t.Errorf("error line = %d, want %d (%v)", fe.Line, tt.errLine, fe)
				}
			}
			if diff := cmp.Diff(tt.fields, doc.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if doc.Body != tt.body {
				t.Errorf("body = %q, want %q", doc.Body, tt.body)
			}
			if doc.BodyLine != tt.bodyLine {
				t.Errorf("bodyLine = %d, want %d", doc.BodyLine, tt.bodyLine)
			}
		})
	}
}

func TestString(t *testing.T) {
	doc, _ := Parse([]byte("---\nname: 记忆\nn: 3\nl: [a]\n---\n"))
	if doc.String("name") != "记忆" || doc.String("n") != "3" || doc.String("l") != "" || doc.String("x") != "" {
		t.Fatalf("String: %q %q %q", doc.String("name"), doc.String("n"), doc.String("l"))
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nname: a\n---\nbody"))
	f.Add([]byte("---\n: : :\n---\n"))
	f.Add([]byte("\ufeff---\r\n- x\r\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse(data)
		if err != nil {
			var fe *Error
			if !errors.As(err, &fe) || fe.Line < 1 {
				t.Fatalf("bad error %v", err)
			}
		}
		norm := string(Normalize(data))
		if !strings.HasSuffix(norm, doc.Body) {
			t.Fatalf("body %q is not a suffix of the input", doc.Body)
		}
		if doc.BodyLine < 1 {
			t.Fatalf("bodyLine %d", doc.BodyLine)
		}
	})
}
