package chatui

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
	"github.com/charmbracelet/x/ansi"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/internal/termtext"
)

// previewLines is how many lines of a tool's output the collapsed preview shows.
const previewLines = 4

// ToolLine is the one readable line a tool call is shown as: the tool's name and the input a
// person would name it by — `Read handler.go`, `Bash go test ./...`, `Grep TODO in src`.
// Paths under cwd are shown relative to it. The line is terminal-safe and cut to width.
func ToolLine(name string, input []byte, cwd string, width int) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in) // an undecodable input shows the name alone
	str := func(k string) string { s, _ := in[k].(string); return s }
	arg := ""
	switch {
	case str("command") != "":
		arg = commandLine(str("command"))
	case str("file_path") != "":
		arg = relTo(cwd, str("file_path"))
	case str("pattern") != "":
		arg = str("pattern")
		if p := str("path"); p != "" {
			arg += " in " + relTo(cwd, p)
		}
	case str("path") != "":
		arg = relTo(cwd, str("path"))
	case str("query") != "":
		arg = str("query")
	case str("name") != "":
		arg = str("name")
	case str("description") != "":
		arg = str("description")
	case str("prompt") != "":
		arg = str("prompt")
	}
	if todos, ok := in["todos"].([]any); ok && arg == "" {
		arg = fmt.Sprintf("%d items", len(todos))
	}
	arg = strings.Join(strings.Fields(termtext.Line(arg)), " ")
	line := sTool().Render(termtext.Line(name))
	if arg != "" {
		line += " " + arg
	}
	return ansi.Truncate(line, width, "…")
}

// commandLine is a shell command on one line: its first line, and how many follow (a script
// is not flattened into what would read as one command).
func commandLine(cmd string) string {
	lines := strings.Split(strings.TrimSpace(cmd), "\n")
	if len(lines) == 1 {
		return lines[0]
	}
	more := "+1 line"
	if len(lines) > 2 {
		more = fmt.Sprintf("+%d lines", len(lines)-1)
	}
	return strings.TrimSpace(lines[0]) + " … (" + more + ")"
}

func relTo(cwd, p string) string {
	if cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// Preview is a tool output collapsed to its first few lines, each prefixed and cut to width,
// and a "… +N lines" line for the rest. An empty output says so.
func Preview(out string, isErr bool, width int) string {
	out = strings.TrimRight(termtext.Clean(out), "\n")
	st := sDim()
	if isErr {
		st = sErr()
	}
	if strings.TrimSpace(out) == "" {
		return sDim().Render("  ⎿  (no output)")
	}
	lines := strings.Split(out, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == previewLines {
			fmt.Fprintf(&b, "\n%s", sDim().Render(fmt.Sprintf("     … +%d lines (ctrl+o to expand)", len(lines)-previewLines)))
			break
		}
		lead := "     "
		if i == 0 {
			lead = "  ⎿  "
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(sDim().Render(lead) + st.Render(ansi.Truncate(strings.ReplaceAll(l, "\t", "    "), width-len(lead), "…")))
	}
	return b.String()
}

// EditDiff is the coloured unified diff of an Edit or Write call, or "" for other tools (and
// for an input that does not decode). before is the file as it was before a Write (Edit
// carries both sides in its input); line is where an Edit's text starts in the file (1-based;
// 0 when unknown, and the hunks count from the edited text's first line).
func EditDiff(name string, input []byte, before string, line, width int) string {
	var in struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
	}
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	switch name {
	case "Edit":
		return RenderDiff(DiffAt(in.OldString, in.NewString, max(line, 1)), width)
	case "Write":
		return RenderDiff(Diff(before, in.Content), width)
	}
	return ""
}

// maxDiffLines caps how many diff lines are shown; the rest are counted.
const maxDiffLines = 40

// RenderDiff colours a unified diff's lines (Diff's output): added green, removed red,
// hunk headers dim; lines past maxDiffLines are counted, not shown.
func RenderDiff(lines []string, width int) string {
	var b strings.Builder
	for i, l := range lines {
		if i == maxDiffLines {
			fmt.Fprintf(&b, "\n%s", sDim().Render(fmt.Sprintf("     … +%d diff lines", len(lines)-maxDiffLines)))
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		l = ansi.Truncate(strings.ReplaceAll(termtext.Clean(l), "\t", "    "), width-5, "…")
		switch {
		case strings.HasPrefix(l, "+"):
			b.WriteString("     " + sAdd().Render(l))
		case strings.HasPrefix(l, "-"):
			b.WriteString("     " + sDel().Render(l))
		case strings.HasPrefix(l, "@@"):
			b.WriteString("     " + sDim().Render(l))
		default:
			b.WriteString("     " + l)
		}
	}
	return b.String()
}

// diffContext is how many unchanged lines a hunk keeps around a change.
const diffContext = 2

// Diff returns the unified diff of two texts by lines ("@@ -a,b +c,d @@" headers, then " ",
// "-" and "+" lines; Myers' algorithm, go-udiff).
func Diff(a, b string) []string { return DiffAt(a, b, 1) }

// DiffAt is Diff for two texts that start at line first of their files: the hunk headers
// count from there.
func DiffAt(a, b string, first int) []string {
	u, err := udiff.ToUnifiedDiff("", "", a, udiff.Lines(a, b), diffContext)
	if err != nil {
		return nil // edits computed from a always apply to it
	}
	var out []string
	for _, h := range u.Hunks {
		var body []string
		del, ins := 0, 0
		for _, l := range h.Lines {
			text := strings.TrimSuffix(l.Content, "\n")
			switch l.Kind {
			case udiff.Delete:
				del++
				body = append(body, "-"+text)
			case udiff.Insert:
				ins++
				body = append(body, "+"+text)
			default:
				del, ins = del+1, ins+1
				body = append(body, " "+text)
			}
		}
		from, to := h.FromLine+first-1, h.ToLine+first-1
		if del == 0 {
			from-- // an empty side names the line before, as diff -u does
		}
		if ins == 0 {
			to--
		}
		out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@", from, del, to, ins))
		out = append(out, body...)
	}
	return out
}

// editLine returns the 1-based line at which an Edit's new text starts in the edited file, or
// 0 when the file cannot be read or the text is not found once (the diff then counts from the
// edit's own first line).
func editLine(cwd string, input []byte) int {
	var in struct {
		Path      string `json:"file_path"`
		NewString string `json:"new_string"`
	}
	if json.Unmarshal(input, &in) != nil || in.Path == "" || in.NewString == "" {
		return 0
	}
	b, err := fsutil.ReadRegular(absIn(cwd, in.Path), 8<<20)
	if err != nil {
		return 0
	}
	i := strings.Index(string(b), in.NewString)
	if i < 0 || strings.Count(string(b), in.NewString) != 1 {
		return 0
	}
	return strings.Count(string(b[:i]), "\n") + 1
}

func absIn(cwd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(cwd, p)
}
