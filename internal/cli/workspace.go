package cli

import (
	"context"
	"fmt"

	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/workspace"
)

// openWorkspace opens the project of the --cwd flag (the process's working directory when
// empty) with --memory-dir: the one place a command reads the settings. The caller reports
// the settings problems once: warnSettings, or the instruction diagnostics of strata context
// and strata lint.
func openWorkspace(ctx context.Context, app *App, cwdFlag, memoryDir string) (*workspace.Workspace, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cwd, err := app.workDir(cwdFlag)
	if err != nil {
		return nil, err
	}
	return workspace.Open(ctx, workspace.Options{Cwd: cwd, Env: app.Env, MemoryDir: memoryDir, Now: app.Now})
}

// warnSettings prints each settings problem (a file skipped, a key dropped or adjusted) as a
// warning on stderr, made safe for the terminal: it quotes keys and values from the files.
func warnSettings(app *App, ws *workspace.Workspace) {
	for _, e := range ws.Diagnostics() {
		fmt.Fprintf(app.Err, "strata: warning: %s\n", termtext.Line(e.Error()))
	}
}
