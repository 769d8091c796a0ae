package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/strata-mem/strata/config"
)

// storesFixture is a project with a read-write team store and a read-only org store, mounted
// by the user's settings.
func storesFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	for _, d := range []string{"team", "org"} {
		if err := os.MkdirAll(filepath.Join(f.dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	f.write(t, "home/.strata/settings.json", `{"memoryStores": [{"name": "team", "path": "`+filepath.Join(f.dir, "team")+`", "writable": true}, {"name": "org", "path": "`+filepath.Join(f.dir, "org")+`"}]}`)
	f.write(t, "org/holidays.md", "---\nname: holidays\ndescription: Office holidays and the release freeze\ntype: reference\n---\n\nNo releases in the freeze week.\n")
	return f
}

// The memory tools take a store: writes go to the project's unless one is named, reads cover
// every store and each result names its store; a read-only store refuses writes by name.
func TestToolsAcrossStores(t *testing.T) {
	f := storesFixture(t)
	cs := connect(t, f.server(t, nil), nil)

	var saved SaveOutput
	mustCall(t, cs, "memory_save", map[string]any{"name": "release day", "type": "project", "description": "Releases leave on Tuesdays", "body": "Tuesdays."}, &saved)
	if saved.Store != "" || saved.URI == "" {
		t.Errorf("default save: %+v", saved)
	}
	saved = SaveOutput{}
	mustCall(t, cs, "memory_save", map[string]any{"name": "release train", "type": "project", "description": "The team's release train and its freeze", "body": "Weekly.", "store": "team"}, &saved)
	if saved.Store != "team" || saved.URI != "" {
		t.Errorf("team save: %+v", saved)
	}
	if _, err := os.Stat(filepath.Join(f.dir, "team", "release-train.md")); err != nil {
		t.Errorf("not in the team store: %v", err)
	}
	if msg := call(t, cs, "memory_save", map[string]any{"name": "x", "type": "user", "description": "x", "body": "x", "store": "org"}, nil); !strings.Contains(msg, `the memory store "org" is mounted read-only`) {
		t.Errorf("read-only save: %q", msg)
	}
	if msg := call(t, cs, "memory_forget", map[string]any{"name": "holidays", "store": "org"}, nil); !strings.Contains(msg, "read-only") {
		t.Errorf("read-only forget: %q", msg)
	}
	if msg := call(t, cs, "memory_list", map[string]any{"store": "nope"}, nil); !strings.Contains(msg, `no memory store "nope" (your stores: org, project, team)`) {
		t.Errorf("unknown store: %q", msg)
	}

	var list ListOutput
	mustCall(t, cs, "memory_list", map[string]any{}, &list)
	var got []string
	for _, m := range list.Memories {
		got = append(got, m.Store+":"+m.Name)
	}
	if diff := cmp.Diff([]string{":release day", "team:release train", "org:holidays"}, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]StoreInfo{{config.ProjectStore, true}, {"team", true}, {"org", false}}, list.Stores); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}

	var search SearchOutput
	mustCall(t, cs, "memory_search", map[string]any{"query": "release freeze"}, &search)
	got = nil
	for _, h := range search.Results {
		got = append(got, h.Memory.Store+":"+h.Memory.Name)
	}
	if len(got) != 3 || search.Searched != 3 || !strings.Contains(strings.Join(got, ","), "org:holidays") {
		t.Errorf("search across stores: %v (searched %d)", got, search.Searched)
	}
	search = SearchOutput{}
	mustCall(t, cs, "memory_search", map[string]any{"query": "release", "store": "team"}, &search)
	if len(search.Results) != 1 || search.Results[0].Memory.Store != "team" {
		t.Errorf("search in team: %+v", search.Results)
	}

	var get GetOutput
	mustCall(t, cs, "memory_get", map[string]any{"name": "holidays"}, &get)
	if get.Memory.Store != "org" || !strings.Contains(get.Body, "freeze week") {
		t.Errorf("get: %+v", get)
	}
	if msg := call(t, cs, "memory_get", map[string]any{"name": "release day", "store": "team"}, nil); !strings.Contains(msg, "no memory called") {
		t.Errorf("get in the wrong store: %q", msg)
	}

	// The instructions tool shows each store's index, named.
	var ins InstructionsOutput
	mustCall(t, cs, "instructions", map[string]any{}, &ins)
	var stores []string
	for _, src := range ins.Sources {
		if src.Layer == "automem" {
			stores = append(stores, src.Store)
		}
	}
	if diff := cmp.Diff([]string{"", "team"}, stores); diff != "" { // org has no MEMORY.md
		t.Errorf("instruction indexes (-want +got):\n%s", diff)
	}

	var forgot ForgetOutput
	mustCall(t, cs, "memory_forget", map[string]any{"name": "release train", "store": "team"}, &forgot)
	if forgot.Store != "team" || forgot.File != "release-train.md" {
		t.Errorf("forget: %+v", forgot)
	}
	search = SearchOutput{}
	mustCall(t, cs, "memory_search", map[string]any{"query": "release train weekly", "store": "team"}, &search)
	if len(search.Results) != 0 {
		t.Errorf("forgotten memory still found: %+v", search.Results)
	}
}
