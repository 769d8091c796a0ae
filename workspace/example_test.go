package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/workspace"
)

// Open reads the settings once; the store and the instructions open when asked for.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "workspace-example-")
	defer os.RemoveAll(dir)
	project := filepath.Join(dir, "project")
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	os.MkdirAll(project, 0o700)
	// The memory directory is the user's choice (a project's own settings may not move it).
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"autoMemoryDirectory": "notes"}`), 0o600)
	os.WriteFile(filepath.Join(project, "CLAUDE.md"), []byte("Run the tests before committing.\n"), 0o600)

	ctx := context.Background()
	ws, err := workspace.Open(ctx, workspace.Options{Cwd: project, Env: config.Env{Home: home}})
	if err != nil {
		fmt.Println(err)
		return
	}
	mem, _ := ws.MemoryDir()
	fmt.Println(filepath.Base(mem), len(ws.Diagnostics()))
	set, err := ws.Instructions(ctx, workspace.SetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, src := range set.Sources() {
		fmt.Println(src.Layer, filepath.Base(src.Path))
	}
	// Output:
	// notes 0
	// project CLAUDE.md
}
