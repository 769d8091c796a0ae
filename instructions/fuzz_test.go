package instructions

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/strata-mem/strata/frontmatter"
)

// FuzzScan fuzzes the comment stripper and the import scanner together.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		"", "@a.md\n", "<!-- x -->\n@b.md", "```\n@c.md\n```\n@d.md", "`@e.md` @f.md.", "<!--\n@g.md\n",
		"详见@规范.md。", `@a\ b.md`, "~~~\n<!-- -->\n~~~", "   <!-- a --> <!-- b --> c\n", "@@@x@@@", "````\n```\n````\n@h",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		sc := scan(in, 1)
		if len(sc.Text) > len(in) {
			t.Fatalf("output longer than input: %q -> %q", in, sc.Text)
		}
		if utf8.ValidString(in) && !utf8.ValidString(sc.Text) {
			t.Fatalf("valid input, invalid output: %q", sc.Text)
		}
		lines := strings.Count(in, "\n") + 1
		for _, r := range sc.Imports {
			if r.Path == "" || r.Line < 1 || r.Line > lines {
				t.Fatalf("bad import %+v in %q", r, in)
			}
			if strings.ContainsAny(r.Path, "\t\n`@") {
				t.Fatalf("import path %q has a character a path token cannot", r.Path)
			}
			_ = fileLike(r.Path)
		}
		if !strings.Contains(in, "<!--") && sc.Text != in {
			t.Fatalf("text without comments changed: %q -> %q", in, sc.Text)
		}
	})
}

// FuzzRulePaths fuzzes frontmatter parsing and the paths field of rules.
func FuzzRulePaths(f *testing.F) {
	for _, s := range []string{
		"---\npaths: \"src/**/*.ts\"\n---\nx", "---\npaths:\n  - a/**\n  - \"{b,c}/*.go\"\n---\n", "---\npaths: [unclosed\n---\n",
		"---\npaths: 3\n---\n", "---\npaths: \"a,{b,c},d\"\n---\n", "---\npaths: \"src/[\"\n---\n", "\ufeff---\r\npaths: x\r\n---\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		doc, _ := frontmatter.Parse([]byte(in))
		globs, _, _ := rulePaths(doc.Fields)
		for _, g := range globs {
			if !doublestar.ValidatePattern(g.glob) {
				t.Fatalf("invalid glob %q kept", g.glob)
			}
			r := &rule{base: "/b", globs: ignoreList{g}}
			r.matches("/b/src/x.go", func() bool { return false })
		}
		_ = keyLine(doc.Raw, "paths")
	})
}
