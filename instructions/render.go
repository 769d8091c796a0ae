package instructions

import (
	"fmt"
	"strings"

	"github.com/strata-mem/strata/tokens"
)

// view returns every piece in order with the budget applied, and the diagnostics of the cuts.
// The set's own pieces are never changed, so a later touch can be budgeted afresh.
func (s *Set) view() ([]Source, []Diagnostic) {
	all := make([]Source, 0, len(s.start)+len(s.automem)+len(s.touched)+len(s.enforced))
	all = append(all, s.start...)
	all = append(all, s.automem...)
	all = append(all, s.touched...)
	all = append(all, s.enforcedSources()...)
	budget := s.loadOpts.BudgetTokens
	if budget <= 0 {
		return all, nil
	}
	total := 0
	for _, src := range all {
		total += src.Tokens
	}
	if total <= budget {
		return all, nil
	}
	// Least specific first: load order, with managed text (policy) last and enforced blocks never.
	var order, managed []int
	for i, src := range all {
		switch {
		case src.Enforced:
		case src.Layer == LayerManaged:
			managed = append(managed, i)
		default:
			order = append(order, i)
		}
	}
	order = append(order, managed...)
	var diags []Diagnostic
	excess := total - budget
	for _, i := range order {
		if excess <= 0 {
			break
		}
		src := &all[i]
		if src.Tokens == 0 {
			continue
		}
		orig := src.Tokens
		keep := orig - excess - markerTokens
		var text string
		if keep <= 0 {
			text = fmt.Sprintf("[strata: all %d tokens of this file were cut to fit instructionBudgetTokens=%d; less specific text is cut first]\n", orig, budget)
		} else {
			head := prefixTokens(src.Text, keep)
			text = head + fmt.Sprintf("[strata: cut here; %d of %d tokens of this file removed to fit instructionBudgetTokens=%d; less specific text is cut first]\n",
				orig-tokens.Estimate(head), orig, budget)
		}
		n := tokens.Estimate(text)
		if n >= orig {
			continue // the marker would cost more than the text
		}
		src.Text, src.Tokens, src.Bytes, src.Truncated = text, n, len(text), true
		excess -= orig - n
		diags = append(diags, Diagnostic{Path: src.Path, Severity: SeverityWarning,
			Message: fmt.Sprintf("cut from %d to %d tokens: the instructions total %d tokens, over instructionBudgetTokens=%d", orig, n, total, budget)})
	}
	return all, diags
}

// markerTokens is about what a cut marker costs.
const markerTokens = 40

// prefixTokens returns the longest run of whole lines of text costing at most n tokens.
func prefixTokens(text string, n int) string {
	used, end := 0, 0
	for end < len(text) {
		i := strings.IndexByte(text[end:], '\n')
		next := len(text)
		if i >= 0 {
			next = end + i + 1
		}
		t := tokens.Estimate(text[end:next])
		if used+t > n {
			break
		}
		used += t
		end = next
	}
	out := text[:end]
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	return out
}

// Render returns the text the model sees: every piece (budget applied) in order, each wrapped
// in an <instructions> element whose attributes give its origin.
func (s *Set) Render() string { return RenderSources(s.Sources()) }

// RenderSources renders pieces the way Render does, e.g. the ones a Touch returned.
func RenderSources(srcs []Source) string {
	var b strings.Builder
	for i, src := range srcs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(Header(src))
		b.WriteByte('\n')
		text := strings.TrimRight(src.Text, "\n")
		if text != "" {
			b.WriteString(text)
			b.WriteByte('\n')
		}
		b.WriteString("</instructions>\n")
	}
	return b.String()
}

// Header returns the opening line Render puts before a piece: its path, layer and reason, and
// where they apply the importing file, the touched path, truncation and enforcement.
func Header(src Source) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<instructions path=%q layer=%q reason=%q", src.Path, src.Layer, src.Reason)
	if src.Store != "" {
		fmt.Fprintf(&b, " store=%q", src.Store)
	}
	if src.ImportedBy != "" {
		fmt.Fprintf(&b, " imported_by=%q", src.ImportedBy)
	}
	if src.Trigger != "" {
		fmt.Fprintf(&b, " touched=%q", src.Trigger)
	}
	if src.Truncated {
		b.WriteString(` truncated="true"`)
	}
	if src.Enforced {
		b.WriteString(` enforced="true"`)
	}
	b.WriteByte('>')
	return b.String()
}
