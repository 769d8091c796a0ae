// Package cli implements the strata command line: one file per command, each a constructor
// newXCmd(app) that parses flags and a function that does the work, so both can be tested apart.
package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/strata-mem/strata/config"
)

// Version is strata's version; release builds set it with -ldflags "-X .../internal/cli.Version=v1.2.3".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// App is what every command gets: its streams, the environment and the clock. Tests build one
// with fake streams.
type App struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	Env config.Env
	// Getwd returns the working directory (commands' --cwd overrides it).
	Getwd func() (string, error)
	Now   func() time.Time
}

// Exit codes.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// ExitError ends a command with Code after the command has already said what went wrong (or
// with Err printed as "strata: <err>" when Err is set).
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("exit %d", e.Code)
}

func (e *ExitError) Unwrap() error { return e.Err }

// usageError marks bad command-line usage: exit code 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usage error (exit 2).
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// commandFactory builds a top-level command. Each command file registers its own in init, so
// adding a command never touches this file.
type commandFactory func(app *App) *cobra.Command

var (
	registry []commandFactory
	groups   = map[string][]commandFactory{}
)

// register adds a top-level command.
func register(f commandFactory) { registry = append(registry, f) }

// registerIn adds a subcommand to one of the groups defined in groupDefs ("bench", "memory",
// "sessions").
func registerIn(group string, f commandFactory) { groups[group] = append(groups[group], f) }

// registerBench adds a "strata bench" subcommand.
func registerBench(f commandFactory) { registerIn("bench", f) }

// groupDefs are the commands that only group subcommands registered from other files.
var groupDefs = []struct{ use, short, long string }{
	{"bench", "Run strata's benchmarks and print their figures",
		"Benchmarks build their own synthetic data in a temporary directory (or read an eval set you name) and print figures; they never change your files."},
	{"memory", "See and manage the auto-memory of this project",
		"The auto-memory is a directory of markdown topic files with a MEMORY.md index, one per project\n(all worktrees of a repository share it). These commands list, show, add, forget, search and check it."},
	{"sessions", "List, show, search, export and archive session transcripts",
		"Transcripts are append-only JSONL files under $STRATA_HOME/projects/<project>/, one per session,\nin Claude Code's format."},
}

// NewRoot builds the command tree for app.
func NewRoot(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "strata",
		Short: "A layered memory engine for LLM agents",
		Long: `strata gives an LLM agent a memory: the instruction hierarchy (CLAUDE.md, AGENTS.md, rules),
an auto-memory store with recall, session transcripts that resume exactly, and compaction that
never loses the task. It reads and writes the same files as Claude Code.

Environment:
  STRATA_HOME         user directory (default ~/.strata; point it at ~/.claude to share Claude Code's)
  STRATA_MANAGED_DIR  managed policy directory (default /etc/strata)`,
		Version:       version(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(app.In)
	root.SetOut(app.Out)
	root.SetErr(app.Err)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w\nRun '%s --help' for usage.", err, c.CommandPath())}
	})
	for _, f := range registry {
		root.AddCommand(f(app))
	}
	for _, g := range groupDefs {
		c := &cobra.Command{Use: g.use, Short: g.short, Long: g.long, RunE: groupRunE}
		for _, f := range groups[g.use] {
			c.AddCommand(f(app))
		}
		root.AddCommand(c)
	}
	return root
}

// groupRunE is the RunE of a command that only groups subcommands: with no subcommand it prints
// help; with an unknown one it is a usage error.
func groupRunE(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("unknown command %q for %q\nRun '%s --help' for usage.", args[0], c.CommandPath(), c.CommandPath())
	}
	return c.Help()
}

// noArgs, exactArgs, rangeArgs: cobra's validators, but failing with a usage error (exit 2).
func noArgs(c *cobra.Command, args []string) error { return wrapUsage(cobra.NoArgs(c, args)) }
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error { return wrapUsage(cobra.ExactArgs(n)(c, args)) }
}
func rangeArgs(min, max int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		return wrapUsage(cobra.RangeArgs(min, max)(c, args))
	}
}

func wrapUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// Main runs strata with args and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	app := &App{In: stdin, Out: stdout, Err: stderr, Env: config.FromEnv(), Getwd: os.Getwd, Now: time.Now}
	return Run(app, args)
}

// Run runs the command line args against app and returns the exit code.
func Run(app *App, args []string) int {
	root := NewRoot(app)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintf(app.Err, "strata: %v\n", ee.Err)
		}
		return ee.Code
	}
	fmt.Fprintf(app.Err, "strata: %v\n", err)
	var ue usageError
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") ||
		strings.HasPrefix(err.Error(), "unknown flag") || strings.HasPrefix(err.Error(), "unknown shorthand flag") {
		return ExitUsage
	}
	return ExitFailure
}

// writeJSON prints v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// workDir returns the --cwd flag's value made absolute, or the process working directory.
func (app *App) workDir(flag string) (string, error) {
	if flag == "" {
		return app.Getwd()
	}
	if st, err := os.Stat(flag); err != nil {
		return "", fmt.Errorf("--cwd %s: %w", flag, err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("--cwd %s: not a directory", flag)
	}
	return absPath(flag)
}
