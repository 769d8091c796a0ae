package cli

import (
	"context"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/memdir"
)

func init() { contextAutomem = loadAutomem }

// loadAutomem gives strata context the project's MEMORY.md, cut to the limits the model sees,
// as the automem layer. Auto-memory switched off in settings, or no index yet: nothing.
func loadAutomem(ctx context.Context, app *App, set *instructions.Set) (path, text string, truncated bool, diags []instructions.Diagnostic, ok bool) {
	settings, _ := app.Env.Load(config.ProjectRoot(set.Cwd())) // parse errors are already diagnostics of the set
	if !settings.AutoMemory() {
		return "", "", false, nil, false
	}
	dir, err := memdir.Resolve(app.Env, settings, set.Cwd(), "")
	if err != nil {
		set.AddDiagnostics(instructions.Diagnostic{Severity: instructions.SeverityWarning, Message: "auto-memory: " + err.Error()})
		return "", "", false, nil, false
	}
	store, err := memdir.Open(dir, memdir.OptionsFrom(settings))
	if err != nil {
		set.AddDiagnostics(instructions.Diagnostic{Path: dir, Severity: instructions.SeverityWarning, Message: err.Error()})
		return "", "", false, nil, false
	}
	idx, err := store.LoadIndex(ctx)
	if err != nil {
		// Unreadable index: say so; the session still starts without it.
		set.AddDiagnostics(instructions.Diagnostic{Path: store.IndexPath(), Severity: instructions.SeverityError, Message: err.Error()})
		return "", "", false, nil, false
	}
	if !idx.Exists {
		return "", "", false, nil, false
	}
	if idx.Truncated {
		diags = append(diags, instructions.Diagnostic{Path: idx.Path, Severity: instructions.SeverityWarning, Message: idx.Warning})
	}
	return idx.Path, idx.Content(), idx.Truncated, diags, true
}
