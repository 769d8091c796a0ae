package config

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A bad entry of memoryStores is dropped with a KeyError naming the file, the entry's line and
// what was wrong; the good entries of the same list are mounted.
func TestMemoryStoresBadEntryDroppedRestKept(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.user, `{
  "memoryStores": [
    {"name": "team", "path": "~/team-mem", "writable": true},
    {"name": "project", "path": "/x"},
    {"name": "团队", "path": "mem/org"},
    {"name": "bad name", "path": "/y"},
    {"name": "nopath"},
    {"name": "w", "path": "/z", "writable": "yes"},
    {"name": "TEAM", "path": "/again"}
  ]
}`)
	s, msgs := f.load()
	var got []string
	for _, m := range s.MemoryStores {
		got = append(got, m.Name+"="+m.Path+":"+m.Mode()+"@"+m.From)
	}
	want := []string{"team=~/team-mem:read-write@" + f.user, "团队=mem/org:read-only@" + f.user}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	wantMsgs := []string{
		f.user + ":4:5: memoryStores: entry 2",
		f.user + ":6:5: memoryStores: entry 4",
		f.user + ":7:5: memoryStores: entry 5",
		f.user + ":8:5: memoryStores: entry 6",
		f.user + ":9:5: memoryStores: entry 7",
	}
	if len(msgs) != len(wantMsgs) {
		t.Fatalf("messages %q, want %d", msgs, len(wantMsgs))
	}
	for i, w := range wantMsgs {
		if !strings.HasPrefix(msgs[i], w) || !strings.HasSuffix(msgs[i], "this store is not mounted") {
			t.Errorf("message %d = %q, want it to start %q", i, msgs[i], w)
		}
	}
	for i, frag := range []string{`"project" is the project's own memory`, "may hold only letters", "needs a path", "writable: want true or false", `"TEAM" is given twice`} {
		if !strings.Contains(msgs[i], frag) {
			t.Errorf("message %d = %q, want %q", i, msgs[i], frag)
		}
	}
	// Relative to the settings file's directory; ~/ is the user's home.
	if d := s.MemoryStores[1].Dir("/h"); d != filepath.Join(f.env.Home, "mem", "org") {
		t.Errorf("relative dir = %s", d)
	}
	if d := s.MemoryStores[0].Dir("/h"); d != filepath.Join("/h", "team-mem") {
		t.Errorf("~ dir = %s", d)
	}
}

// A value that is not a list drops the key; the user's and managed lists are joined, and a
// managed store of the same name wins over the user's.
func TestMemoryStoresMerge(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.user, `{"memoryStores": [{"name": "team", "path": "/u/team", "writable": true}, {"name": "mine", "path": "/u/mine"}]}`)
	f.write(f.managed, `{"memoryStores": [{"name": "Team", "path": "/org/team"}, {"name": "org", "path": "/org/all"}]}`)
	s, msgs := f.load()
	if len(msgs) != 0 {
		t.Fatalf("messages: %q", msgs)
	}
	var got []string
	for _, m := range s.MemoryStores {
		got = append(got, m.Name+"="+m.Path+":"+m.Mode())
	}
	if diff := cmp.Diff([]string{"Team=/org/team:read-only", "mine=/u/mine:read-only", "org=/org/all:read-only"}, got); diff != "" {
		t.Errorf("merged (-want +got):\n%s", diff)
	}

	f.write(f.managed, `{"memoryStores": "team=/x"}`)
	s, msgs = f.load()
	if len(s.MemoryStores) != 2 || len(msgs) != 1 || !strings.Contains(msgs[0], f.managed+":1:2: memoryStores: want a list") ||
		!strings.Contains(msgs[0], "the memoryStores entries of the other files apply") {
		t.Errorf("not a list: stores %v, messages %q", s.MemoryStores, msgs)
	}
}

func TestParseStoresVar(t *testing.T) {
	got, errs := ParseStoresVar(` team=~/team-mem:rw , org=/srv/org-mem,win=C:\mem\team:rw,,ro=/r:ro, bad, x=rel/dir, project=/p, 日本=/j, team=/dup`)
	var names []string
	for _, m := range got {
		names = append(names, m.Name+"="+m.Path+":"+m.Mode())
	}
	want := []string{"team=~/team-mem:read-write", "org=/srv/org-mem:read-only", "ro=/r:read-only", "日本=/j:read-only"}
	if filepath.IsAbs(`C:\mem\team`) { // Windows
		want = append(want[:2], append([]string{`win=C:\mem\team:read-write`}, want[2:]...)...)
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, e := range errs {
		var se *StoresError
		if !errors.As(e, &se) {
			t.Errorf("error %v is not a *StoresError", e)
		}
		msgs = append(msgs, e.Error())
	}
	for _, frag := range []string{`"bad": want NAME=PATH`, `"x=rel/dir": the path must be absolute`, `"project=/p": "project" is the project's own`, `"team=/dup": the store name "team" is given twice`} {
		if !strings.Contains(strings.Join(msgs, "\n"), frag) {
			t.Errorf("no message %q in %q", frag, msgs)
		}
	}
}

// The variable lays its stores over the settings', except over a store the managed settings
// mount.
func TestEnvMemoryStores(t *testing.T) {
	e := Env{ManagedDir: "/m", Getenv: func(k string) string {
		if k == StoresVar {
			return "team=/env/team:rw,org=/env/org,extra=/env/extra"
		}
		return ""
	}}
	s := Settings{MemoryStores: []MemoryStore{
		{Name: "team", Path: "/u/team", From: "/h/settings.json"},
		{Name: "org", Path: "/m/org", From: filepath.Join("/m", "managed-settings.json")},
	}}
	got, errs := e.MemoryStores(s)
	var names []string
	for _, m := range got {
		names = append(names, m.Name+"="+m.Path+":"+m.Mode())
	}
	if diff := cmp.Diff([]string{"team=/env/team:read-write", "org=/m/org:read-only", "extra=/env/extra:read-only"}, names); diff != "" {
		t.Errorf("stores (-want +got):\n%s", diff)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "managed settings mount a store of this name") {
		t.Errorf("errs = %v", errs)
	}
}

func TestValidStoreName(t *testing.T) {
	for name, ok := range map[string]bool{"team": true, "team-2_b": true, "팀": true, "团队": true, "": false, "Project": false,
		"2team": false, "-x": false, "a b": false, "a/b": false, "a:b": false, "a=b": false, strings.Repeat("a", 33): false} {
		if got := ValidStoreName(name) == ""; got != ok {
			t.Errorf("ValidStoreName(%q) ok = %v, want %v", name, got, ok)
		}
	}
}

func FuzzParseStoresVar(f *testing.F) {
	f.Add("team=~/team-mem:rw,org=/srv/org-mem")
	f.Add(`win=C:\x:rw`)
	f.Fuzz(func(t *testing.T, v string) {
		got, _ := ParseStoresVar(v)
		for _, m := range got {
			if ValidStoreName(m.Name) != "" || m.Path == "" || m.From != StoresVar {
				t.Fatalf("bad store taken: %+v", m)
			}
		}
	})
}
