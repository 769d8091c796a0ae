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

// commandFactory builds a command for app.
type commandFactory func(app *App) *cobra.Command

// topLevel is a top-level command: its name, known before it is built, and its factory.
type topLevel struct {
	name  string
	build commandFactory
}

// topLevelCommands are the top-level commands, each under the first word of the Use of the
// command it builds (TestRegisteredNames checks that they agree). Run builds a command only
// when it can be reached (see reachable).
func topLevelCommands() []topLevel {
	return []topLevel{
		{"chat", func(app *App) *cobra.Command { return newChatCmd(app, nil) }},
		{"context", newContextCmd},
		{"doctor", newDoctorCmd},
		{"hook", newHookCmd},
		{"lint", newLintCmd},
		{"mcp", newMCPCmd},
		{"run", func(app *App) *cobra.Command { return newRunCmd(app, nil) }},
		{"status", newStatusCmd},
		{"ui", newUICmd},
		{"version", newVersionCmd},
	}
}

// group is a command that only groups subcommands.
type group struct {
	use, short, long string
	subs             []commandFactory
}

// groups are the commands that only group subcommands, with their subcommands.
func groups() []group {
	return []group{
		{"bench", "Run strata's benchmarks and print their figures",
			"Benchmarks build their own synthetic data in a temporary directory (or read an eval set you name) and print figures; they never change your files.",
			[]commandFactory{newBenchContextCmd, newBenchHookCmd, newBenchMCPCmd, newBenchRecallCmd, newBenchStartupCmd, newBenchSyncCmd, newBenchTranscriptsCmd}},
		{"memory", "See and manage the auto-memory of this project",
			"The auto-memory is a directory of markdown topic files with a MEMORY.md index, one per project\n(all worktrees of a repository share it). These commands list, show, add, forget, search and check it.",
			[]commandFactory{newMemoryListCmd, newMemoryShowCmd, newMemoryPathCmd, newMemoryEditCmd, newMemoryAddCmd, newMemoryForgetCmd,
				newMemoryLintCmd, newMemoryDreamCmd, newMemoryExtractCmd, newMemoryInboxCmd, newMemoryRestoreCmd, newMemorySearchCmd, newMemorySyncCmd}},
		{"setup", "Connect strata to Claude Code, Codex or Gemini CLI",
			"Each subcommand writes strata's entries into another tool's configuration, keeping every other byte,\nbacking up a file before it changes it, and taking them out again with --uninstall.",
			[]commandFactory{newSetupClaudeCodeCmd, newSetupCodexCmd, newSetupGeminiCmd}},
		{"sessions", "List, show, search, export and archive session transcripts",
			"Transcripts are append-only JSONL files under $STRATA_HOME/projects/<project>/, one per session,\nin Claude Code's format.",
			[]commandFactory{newSessionsListCmd, newSessionsShowCmd, newSessionsExportCmd, newSessionsSearchCmd, newSessionsArchiveCmd, newSessionsCompactCmd}},
	}
}

// NewRoot builds the whole command tree for app.
func NewRoot(app *App) *cobra.Command { return newRoot(app, everyCommand) }

// everyCommand, noCommand: the top-level commands reachable by any command line, by none.
func everyCommand(string) bool { return true }
func noCommand(string) bool    { return false }

// reachable returns which top-level commands (by name) a run of args can reach, so that Run
// builds only those instead of every process paying for the whole tree: none for a request
// for the version alone; the one args names first, with all its subcommands; else every one,
// since help, completion, suggestions for a mistyped command and flags before the command
// need the whole tree. A command line it does not recognise gets the whole tree, and
// TestLazyRoot checks that help, usage, errors and completion print the same either way.
func reachable(args []string) func(name string) bool {
	if len(args) == 1 && (args[0] == "--version" || args[0] == "-v") {
		return noCommand
	}
	if len(args) > 0 && isTopLevel(args[0]) {
		first := args[0]
		return func(name string) bool { return name == first }
	}
	return everyCommand
}

// isTopLevel reports whether name is the name of a registered top-level command or group.
func isTopLevel(name string) bool {
	for _, c := range topLevelCommands() {
		if c.name == name {
			return true
		}
	}
	for _, g := range groups() {
		if g.use == name {
			return true
		}
	}
	return false
}

// newRoot builds the root command and the top-level commands want accepts, each with all its
// subcommands.
func newRoot(app *App, want func(name string) bool) *cobra.Command {
	root := &cobra.Command{
		Use:   "strata",
		Short: "A layered memory engine for LLM agents",
		Long: `strata gives an LLM agent a memory: the instruction hierarchy (CLAUDE.md, AGENTS.md, rules),
an auto-memory store with recall, session transcripts that resume exactly, and compaction that
never loses the task. It reads and writes the same files as Claude Code.

Run strata with no command to chat with the agent (the same as strata chat).

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
	for _, c := range topLevelCommands() {
		if want(c.name) {
			root.AddCommand(c.build(app))
		}
	}
	for _, g := range groups() {
		if !want(g.use) {
			continue
		}
		c := &cobra.Command{Use: g.use, Short: g.short, Long: g.long, RunE: groupRunE}
		for _, f := range g.subs {
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

// Run runs the command line args against app and returns the exit code. It builds only the
// commands args can reach (see reachable).
func Run(app *App, args []string) int {
	args = defaultCommand(args)
	return execute(app, newRoot(app, reachable(args)), args)
}

// defaultCommand is the command line strata runs, taking Claude Code's shapes: no argument
// is "chat"; -p or --print (anywhere before "--") is "run" with the other arguments, the
// prompt read from standard input when none is given; a first argument that is a prompt
// rather than a command is "chat" with that first message. Any other line keeps its meaning.
func defaultCommand(args []string) []string {
	if len(args) == 0 {
		return []string{"chat"}
	}
	if isTopLevel(args[0]) || cobraCommands[args[0]] {
		return args
	}
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "-p" || a == "--print" {
			rest := append(append([]string{"run"}, args[:i]...), args[i+1:]...)
			if !hasPositional(rest[1:]) {
				rest = append(rest, "-")
			}
			return rest
		}
	}
	if isPrompt(args[0]) {
		return append([]string{"chat"}, args...)
	}
	return args
}

// cobraCommands are the commands cobra adds itself.
var cobraCommands = map[string]bool{"help": true, "completion": true, "__complete": true, "__completeNoDesc": true}

// runValueFlags are run's flags that take a value (hasPositional skips the value).
var runValueFlags = map[string]bool{"--output-format": true, "--resume": true, "--model": true, "--max-turns": true,
	"--allow": true, "--deny": true, "--permission-mode": true, "--cwd": true, "--add-dir": true}

// hasPositional reports whether run's arguments include a prompt.
func hasPositional(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i+1 < len(args)
		case runValueFlags[a]:
			i++
		case !strings.HasPrefix(a, "-") || a == "-":
			return true
		}
	}
	return false
}

// isPrompt reports whether a first argument that names no command is a prompt: anything but
// one lowercase word of letters, digits and dashes, which reads as a mistyped command and gets
// cobra's error and suggestions (a one-word prompt goes through strata chat WORD).
func isPrompt(arg string) bool {
	return arg != "" && !strings.HasPrefix(arg, "-") && !isCommandWord(arg)
}

func isCommandWord(s string) bool {
	for i, r := range s {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
			return false
		}
	}
	return true
}

// execute runs args against the command tree root and returns the exit code.
func execute(app *App, root *cobra.Command, args []string) int {
	root.SetArgs(defaultCommand(args))
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

// count writes n and noun, with an s unless n is 1 ("1 file", "3 files").
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
