package extract

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStaleNotPaths: git refs, branch names, slugs, ticket ids, commit hashes, URL paths and
// package import paths are not files of the project, written bare or in backticks; what is
// clearly a path of this project (an extension, a directory the project has, or written as a
// path) is still flagged when it is missing.
func TestStaleNotPaths(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"internal/store/store.go", "docs/guide.md", "scripts/build.sh"} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package store\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		body string
		want []string
	}{
		// Not paths of this project.
		{"rebase on `origin/main`, then origin/main again", nil},
		{"work happens on `feature/login-page` and feature/login-page", nil},
		{"`refs/heads/release-2.1` is protected", nil},
		{"the plan is `2024-q3-roadmap` (2024-q3-roadmap)", nil},
		{"tracked in `PROJ-1234` and PROJ-1234", nil},
		{"fixed by `3e3245f` and 3e3245f9a1c2b7d11e0f4a5b6c7d8e9f0a1b2c3d", nil},
		{"import `github.com/x/y` or github.com/x/y/z", nil},
		{"the Go module `golang.org/x/text/unicode/norm`", nil},
		{"see example.com/docs/setup.html and `docs.example.org/a/b.md`", nil},
		{"the endpoint `/api/v1/users` and `api/v1/users`", nil},
		{"version `v1.2.3`, tag v2.0.0-rc.1", nil},
		{"中文：分支 `功能/登录页` 与 `origin/发布`", nil},
		// Paths of this project: extension, a directory it has, written as a path.
		{"see internal/store/store.go and `docs/guide.md`", nil},
		{"see `internal/store/gone.go` and old/file.go", []string{"internal/store/gone.go", "old/file.go"}},
		{"the package `internal/gone` moved", []string{"internal/gone"}},
		{"the package `internal/store` is here", nil},
		{"run `./scripts/deploy` and `tools/gen/`", []string{"scripts/deploy", "tools/gen"}},
		{"한국어: `docs/없는문서.md` 와 `docs/guide.md`", []string{"docs/없는문서.md"}},
		// Written from inside a subdirectory: found anywhere in the project, by its end.
		{"the store lives in `store.go`; build with build.sh and see `store/store.go`", nil},
		{"the parser is in `parse.go`", []string{"parse.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			s := newStore(t, []mem{{"a.md", "a", "refs", tt.body, day}})
			p, err := PlanDream(t.Context(), s, Options{Root: root, Now: t0})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range p.Actions {
				if a.Kind == KindStale {
					got = append(got, a.Refs...)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stale refs (-want +got):\n%s", diff)
			}
		})
	}
}
