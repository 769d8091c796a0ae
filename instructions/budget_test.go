package instructions

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBudgetCutsLeastSpecificFirst(t *testing.T) {
	line := "a line of instruction text that costs some tokens\n"
	f := newFixture(t, map[string]string{
		"managed/CLAUDE.md":      strings.Repeat(line, 10),
		"home/.strata/CLAUDE.md": strings.Repeat(line, 40),
		"repo/CLAUDE.md":         strings.Repeat(line, 40),
		"repo/svc/CLAUDE.md":     strings.Repeat(line, 40),
	})
	per := (len(line)*40 + 3) / 4
	f.opts.BudgetTokens = 10*len(line)/4 + 2*per + 60
	s := f.load("repo/svc")
	srcs := s.Sources()
	byPath := map[string]Source{}
	for _, src := range srcs {
		byPath[strings.TrimPrefix(src.Path, f.dir+"/")] = src
	}
	user, root, svc, managed := byPath["home/.strata/CLAUDE.md"], byPath["repo/CLAUDE.md"], byPath["repo/svc/CLAUDE.md"], byPath["managed/CLAUDE.md"]
	if !user.Truncated || !strings.Contains(user.Text, "[strata:") {
		t.Errorf("user file (least specific) not cut: %+v", user)
	}
	if svc.Truncated || managed.Truncated {
		t.Errorf("most specific or managed text cut: svc %v managed %v", svc.Truncated, managed.Truncated)
	}
	total := 0
	for _, src := range srcs {
		total += src.Tokens
	}
	if total > f.opts.BudgetTokens {
		t.Errorf("total %d over budget %d", total, f.opts.BudgetTokens)
	}
	if !hasDiag(s.Diagnostics(), SeverityWarning, "home/.strata/CLAUDE.md", "instructionBudgetTokens") {
		t.Errorf("no cut diagnostic: %q", f.diags(s.Diagnostics()))
	}
	_ = root
	if s.Tokens() != total {
		t.Errorf("Tokens() %d, sum %d", s.Tokens(), total)
	}
}

func TestPrefixTokens(t *testing.T) {
	if got := prefixTokens("aaaa\nbbbb\ncccc\n", 2); got != "aaaa\n" {
		t.Errorf("got %q", got)
	}
	if got := prefixTokens("aaaaaaaaaaaaaaaaaaaa", 1); got != "" {
		t.Errorf("got %q", got)
	}
}

func TestEnforcedAndLint(t *testing.T) {
	f := newFixture(t, map[string]string{
		"managed/CLAUDE.md":          "Policy.\n" + EnforceStart + "\n- commit signing: required\n- Never push to main directly.\n" + EnforceEnd + "\n",
		"repo/CLAUDE.md":             "# Repo\n- Never push to main directly.\n- commit signing: optional\n- style: gofmt\n",
		"repo/docs/CLAUDE.md":        "docs\n",
		"repo/.claude/rules/late.md": "---\npaths: \"web/**\"\n---\n@nope.md\n",
	})
	s := f.load("repo")
	srcs := s.Sources()
	last := srcs[len(srcs)-1]
	if !last.Enforced || last.Text != "- commit signing: required\n- Never push to main directly.\n" {
		t.Errorf("enforced repeat: %+v", last)
	}
	if !strings.Contains(s.Render(), `enforced="true"`) {
		t.Error("render lacks the enforced piece")
	}
	s.LoadAll(context.Background(), 0)
	ds := s.Lint(context.Background())
	if !hasDiag(ds, SeverityWarning, "repo/CLAUDE.md", "repeats the enforced line") {
		t.Errorf("no duplicate warning: %q", f.diags(ds))
	}
	if !hasDiag(ds, SeverityWarning, "repo/CLAUDE.md", `sets "commit signing" to "optional"`) {
		t.Errorf("no conflict warning: %q", f.diags(ds))
	}
	if hasDiag(ds, SeverityWarning, "repo/CLAUDE.md", `"style"`) {
		t.Errorf("a key the policy does not set was reported")
	}
	// LoadAll checked the conditional rule and the nested file.
	if !hasDiag(ds, SeverityError, "rules/late.md", "@nope.md: no such file") {
		t.Errorf("conditional rule not checked: %q", f.diags(ds))
	}
	got := f.rel(s.Sources())
	if !cmp.Equal(true, strings.Contains(strings.Join(got, " "), "nested:nested_traversal:repo/docs/CLAUDE.md")) {
		t.Errorf("nested file not loaded by LoadAll: %v", got)
	}
}

func TestEnforceUnclosed(t *testing.T) {
	f := newFixture(t, map[string]string{"managed/CLAUDE.md": EnforceStart + "\n- a: b\n"})
	s := f.load("repo")
	if !hasDiag(s.Diagnostics(), SeverityError, "managed/CLAUDE.md", "never closed") {
		t.Errorf("%q", f.diags(s.Diagnostics()))
	}
}
