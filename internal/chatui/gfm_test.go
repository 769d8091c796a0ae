package chatui

import (
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// TestGFMLikeGoldmark renders tables and strike-through with our parser options and with
// goldmark's own extensions, and wants the same terminal text.
func TestGFMLikeGoldmark(t *testing.T) {
	theirs := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough)).Parser()
	for _, src := range []string{
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"a | b\n--- | ---\n1 | 2\n3",
		"| left | centre | right |\n|:---|:---:|---:|\n| x | **y** | `z` |\n| only one |",
		"| a | b |\n|---|---|\n| 1 | 2 | 3 | 4 |",
		"intro line\nsecond line\n| h1 | h2 |\n| -- | -- |\n| c | d |\n\nafter",
		"| a | b |\n|---|\n| 1 | 2 |",
		"| a |\n|---|\n| x \\| y |\n| [link](https://x.test) ~~old~~ |",
		"| a |\n| :-: |",
		"| a |\n| --x |",
		"| a |\n| ::- |",
		"not | a table\njust text",
		"- item\n\n  | a | b |\n  |---|---|\n  | 1 | 2 |",
		"> | q | r |\n> |---|---|\n> | 1 | 2 |",
		"|a|b|\n|-|-|\n||x|",
		"| code |\n|---|\n| `a \\| b` |",
		"| code |\n|---|\n| `a \\| b \\| c` \\| `d` |",
		"~~gone~~ and ~one~ and ~~~three~~~ and ~~unclosed",
		"a~~b~~c ~~ spaced ~~ **~~both~~**",
		"~~multi\nline~~",
		"`~~code~~` ~~*em*~~",
		"| 记忆 | 说明 |\n|---|---|\n| ~~旧~~ | 新 |",
	} {
		for _, width := range []int{20, 80} {
			want := markdownWith(theirs, src, width)
			if got := markdownWith(mdParser(), src, width); got != want {
				t.Errorf("Markdown(%q, %d):\n got %q\nwant %q", src, width, got, want)
			}
		}
	}
}
