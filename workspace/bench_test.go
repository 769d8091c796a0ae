package workspace

import (
	"path/filepath"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/instructions"
)

func benchSetup(b *testing.B) (instructions.SyntheticLayout, config.Env) {
	dir := b.TempDir()
	l, err := instructions.SyntheticRepo(dir)
	if err != nil {
		b.Fatal(err)
	}
	return l, config.Env{Home: filepath.Join(dir, "home", ".strata"), ManagedDir: filepath.Join(dir, "managed"), UserHome: filepath.Join(dir, "home")}
}

// BenchmarkLoad is what strata lint does: settings read once, the instruction set loaded.
func BenchmarkLoad(b *testing.B) {
	l, env := benchSetup(b)
	for b.Loop() {
		ws, err := Open(b.Context(), Options{Cwd: l.Cwd, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.Instructions(b.Context(), SetOptions{NoIndex: true, SettingsDiagnostics: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkContext is what strata context does: the same, with the memory index.
func BenchmarkContext(b *testing.B) {
	l, env := benchSetup(b)
	for b.Loop() {
		ws, err := Open(b.Context(), Options{Cwd: l.Cwd, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ws.Instructions(b.Context(), SetOptions{SettingsDiagnostics: true}); err != nil {
			b.Fatal(err)
		}
	}
}
