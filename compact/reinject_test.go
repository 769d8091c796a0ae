package compact

import (
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/instructions"
	"github.com/strata-mem/strata/llm"
	"github.com/strata-mem/strata/llm/llmtest"
)

func TestRunReinjectsRules(t *testing.T) {
	srv, p := newServer(t)
	srv.Script(llmtest.Text("summary"))
	rules := []instructions.Source{
		{Path: "/repo/.claude/rules/go.md", Layer: instructions.LayerProject, Reason: instructions.ReasonPathGlobMatch, Text: "Go 规则 v2", Trigger: "/repo/sub/x.go"},
		{Path: "/repo/sub/CLAUDE.md", Layer: instructions.LayerProject, Reason: instructions.ReasonNestedTraversal, Text: "nested v2", Trigger: "/repo/sub/x.go"},
	}
	r, err := Run(t.Context(), Input{History: chat(4, 1000), Provider: p, Window: 100_000, Reinject: Reinject{Rules: rules}})
	if err != nil {
		t.Fatal(err)
	}
	var attach string
	for _, c := range r.Context[1:] {
		attach += c.Message.TextOf()
	}
	if want := instructions.RenderSources(rules); !strings.Contains(attach, want) {
		t.Errorf("re-injected instructions lack the rendered rules %q:\n%s", want, attach)
	}
	// Without rules, no instructions attachment.
	srv.Script(llmtest.Text("summary"))
	r, err = Run(t.Context(), Input{History: chat(4, 1000), Provider: p, Window: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Context {
		if strings.Contains(c.Message.TextOf(), "<instructions>") {
			t.Errorf("an instructions attachment without rules: %q", c.Message.TextOf())
		}
	}
}

// TestInputHoldsNoState keeps Run pure: its Input may hold values only, so it cannot reach a
// read cache, a store, an instruction set or a recall session of its caller. The provider (the
// model call), the clock and the logger are the only exceptions.
func TestInputHoldsNoState(t *testing.T) {
	allowed := map[reflect.Type]bool{
		reflect.TypeFor[llm.Provider]():        true,
		reflect.TypeFor[func() time.Time]():    true,
		reflect.TypeFor[*slog.Logger]():        true,
		reflect.TypeFor[time.Time]():           true,
		reflect.TypeFor[*conversation.Usage](): true, // a value: the usage an entry reported
	}
	var check func(path string, typ reflect.Type)
	seen := map[reflect.Type]bool{}
	check = func(path string, typ reflect.Type) {
		if allowed[typ] || seen[typ] {
			return
		}
		seen[typ] = true
		switch typ.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float64, reflect.String:
		case reflect.Slice, reflect.Array:
			check(path+"[]", typ.Elem())
		case reflect.Struct:
			for f := range typ.Fields() {
				check(path+"."+f.Name, f.Type)
			}
		default:
			t.Errorf("Input%s is a %s (%s): Run must get values, not its caller's state", path, typ.Kind(), typ)
		}
	}
	check("", reflect.TypeFor[Input]())
	if !seen[reflect.TypeFor[Reinject]()] || !seen[reflect.TypeFor[conversation.FileState]()] {
		t.Fatal("the walk did not reach Reinject's fields")
	}
}

func TestReadSessionNotes(t *testing.T) {
	dir := t.TempDir()
	if n, err := ReadSessionNotes(filepath.Join(dir, "none", "summary.md")); err != nil || n != (SessionNotes{}) {
		t.Errorf("missing file: %+v, %v", n, err)
	}
	n, path := openTestNotes(t)
	if err := n.MarkCovered("uuid-7"); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSessionNotes(path)
	if err != nil || got.Text != NotesTemplate || got.Covered != "uuid-7" {
		t.Errorf("ReadSessionNotes = %+v, %v", got, err)
	}
	// A notes path that is a directory cannot be read: an error and no text.
	if got, err := ReadSessionNotes(dir); err == nil || got.Text != "" {
		t.Errorf("unreadable notes: %+v, %v", got, err)
	}
}
