package chatui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
)

func TestMarkdownBlocks(t *testing.T) {
	src := "# Title\n\n## Layout\n\nThe **acme-api** repo, *really*, has `cmd/` and [docs](https://x.test/d).\n\n" +
		"- one\n- two\n  continued\n1. first\n2. second\n\n> quoted\n> text\n\n---\n\n~~old~~ new"
	got := plain(Markdown(src, 80))
	want := strings.Join([]string{
		"Title",
		"",
		"Layout",
		"",
		"The acme-api repo, really, has cmd/ and docs (https://x.test/d).",
		"",
		"• one",
		"• two continued",
		"1. first",
		"2. second",
		"",
		"│ quoted text",
		"",
		"────────────────────────────────────────",
		"",
		"old new",
	}, "\n")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Markdown (-want +got):\n%s", d)
	}
}

func TestMarkdownStyles(t *testing.T) {
	for _, tt := range []struct{ src, styled, sgr string }{
		{"**bold**", "bold", "1"},
		{"*it*", "it", "3"},
		{"`code`", "code", "36"},
		{"## Head", "Head", "1;35"},
		{"~~gone~~", "g", "9"}, // lip gloss strikes each character
	} {
		got := Markdown(tt.src, 40)
		if !strings.Contains(got, "\x1b["+tt.sgr+"m"+tt.styled) {
			t.Errorf("Markdown(%q) = %q, want %q styled with SGR %s", tt.src, got, tt.styled, tt.sgr)
		}
	}
}

func TestMarkdownCodeBlockHighlighted(t *testing.T) {
	got := Markdown("```go\nfunc main() { // start\n\tx := \"s\" + 42\n}\n```", 60)
	for _, want := range []string{
		"\x1b[35mfunc",       // keyword
		"\x1b[34mmain",       // function name
		"\x1b[3;90m// start", // comment
		"\x1b[32m\"s\"",      // string
		"\x1b[33m42",         // number
	} {
		if !strings.Contains(got, want) {
			t.Errorf("code block lacks %q:\n%q", want, got)
		}
	}
	if p := plain(got); !strings.Contains(p, "      x := \"s\" + 42") || strings.Contains(p, "```") {
		t.Errorf("code block text:\n%s", p)
	}
	// An unknown language is shown uncoloured.
	if got := Markdown("```brainfuck\n+++\n```", 40); strings.Contains(got, "\x1b[3") && strings.Contains(plain(got), "+++") && strings.Contains(got, "\x1b[35m") {
		t.Errorf("unknown language coloured: %q", got)
	}
}

func TestMarkdownTableCJK(t *testing.T) {
	got := plain(Markdown("| name | 说明 |\n|---|---|\n| 记忆 | stays |\n| x | 中文字 |\n| 한국 | 말 |", 60))
	lines := strings.Split(got, "\n")
	if len(lines) != 5 {
		t.Fatalf("table:\n%s", got)
	}
	// Every row puts its separator at the same display column, CJK and Hangul counting two.
	col := -1
	for _, l := range []string{lines[0], lines[2], lines[3], lines[4]} {
		i := strings.Index(l, "│")
		c := ansi.StringWidth(l[:i])
		if col >= 0 && c != col {
			t.Errorf("column separator at %d, want %d:\n%s", c, col, got)
		}
		col = c
	}
	if col != 5 { // "name" and "记忆" are 4 columns, plus the space before the bar
		t.Errorf("separator at column %d, want 5:\n%s", col, got)
	}
}

func TestMarkdownWrapsCJKByWidth(t *testing.T) {
	got := plain(Markdown(strings.Repeat("记忆层 ", 20), 30))
	for _, l := range strings.Split(got, "\n") {
		if w := ansi.StringWidth(l); w > 30 {
			t.Errorf("line %q is %d columns, want at most 30", l, w)
		}
	}
}

func TestMarkdownRemovesModelEscapes(t *testing.T) {
	got := Markdown("hi \x1b]0;evil title\x07there \x1b[31mred", 40)
	if strings.Contains(got, "\x1b]") || strings.Contains(got, "\x1b[31m") {
		t.Errorf("the model's escapes reached the terminal: %q", got)
	}
}

func TestSplitStream(t *testing.T) {
	for _, tt := range []struct{ in, done string }{
		{"para one\n\npara tw", "para one\n\n"},
		{"no blank line yet\nmore", ""},
		{"```go\ncode\n\nmore code\n", ""}, // a blank line inside a fence does not close a block
		{"```go\ncode\n```\nafter", "```go\ncode\n```\n"},
		{"a\n\n```\nx\n```\n\nb", "a\n\n```\nx\n```\n\n"},
		{"partial line without newline\n\n", "partial line without newline\n\n"},
	} {
		done, open := SplitStream(tt.in)
		if done != tt.done || done+open != tt.in {
			t.Errorf("SplitStream(%q) = %q, %q; want done %q", tt.in, done, open, tt.done)
		}
	}
}

func FuzzSplitStream(f *testing.F) {
	f.Add("a\n\n```go\nx\n\n```\nb\n")
	f.Add("~~~\n```\n~~~\n\n")
	f.Fuzz(func(t *testing.T, s string) {
		done, open := SplitStream(s)
		if done+open != s {
			t.Fatalf("SplitStream(%q) lost text: %q + %q", s, done, open)
		}
		// Rendering never panics and never lets an escape of the input through.
		out := Markdown(s, 40)
		if strings.Contains(ansi.Strip(out), "\x1b") {
			t.Fatalf("escape left in %q", out)
		}
	})
}
