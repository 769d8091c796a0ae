package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/strata-mem/strata/config"
	"github.com/strata-mem/strata/conversation"
	"github.com/strata-mem/strata/llm/llmtest"
	"github.com/strata-mem/strata/permission"
	"github.com/strata-mem/strata/tool"
	"github.com/strata-mem/strata/workspace"
)

// askLog is an Approver that says no and records what it was asked about.
type askLog struct {
	mu    sync.Mutex
	asked []permission.Request
}

func (l *askLog) approve(_ context.Context, r permission.Request) (permission.Answer, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, r)
	return permission.Answer{}, nil
}

func (l *askLog) paths() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.asked {
		var in struct {
			FilePath string `json:"file_path"`
			Path     string `json:"path"`
		}
		json.Unmarshal(r.Input, &in)
		out = append(out, in.FilePath+in.Path)
	}
	return out
}

// Protected files always ask: in accept-edits and bypass mode, and with an allow rule that
// covers them, Edit(.git//config), .git/./config, .git/hooks/*, a case or trailing-dot
// spelling of .git, the project's and the user's .claude/settings.json and STRATA_HOME's
// settings.json are asked about (and, declined, left as they were), and no "don't ask again"
// is offered for them; an ordinary edit in the project is not asked about.
func TestProtectedFilesAlwaysAsk(t *testing.T) {
	for _, mode := range []permission.Mode{permission.ModeAcceptEdits, permission.ModeBypass} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, llmtest.Anthropic)
			f.write(".git/config", "[core]\n\tbare = false\n")
			f.write(".claude/settings.json", `{"permissions":{"defaultMode":"acceptEdits"}}`)
			userSettings := filepath.Join(f.env.UserHome, ".claude", "settings.json")
			strataSettings := filepath.Join(f.env.Home, "settings.json")
			for _, p := range []string{userSettings, strataSettings} {
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(`{"permissions":{"defaultMode":"acceptEdits"}}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			bypass := `{"permissions":{"defaultMode":"bypassPermissions"}}`
			protected := []string{".git//config", ".git/./config", ".git/hooks/pre-commit", ".GIT/config", ".git./config",
				".claude/settings.json", ".claude/settings.local.json", userSettings, strataSettings}
			var blocks []conversation.Block
			for i, p := range protected {
				blocks = append(blocks, use("w"+string(rune('a'+i)), "Write", map[string]any{"file_path": p, "content": bypass}))
			}
			edits := []string{".git//config", ".git/./config", ".git/hooks/pre-commit.sample"}
			for i, p := range edits {
				blocks = append(blocks, use("e"+string(rune('a'+i)), "Edit", map[string]any{"file_path": p, "old_string": "bare", "new_string": "fsmonitor"}))
			}
			blocks = append(blocks, use("ok", "Write", map[string]any{"file_path": "src/new.go", "content": "package src\n"}))
			// The model reads the files first, as writing over a file it has not read is
			// refused before anyone is asked.
			var reads []conversation.Block
			for i, p := range []string{".git/config", ".claude/settings.json", userSettings, strataSettings} {
				reads = append(reads, use("r"+string(rune('a'+i)), "Read", map[string]any{"file_path": p}))
			}
			f.srv.Script(llmtest.Blocks(reads...), llmtest.Blocks(blocks...), llmtest.Text("done"))
			log := &askLog{}
			a := f.agent(Options{Approver: log.approve, Open: workspace.Options{Mode: mode, Allow: []string{"Edit", "Write(**)", "Read(//**)"}}})
			if _, err := a.Run(context.Background(), "go", nil); err != nil {
				t.Fatal(err)
			}
			asked := log.paths()
			if len(asked) != len(protected)+len(edits) {
				t.Fatalf("asked about %d calls, want %d: %q", len(asked), len(protected)+len(edits), asked)
			}
			for _, r := range log.asked {
				if r.Always != "" || !strings.Contains(r.Summary, "asked because") {
					t.Errorf("request %q offers %q", r.Summary, r.Always)
				}
			}
			for i, p := range append(protected, edits...) {
				if !strings.Contains(log.asked[i].Summary, f.abs(p)+" (asked because") {
					t.Errorf("request %d is %q, want it about %q", i, log.asked[i].Summary, f.abs(p))
				}
			}
			if data, _ := os.ReadFile(filepath.Join(f.dir, ".git", "config")); strings.Contains(string(data), "bypass") || strings.Contains(string(data), "fsmonitor") {
				t.Errorf(".git/config was rewritten: %q", data)
			}
			for _, p := range []string{userSettings, strataSettings, filepath.Join(f.dir, ".claude", "settings.json")} {
				if data, _ := os.ReadFile(p); strings.Contains(string(data), "bypass") {
					t.Errorf("%s was rewritten to bypass mode", p)
				}
			}
			if _, err := os.Stat(filepath.Join(f.dir, ".git", "hooks", "pre-commit")); err == nil {
				t.Error("a hook was written")
			}
			if _, err := os.Stat(filepath.Join(f.dir, "src", "new.go")); err != nil {
				t.Errorf("the ordinary write did not happen: %v", err)
			}
		})
	}
}

// abs is the absolute path of a path the model names, cleaned, as the tools resolve it.
func (f *fixture) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(f.dir, p)
}

// A session that cannot ask refuses a protected file whatever its mode, and a fork is refused
// one outright, even when its policy would run the call and the session is in bypass mode.
func TestProtectedFilesRefusedWithoutAsking(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.srv.Script(llmtest.Blocks(use("w", "Write", map[string]any{"file_path": ".git/hooks/post-checkout", "content": "#!/bin/sh\n"})), llmtest.Text("done"))
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	if _, err := a.Run(context.Background(), "go", nil); err != nil {
		t.Fatal(err)
	}
	if got := toolResults(f.srv.Requests()[1]); len(got) != 1 || !strings.Contains(got[0], "needs the user's approval in every mode") {
		t.Errorf("results = %q", got)
	}
	for _, in := range []string{
		`{"file_path":".git/config","content":"[core]\n\tfsmonitor = touch pwned\n"}`,
		`{"file_path":".claude/settings.local.json","content":"{}"}`,
	} {
		out, isErr, denied := forkCall(a, "Write", in)
		if !isErr || !denied || !strings.Contains(out, "refused to a background fork") {
			t.Errorf("a fork's Write %s = %q (error %v, denied %v)", in, out, isErr, denied)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".git", "config")); err == nil {
		t.Error("the fork wrote .git/config")
	}
	if out, isErr, _ := forkCall(a, "Write", `{"file_path":"notes.txt","content":"x"}`); isErr {
		t.Errorf("a fork's ordinary Write was refused: %s", out)
	}
}

// Read, Grep and Glob outside the project ask first, in chat (an Approver) and in run (none):
// a fake ~/.ssh/id_ed25519 or ~/.aws/credentials is not shown, as named, through "~", through a Grep or Glob of its
// directory, or through a link in the project; the project's own files are read without a
// question, and so are those of a directory the user added.
func TestFileToolsOutsideTheProjectAsk(t *testing.T) {
	const secret = "-----BEGIN OPENSSH PRIVATE KEY----- fake"
	for _, chat := range []bool{true, false} {
		name := map[bool]string{true: "chat", false: "run"}[chat]
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, llmtest.Anthropic)
			ssh := filepath.Join(f.env.UserHome, ".ssh")
			if err := os.MkdirAll(ssh, 0o700); err != nil {
				t.Fatal(err)
			}
			key := filepath.Join(ssh, "id_ed25519")
			if err := os.WriteFile(key, []byte(secret+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			aws := filepath.Join(f.env.UserHome, ".aws", "credentials")
			if err := os.MkdirAll(filepath.Dir(aws), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(aws, []byte("[default]\naws_secret_access_key = PRIVATE KEY\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			added := t.TempDir()
			if err := os.WriteFile(filepath.Join(added, "shared.txt"), []byte("shared notes\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			f.write("main.go", "package main\n")
			if err := os.Symlink(ssh, filepath.Join(f.dir, "keys")); err != nil {
				t.Fatal(err)
			}
			f.srv.Script(llmtest.Blocks(
				use("r1", "Read", map[string]any{"file_path": key}),
				use("r2", "Read", map[string]any{"file_path": "~/.ssh/id_ed25519"}),
				use("r3", "Grep", map[string]any{"pattern": "PRIVATE", "path": "~/.ssh", "output_mode": "content"}),
				use("r4", "Glob", map[string]any{"pattern": "id_*", "path": ssh}),
				use("r5", "Read", map[string]any{"file_path": "keys/id_ed25519"}),
				use("r6", "Read", map[string]any{"file_path": "~/.aws/credentials"}),
				use("r7", "Read", map[string]any{"file_path": "main.go"}),
				use("r8", "Read", map[string]any{"file_path": filepath.Join(added, "shared.txt")}),
			), llmtest.Text("done"))
			log := &askLog{}
			opts := Options{Open: workspace.Options{AddDirs: []string{added}, Mode: permission.ModeAcceptEdits}}
			if chat {
				opts.Approver = log.approve
			}
			a := f.agent(opts)
			if _, err := a.Run(context.Background(), "go", nil); err != nil {
				t.Fatal(err)
			}
			got := toolResults(f.srv.Requests()[1])
			if len(got) != 8 {
				t.Fatalf("results = %q", got)
			}
			for i, r := range got[:6] {
				if strings.Contains(r, "PRIVATE KEY") || strings.Contains(r, "id_ed25519\n") {
					t.Errorf("result %d shows the key: %q", i+1, r)
				}
				want := "the user declined"
				if !chat {
					want = "outside the project and the directories added to the session) needs the user's approval"
				}
				if !strings.Contains(r, want) {
					t.Errorf("result %d = %q, want a refusal saying %q", i+1, r, want)
				}
			}
			for _, r := range log.asked {
				if !strings.Contains(r.Summary, "asked because it is outside the project") || !strings.HasPrefix(r.Always, "Read(") || r.AlwaysSaved {
					t.Errorf("asked %q, offering %q (saved %v)", r.Summary, r.Always, r.AlwaysSaved)
				}
			}
			if !strings.Contains(got[6], "package main") || !strings.Contains(got[7], "shared notes") {
				t.Errorf("the project's and the added directory's files: %q, %q", got[6], got[7])
			}
			if chat && len(log.paths()) != 6 {
				t.Errorf("asked %d times, want 6: %q", len(log.paths()), log.paths())
			}
		})
	}
}

// The classification itself: every spelling of .git, the settings and hooks of .claude and of
// STRATA_HOME, its approvals and managed policy are protected; their neighbours are not.
func TestProtectedPaths(t *testing.T) {
	env := config.Env{Home: "/home/u/.strata", ManagedDir: "/etc/strata", UserHome: "/home/u"}
	for p, want := range map[string]bool{
		"/p/.git/config": true, "/p/.git": true, "/p/sub/.Git/hooks/x": true, "/p/.git. /config": true,
		"/p/.claude/settings.json": true, "/p/.claude/settings.local.json": true, "/home/u/.claude/settings.json": true,
		"/p/.claude/hooks/pre.sh": true, "/home/u/.strata/settings.json": true, "/home/u/.strata/hooks/h": true,
		"/home/u/.strata/projects/-p/approved-local-rules.json": true, "/etc/strata/managed-settings.json": true,
		"/p/.gitignore": false, "/p/.github/workflows/ci.yml": false, "/p/.claude/CLAUDE.md": false,
		"/p/.claude/agents/settings.json": false, "/home/u/.strata/projects/-p/memory/MEMORY.md": false,
		"/p/settings.json": false, "/p/src/main.go": false,
	} {
		if got := env.Protected(p) != ""; got != want {
			t.Errorf("Protected(%q) = %v, want %v", p, got, want)
		}
	}
}

// The decision table: a deny rule still wins over a protected file; a protected file asks in
// every mode and past every allow rule; reads and accept-edits stay in Cwd and Dirs, named
// and resolved, and an allow rule or bypass mode lets them out.
func TestPermissionsProtectedAndOutside(t *testing.T) {
	env := config.Env{Home: "/home/u/.strata", UserHome: "/home/u"}
	for _, tt := range []struct {
		mode  permission.Mode
		allow []string
		tool  string
		c     permission.Class
		s     permission.Subject
		want  permission.Decision
	}{
		{permission.ModeAcceptEdits, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/p/.git/config"}, permission.AskUser},
		{permission.ModeBypass, []string{"Edit"}, "Write", permission.ClassEdit, permission.Subject{Path: "/p/x/.GIT/hooks/pre-push"}, permission.AskUser},
		{permission.ModeBypass, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/p/cfg", Real: "/p/.git/config"}, permission.AskUser},
		{permission.ModeAcceptEdits, []string{"Edit(/home/u/**)"}, "Edit", permission.ClassEdit, permission.Subject{Path: "/home/u/.claude/settings.json"}, permission.AskUser},
		{permission.ModeAsk, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/p/.git/config"}, permission.Deny}, // the deny rule
		{permission.ModeAcceptEdits, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/p/src/a.go"}, permission.Allow},
		{permission.ModeAcceptEdits, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/extra/a.go"}, permission.Allow},
		{permission.ModeAcceptEdits, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/home/u/a.go"}, permission.AskUser},
		{permission.ModeAcceptEdits, nil, "Edit", permission.ClassEdit, permission.Subject{Path: "/p/link", Real: "/home/u/a.go"}, permission.AskUser},
		{permission.ModeAsk, nil, "Read", permission.ClassRead, permission.Subject{Path: "/p/src/a.go"}, permission.Allow},
		{permission.ModeAsk, nil, "Grep", permission.ClassRead, permission.Subject{Path: "/extra"}, permission.Allow},
		{permission.ModeAsk, nil, "Read", permission.ClassRead, permission.Subject{Path: "/home/u/.ssh/id_ed25519"}, permission.AskUser},
		{permission.ModeAsk, nil, "Glob", permission.ClassRead, permission.Subject{Path: "/"}, permission.AskUser},
		{permission.ModeAsk, nil, "Read", permission.ClassRead, permission.Subject{Path: "/p/keys", Real: "/home/u/.ssh"}, permission.AskUser},
		{permission.ModeAsk, nil, "Read", permission.ClassRead, permission.Subject{Path: "/pp/x"}, permission.AskUser},
		{permission.ModeAsk, []string{"Read(~/.ssh/**)"}, "Read", permission.ClassRead, permission.Subject{Path: "/home/u/.ssh/id_ed25519"}, permission.Allow},
		{permission.ModeBypass, nil, "Read", permission.ClassRead, permission.Subject{Path: "/home/u/.ssh/id_ed25519"}, permission.Allow},
	} {
		deny := []string{"Edit(//p/.git/config)"}
		if tt.mode != permission.ModeAsk {
			deny = nil
		}
		p, err := permission.New(tt.mode, tt.allow, deny, "/p", "/home/u")
		if err != nil {
			t.Fatal(err)
		}
		p.Protected, p.Dirs = env.Protected, []string{"/extra"}
		if got, why := p.Check(tt.tool, tt.c, tt.s); got != tt.want {
			t.Errorf("%s %s %+v with %q = %v (%s), want %v", tt.mode, tt.tool, tt.s, tt.allow, got, why, tt.want)
		}
	}
}

// A tool works on the file the permission check saw: a link repointed between the check and
// the tool (into .git, say) makes a Read or Grep fail instead of reading there; a Write
// through a link that led nowhere replaces the link (the write is a rename), so it does not
// land in .git either.
func TestToolRefusesALinkSwappedAfterTheCheck(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("notes.txt", "notes\n")
	f.write(".git/config", "[core]\n")
	f.write(".git/hooks/README", "hooks\n")
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeAcceptEdits}})
	fe := a.forks.newEnv()
	for _, tt := range []struct {
		tool         string
		input        string
		before, next string // what the link "it" names at the check and at the run
		refused      bool
	}{
		{"Write", `{"file_path":"it","content":"#!/bin/sh\ntouch pwned\n"}`, "new.txt", ".git/hooks/pre-commit", false},
		{"Read", `{"file_path":"it"}`, "notes.txt", ".git/config", true},
		{"Grep", `{"pattern":"core","path":"it"}`, "notes.txt", ".git/config", true},
	} {
		link := filepath.Join(f.dir, "it")
		os.Remove(link)
		if err := os.Symlink(tt.before, link); err != nil {
			t.Skip("no symlinks:", err)
		}
		c, err := tool.Decode(fe, tt.tool, []byte(tt.input))
		if err != nil {
			t.Fatal(err)
		}
		s := permission.SubjectOf(c)
		t2 := a.tools.Get(tt.tool)
		if d, why := a.perms.Check(t2.Name, t2.Class, s); d != permission.Allow {
			t.Fatalf("%s of the link before the swap = %v (%s), want Allow", tt.tool, d, why)
		}
		if err := os.Remove(link); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tt.next, link); err != nil {
			t.Fatal(err)
		}
		out, err := t2.Run(permission.WithChecked(context.Background(), s), fe, c)
		refused := err != nil && strings.Contains(err.Error(), "not to the file the permission check saw")
		if refused != tt.refused || strings.Contains(out, "core") {
			t.Errorf("%s after the swap = %q, %v; want refused %v", tt.tool, out, err, tt.refused)
		}
		if fi, err := os.Lstat(link); tt.tool == "Write" && (err != nil || !fi.Mode().IsRegular()) {
			t.Errorf("the Write did not replace the link with a file: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(f.dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a hook was written through the swapped link")
	}

}

// A fork cannot be asked for, so its Read, Grep or Glob outside the project is refused (the
// extractor would otherwise read ~/.ssh and could save it as a memory); the project, the
// memory directory and the session's own files stay open to it.
func TestForkReadsStayInTheProject(t *testing.T) {
	f := newFixture(t, llmtest.Anthropic)
	f.write("main.go", "package main\n")
	key := filepath.Join(f.env.UserHome, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a := f.agent(Options{Open: workspace.Options{Mode: permission.ModeBypass}})
	memDir, err := a.opts.Workspace.MemoryDir()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(memDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(memDir, "MEMORY.md"), []byte("- index\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(a.opts.Workspace.TranscriptDir(), "s1", "session-memory", "summary.md")
	if err := os.MkdirAll(filepath.Dir(notes), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("# notes\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool    string
		input   string
		refused bool
	}{
		{"Read", `{"file_path":"~/.ssh/id_ed25519"}`, true},
		{"Grep", `{"pattern":"PRIVATE","path":"~/.ssh"}`, true},
		{"Glob", `{"pattern":"**","path":"~/"}`, true},
		{"Read", `{"file_path":"main.go"}`, false},
		{"Read", `{"file_path":"` + filepath.Join(memDir, "MEMORY.md") + `"}`, false},
		{"Read", `{"file_path":"` + notes + `"}`, false},
	} {
		out, _, denied := forkCall(a, tt.tool, tt.input)
		if denied != tt.refused || strings.Contains(out, "PRIVATE") {
			t.Errorf("a fork's %s %s = %q (denied %v), want denied %v", tt.tool, tt.input, out, denied, tt.refused)
		}
	}
}
