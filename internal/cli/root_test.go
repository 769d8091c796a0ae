package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
)

func testApp(t *testing.T) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	return &App{In: strings.NewReader(""), Out: &out, Err: &errb,
		Env:   config.Env{Home: filepath.Join(dir, "home"), ManagedDir: filepath.Join(dir, "managed"), UserHome: dir},
		Getwd: func() (string, error) { return dir, nil },
		Now:   func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
	}, &out, &errb
}

// TestRegisteredNames: the name each top-level command is registered under is the name of the
// command its factory builds, and no two top-level commands share a name.
func TestRegisteredNames(t *testing.T) {
	app, _, _ := testApp(t)
	seen := map[string]bool{}
	for _, c := range topLevelCommands() {
		if got := c.build(app).Name(); got != c.name {
			t.Errorf("registered as %q, builds %q", c.name, got)
		}
		if seen[c.name] {
			t.Errorf("%q registered twice", c.name)
		}
		seen[c.name] = true
	}
	for _, g := range groups() {
		if seen[g.use] {
			t.Errorf("group %q is also a registered command", g.use)
		}
		seen[g.use] = true
	}
	var names []string
	for _, c := range NewRoot(app).Commands() {
		names = append(names, c.Name())
	}
	if !slices.Equal(slices.Sorted(func(yield func(string) bool) {
		for n := range seen {
			if !yield(n) {
				return
			}
		}
	}), names) {
		t.Errorf("NewRoot's commands %q are not the registered ones %v", names, seen)
	}
}

// TestReachable: a run builds no command for --version, only the named top-level command (with
// its subcommands) when args name one first, and the whole tree otherwise.
func TestReachable(t *testing.T) {
	app, _, _ := testApp(t)
	every := topNames(NewRoot(app))
	if len(every) < 5 {
		t.Fatalf("NewRoot built %q", every)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--version"}, nil},
		{[]string{"-v"}, nil},
		{[]string{"memory", "list"}, []string{"memory"}},
		{[]string{"version"}, []string{"version"}},
		{[]string{"bench", "startup", "--runs", "3"}, []string{"bench"}},
		{nil, []string{"chat"}},
		{[]string{"--help"}, every},
		{[]string{"--version", "memory"}, every},
		{[]string{"help", "memory"}, every},
		{[]string{"completion", "bash"}, every},
		{[]string{"__complete", "memory", ""}, every},
		{[]string{"memry", "list"}, every},
	} {
		root := newRoot(app, reachable(defaultCommand(c.args)))
		if got := topNames(root); !slices.Equal(got, c.want) {
			t.Errorf("reachable(%q) built %q, want %q", c.args, got, c.want)
		}
	}
	mem := newRoot(app, reachable([]string{"memory", "list"})).Commands()[0]
	full, _, _ := NewRoot(app).Find([]string{"memory"})
	if len(mem.Commands()) != len(full.Commands()) {
		t.Errorf("memory built with %d subcommands, want all %d", len(mem.Commands()), len(full.Commands()))
	}
}

func topNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	return names
}

// TestLazyRoot: every command line that prints help, usage, a usage error, the version or a
// completion script or candidates gives the same exit code, stdout and stderr, byte for byte,
// when Run builds only the commands it can reach as when it builds the whole tree.
func TestLazyRoot(t *testing.T) {
	lines := [][]string{
		{}, {"--help"}, {"-h"}, {"help"}, {"--version"}, {"-v"}, {"version"}, {"version", "--json"},
		{"--version", "memory"}, {"memory", "--version"}, {"-v", "version"}, {"--no-such-flag"},
		{"nosuch"}, {"memry"}, {"mem"}, {"sesions", "list"}, {"memory", "nosuch"}, {"help", "nosuch"},
		{"completion"}, {"completion", "--help"}, {"completion", "nosuch"},
		{"__complete", ""}, {"__complete", "m"}, {"__complete", "memory", ""}, {"__complete", "memory", "list", "--"},
		{"__complete", "help", ""}, {"__completeNoDesc", "s"}, {"__complete", "completion", ""},
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		lines = append(lines, []string{"completion", sh}, []string{"completion", sh, "--help"}, []string{"completion", sh, "--no-descriptions"})
	}
	app, _, _ := testApp(t)
	var walk func(path []string, c *cobra.Command)
	walk = func(path []string, c *cobra.Command) {
		for _, sub := range c.Commands() {
			p := append(slices.Clip(path), sub.Name())
			lines = append(lines, append(slices.Clip(p), "--help"), append(slices.Clip(p), "-h"),
				append([]string{"help"}, p...), append(slices.Clip(p), "--no-such-flag"))
			if sub.HasSubCommands() {
				lines = append(lines, p, append(slices.Clip(p), "nosuch"))
			}
			walk(p, sub)
		}
	}
	walk(nil, NewRoot(app))
	if len(lines) < 150 {
		t.Fatalf("only %d command lines: the tree was not walked", len(lines))
	}
	for _, args := range lines {
		lazyApp, lazyOut, lazyErr := testApp(t)
		fullApp, fullOut, fullErr := testApp(t)
		lazyApp.Env, lazyApp.Getwd = fullApp.Env, fullApp.Getwd // the same directories: paths may be printed
		lazy := Run(lazyApp, slices.Clone(args))
		full := execute(fullApp, NewRoot(fullApp), slices.Clone(args))
		if lazy != full || lazyOut.String() != fullOut.String() || lazyErr.String() != fullErr.String() {
			t.Errorf("strata %q: lazy tree: exit %d\n%s%s\nwhole tree: exit %d\n%s%s", args, lazy, lazyOut, lazyErr, full, fullOut, fullErr)
		}
		if lazyOut.Len()+lazyErr.Len() == 0 {
			t.Errorf("strata %q printed nothing: the comparison shows nothing", args)
		}
	}
}

// TestRunFSeam: the flags of run and chat reach their run functions as parsed, without an
// agent; a bad command line never reaches them.
func TestRunFSeam(t *testing.T) {
	app, _, _ := testApp(t)
	var got runOptions
	var prompt string
	calls := 0
	run := newRunCmd(app, func(_ context.Context, _ *App, o runOptions, p string) error {
		got, prompt, calls = o, p, calls+1
		return nil
	})
	run.SetArgs([]string{"--model", "m1", "--allow", "Bash(go test:*)", "--allow", "Edit", "--max-turns", "7", "--continue", "--no-background", "fix it"})
	if err := run.Execute(); err != nil {
		t.Fatal(err)
	}
	want := runOptions{format: "text", model: "m1", allow: []string{"Bash(go test:*)", "Edit"}, maxTurns: 7, cont: true, noBackground: true}
	if calls != 1 || prompt != "fix it" || !reflect.DeepEqual(got, want) {
		t.Errorf("run got %+v, %q (%d calls); want %+v", got, prompt, calls, want)
	}
	run.SetArgs([]string{"a", "b"})
	if err := run.Execute(); err == nil || calls != 1 {
		t.Errorf("two prompts: err %v, %d calls", err, calls)
	}
	chat := newChatCmd(app, func(_ context.Context, _ *App, o runOptions) error { got, calls = o, calls+1; return nil })
	chat.SetArgs([]string{"--resume", "01a2", "--permission-mode", "accept-edits"})
	if err := chat.Execute(); err != nil || calls != 2 || got.resume != "01a2" || got.mode != "accept-edits" {
		t.Errorf("chat got %+v (%d calls, err %v)", got, calls, err)
	}
}
