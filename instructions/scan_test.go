package instructions

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestStripComments(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", "a\nb\n", "a\nb\n"},
		{"one line", "a\n<!-- note -->\nb\n", "a\nb\n"},
		{"multi line", "a\n<!--\nnote\nmore -->\nb\n", "a\nb\n"},
		{"text after", "<!-- x --> kept\n", " kept\n"},
		{"indented: kept, as Claude Code keeps it", "   <!-- x -->\nb", "   <!-- x -->\nb"},
		{"in a list item: kept", "- item\n  <!-- note -->\n- next", "- item\n  <!-- note -->\n- next"},
		{"indented 4 stays", "    <!-- x -->\n", "    <!-- x -->\n"},
		{"inline stays", "text <!-- x --> more\n", "text <!-- x --> more\n"},
		{"unclosed stays", "a\n<!-- never\nclosed\n", "a\n<!-- never\nclosed\n"},
		{"in fence stays", "```\n<!-- code -->\n```\n", "```\n<!-- code -->\n```\n"},
		{"tilde fence", "~~~md\n<!-- c -->\n~~~\n<!-- gone -->\n", "~~~md\n<!-- c -->\n~~~\n"},
		{"two in a row", "<!-- a --><!-- b -->\nx\n", "x\n"},
		{"crlf-free no newline", "<!-- a -->", ""},
		{"chinese", "说明\n<!-- 给人看的注释 -->\n规则\n", "说明\n规则\n"},
	}
	for _, tt := range tests {
		if got := StripComments(tt.in); got != tt.want {
			t.Errorf("%s: StripComments(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestScanImports(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []importRef
	}{
		{"forms", "@a.md @./b.md @../c.md @~/d.md @/e/f.md\n", []importRef{{Path: "a.md", Line: 1}, {Path: "./b.md", Line: 1}, {Path: "../c.md", Line: 1}, {Path: "~/d.md", Line: 1}, {Path: "/e/f.md", Line: 1}}},
		{"punctuation", "See @a.md. And (@b.md), @c.md: @d.md; @e.md!\n", []importRef{{Path: "a.md", Line: 1}, {Path: "c.md", Line: 1}, {Path: "d.md", Line: 1}, {Path: "e.md", Line: 1}}},
		{"paren close", "list @x/y.md)\n", []importRef{{Path: "x/y.md", Line: 1}}},
		{"escaped space", `@my\ notes.md and more`, []importRef{{Path: "my notes.md", Line: 1}}},
		{"code span", "use `@a.md` and ``x @b.md`` but @c.md\n", []importRef{{Path: "c.md", Line: 1}}},
		{"unclosed span", "a ` b @c.md\n", []importRef{{Path: "c.md", Line: 1}}},
		{"fence", "```\n@a.md\n```\n@b.md\n", []importRef{{Path: "b.md", Line: 4}}},
		{"fence in a list item", "1. Step:\n\n    ```bash\n    cat @a.md\n    ```\n- @b.md\n", []importRef{{Path: "b.md", Line: 6}}},
		{"fence in a nested list", "- a\n    - b\n\n      ~~~\n      @a.md\n      ~~~\n@b.md\n", []importRef{{Path: "b.md", Line: 7}}},
		{"fence in a quote", "> ```\n> @a.md\n> ```\n> @b.md\n", []importRef{{Path: "b.md", Line: 4}}},
		{"tab-indented fence", "- x\n\t```\n\t@a.md\n\t```\n@b.md\n", []importRef{{Path: "b.md", Line: 5}}},
		{"fence opening a list item", "- ```\n  @a.md\n  ```\n2) ~~~\n   @b.md\n   ~~~\n- @c.md\n", []importRef{{Path: "c.md", Line: 7}}},
		{"not a fence", "-```x``` @a.md\n10 ``` @b.md\n", []importRef{{Path: "a.md", Line: 1}, {Path: "b.md", Line: 2}}},
		{"comment", "<!-- @a.md -->\n@b.md\n", []importRef{{Path: "b.md", Line: 2}}},
		{"email", "mail me@example.com\n", nil},
		{"npm and decorators", "@types/node @angular/core@17 @Component({}) @pytest.mark.slow @tools.action('x') @sizeOf(Self)\n", []importRef{{Path: "types/node", Line: 1}, {Path: "pytest.mark.slow", Line: 1}}},
		{"fragment", "@doc.md#part\n", []importRef{{Path: "doc.md", Line: 1}}},
		{"ellipsis", "wait @... ok\n", nil},
		{"glob", "rules in @.cursor/rules/**/*.md and @src/*.{ts,tsx}; not @types/* nor @user*\n", []importRef{{Path: ".cursor/rules/**/*.md", Line: 1, Glob: true}, {Path: "src/*.{ts,tsx}", Line: 1, Glob: true}}},
		{"cjk boundary", "详见@规范.md。然后\n", []importRef{{Path: "规范.md", Line: 1}}},
		{"line numbers", "a\n\nb @x.md\n", []importRef{{Path: "x.md", Line: 3}}},
	}
	for _, tt := range tests {
		got := scan(tt.in, 1).Imports
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestFileLike(t *testing.T) {
	tests := map[string]bool{
		"docs/style.md": true, "b.md": true, "./x": true, "../y": true, "~/z": true, "a/b.json": true,
		"types/node": false, "Component": false, "pytest.mark.slow": false, "tools.action": false,
		"/mocks": false, "langfuse/shared": false, "v1.2": false, "/tmp/registry.json": true, "notes.txt": true,
	}
	for p, want := range tests {
		if got := fileLike(p); got != want {
			t.Errorf("fileLike(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestReadToken: a token ends at unescaped white space (CJK included), a backtick or CJK
// punctuation; "\ " is a space inside it.
func TestReadToken(t *testing.T) {
	tests := []struct{ in, want, rest string }{
		{"a.md rest", "a.md", " rest"},
		{"a.md", "a.md", ""},
		{`my\ notes.md next`, "my notes.md", " next"},
		{`a\ b\ c.md`, "a b c.md", ""},
		{`x\ `, "x ", ""},
		{`a\\ b.md`, `a\ b.md`, ""},
		{`a\b.md`, `a\b.md`, ""},
		{"规范.md。后面", "规范.md", "。后面"},
		{"规范.md，后面", "规范.md", "，后面"},
		{"a.md\u3000b", "a.md", "\u3000b"},
		{"a.md`code`", "a.md", "`code`"},
		{"a.md\tb", "a.md", "\tb"},
		{"설명.md 다음", "설명.md", " 다음"},
		{"", "", ""},
	}
	for _, tt := range tests {
		l := "@" + tt.in
		got, next := readToken(l, 1)
		if got != tt.want || l[next:] != tt.rest {
			t.Errorf("readToken(%q) = %q, rest %q; want %q, rest %q", l, got, l[next:], tt.want, tt.rest)
		}
	}
}
