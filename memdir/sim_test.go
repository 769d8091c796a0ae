package memdir

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSimulation drives the store with random add, update and forget sequences and compares
// it after every step with a tiny in-memory model (name → description, type, body). The names
// include Chinese, mixed case and punctuation, so several names map to one file name and the
// hashed alternative is exercised, and look-alikes ("db" and "DB"), which are one memory. After each run the consistency check (see newTestStore)
// and Lint must be clean.
func TestSimulation(t *testing.T) {
	names := []string{"prefer tabs", "Prefer Tabs", "prefer-tabs", "部署流程", "部署 流程", "API 约定",
		"release notes", "Release-Notes!", "who is the user", "db", "DB", "测试", "e2e tests", "ünïcödé"}
	for seed := range uint64(8) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			s := newTestStore(t, Options{})
			model := map[string]Input{}
			for step := range 60 {
				name := names[rng.IntN(len(names))]
				switch op := rng.IntN(10); {
				case op < 6: // add or update
					in := Input{Name: name, Type: []Type{TypeUser, TypeFeedback, TypeProject, TypeReference}[rng.IntN(4)],
						Description: fmt.Sprintf("desc %d of %s", step, name), Body: fmt.Sprintf("body %d\n中文内容 %d\n", step, rng.IntN(1000))}
					// A name that only looks like a memory's (NameKey) updates that memory,
					// which keeps its name; several such memories refuse the write.
					var same []string
					if _, ok := model[name]; !ok {
						for n := range model {
							if NameKey(n) == NameKey(name) {
								same = append(same, n)
							}
						}
					}
					_, err := s.Add(t.Context(), in)
					if len(same) > 1 {
						if !errors.Is(err, ErrAmbiguousName) {
							t.Fatalf("step %d: Add(%q) beside look-alikes %v: %v, want ErrAmbiguousName", step, name, same, err)
						}
						break
					}
					if err != nil {
						t.Fatalf("step %d: Add(%q): %v", step, name, err)
					}
					if len(same) == 1 {
						in.Name = same[0]
					}
					model[in.Name] = in
				case op < 9: // forget
					_, err := s.Forget(t.Context(), name, rng.IntN(2) == 0)
					if _, ok := model[name]; ok {
						if err != nil {
							t.Fatalf("step %d: Forget(%q): %v", step, name, err)
						}
						delete(model, name)
					} else if err == nil {
						// Forget falls back to file name and case-insensitive matches; then the model
						// must drop the memory that went.
						dropGone(t, s, model)
					}
				default: // hand edit of a random file's description, then Reindex
					mems, _, _ := s.List(t.Context())
					if len(mems) == 0 {
						continue
					}
					m := mems[rng.IntN(len(mems))]
					data, _ := os.ReadFile(m.Path)
					edited := strings.Replace(string(data), "description: ", "description: edited ", 1)
					if err := os.WriteFile(m.Path, []byte(edited), 0o600); err != nil {
						t.Fatal(err)
					}
					if _, err := s.Reindex(t.Context(), m.File); err != nil {
						t.Fatalf("step %d: Reindex(%s): %v", step, m.File, err)
					}
					in := model[m.Name]
					in.Description = "edited " + in.Description
					model[m.Name] = in
				}
				compare(t, s, model, step)
			}
			diags, err := s.Lint(t.Context())
			if err != nil || Errors(diags) > 0 {
				t.Errorf("Lint: %v %v", diags, err)
			}
		})
	}
}

// dropGone removes from the model every name the store no longer has.
func dropGone(t *testing.T, s *Store, model map[string]Input) {
	mems, _, _ := s.List(t.Context())
	have := map[string]bool{}
	for _, m := range mems {
		have[m.Name] = true
	}
	for n := range model {
		if !have[n] {
			delete(model, n)
		}
	}
}

func compare(t *testing.T, s *Store, model map[string]Input, step int) {
	t.Helper()
	mems, diags, err := s.List(t.Context())
	if err != nil || len(diags) > 0 {
		t.Fatalf("step %d: List: %v %v", step, diags, err)
	}
	type row struct{ Name, Desc, Type, Body string }
	var got, want []row
	for _, m := range mems {
		got = append(got, row{m.Name, m.Description, string(m.Type), strings.TrimPrefix(m.Body, "\n")})
	}
	for _, in := range model {
		want = append(want, row{in.Name, in.Description, string(in.Type), in.Body})
	}
	less := func(r []row) func(i, j int) bool { return func(i, j int) bool { return r[i].Name < r[j].Name } }
	sort.Slice(got, less(got))
	sort.Slice(want, less(want))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("step %d: store differs from the model (-model +store):\n%s", step, diff)
	}
	idx, _ := os.ReadFile(s.IndexPath())
	entries := ParseIndex(idx)
	if len(entries) != len(model) {
		t.Fatalf("step %d: %d index lines for %d memories:\n%s", step, len(entries), len(model), idx)
	}
	for _, e := range entries {
		in, ok := model[e.Title]
		if !ok || e.Hook != in.Description {
			t.Fatalf("step %d: index line %d %+v does not match the model", step, e.Line, e)
		}
	}
}
