// Command strata is a layered memory engine for LLM agents: a working agent plus the tools to
// see and manage its memory. See the README and docs/ for the commands.
package main

import (
	"os"

	"github.com/strata-mem/strata/internal/cli"
	"github.com/strata-mem/strata/internal/sandbox"
)

func main() {
	sandbox.Main() // started as the sandbox helper, this confines itself and runs the command
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
