package config

import (
	"strings"
	"testing"
)

// The sandbox settings are taken from the user's (and managed) settings only: a repository
// cannot turn the sandbox off or the network on.
func TestSandboxSettings(t *testing.T) {
	f := newSettingsFixture(t)
	f.write(f.project, `{"sandbox": "off", "sandboxNetwork": true}`)
	f.write(f.user, `{"sandboxNetwork": false}`)
	s, msgs := f.load()
	if !s.SandboxOn() || s.SandboxNet() {
		t.Errorf("project file changed the sandbox: sandbox %q network %v", s.Sandbox, s.SandboxNetwork)
	}
	for _, key := range []string{"sandbox", "sandboxNetwork"} {
		if !containsAll(msgs, f.project, key+": a project file may not set this") {
			t.Errorf("no warning for %s in %q", key, msgs)
		}
	}

	f = newSettingsFixture(t)
	f.write(f.user, `{"sandbox": "off"}`)
	if s, msgs := f.load(); s.SandboxOn() || len(msgs) != 0 {
		t.Errorf("user sandbox off: on %v, messages %q", s.SandboxOn(), msgs)
	}

	f = newSettingsFixture(t)
	f.write(f.user, `{"sandbox": "danger-full-access"}`)
	s, msgs = f.load()
	if !s.SandboxOn() || len(msgs) != 1 || !strings.Contains(msgs[0], `sandbox: want "workspace-write" or "off", got "danger-full-access"; ignored`) {
		t.Errorf("unknown mode: on %v, messages %q", s.SandboxOn(), msgs)
	}
}
