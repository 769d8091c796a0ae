package tool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/shell"
)

// gitOverrides are configuration values that an unattended shell gives git on its command
// line scope (GIT_CONFIG_COUNT), above anything a repository's own configuration says: no
// file system monitor, no hooks, no pager, no signature checks, no look into submodules
// (whose configuration the overrides might not reach).
var gitOverrides = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", os.DevNull},
	{"core.pager", "cat"},
	{"log.showSignature", "false"},
	{"diff.ignoreSubmodules", "all"},
	{"status.submoduleSummary", "false"},
	{"submodule.recurse", "false"},
}

// unattendedEnv returns environ for a shell no one watches (a fork's: the memory extractor's
// read-only commands): every GIT_* variable removed (they could point git at another
// repository, configuration or program), system and global git configuration off, pagers
// set to cat, no terminal prompts, no optional index writes, and gitOverrides on top.
func unattendedEnv(environ []string) []string {
	out := make([]string, 0, len(environ)+12+2*len(gitOverrides))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "PAGER" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_ATTR_NOSYSTEM=1",
		"GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1",
		"GIT_CONFIG_COUNT="+strconv.Itoa(len(gitOverrides)))
	for i, kv := range gitOverrides {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return out
}

// runsGit reports whether command runs git anywhere (by the one shell analyser; a command it
// cannot read counts as running git).
func runsGit(command string) bool {
	s, err := shell.Parse(command)
	if err != nil {
		return true
	}
	for _, c := range s.Commands {
		if len(c.Words) > 0 && path.Base(c.Words[0].Text) == "git" {
			return true
		}
	}
	return false
}

// gitProgramKey reports whether a git configuration key (lower case, as git config --list
// prints it) names a program git would run for a reading command: an external diff, a
// textconv or diff driver, a clean/smudge filter, a signature checker, a pager for one
// command. gitOverrides cannot reach these (their names are the repository's to choose), so
// the unattended shell refuses to run git in such a repository instead.
func gitProgramKey(key string) bool {
	section, rest, _ := strings.Cut(key, ".")
	last := rest[strings.LastIndexByte(rest, '.')+1:]
	switch section {
	case "diff":
		return key == "diff.external" || strings.Contains(rest, ".") && (last == "textconv" || last == "command")
	case "filter":
		return last == "clean" || last == "smudge" || last == "process"
	case "gpg":
		return last == "program"
	case "pager":
		return true
	}
	return false
}

// gitConfigCheck lists the configuration git would read in dir under env and returns an
// error naming the first key that runs a program (gitProgramKey); nil when there is none or
// git is not installed.
func gitConfigCheck(ctx context.Context, dir string, env []string) error {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil // the command will fail on its own
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, git, "config", "--list", "--includes", "--name-only")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil // no configuration to read (git config exits non-zero on some versions then)
		}
		return fmt.Errorf("cannot check the repository's git configuration: %v", err)
	}
	for _, key := range strings.Split(string(out), "\n") {
		if key = strings.ToLower(strings.TrimSpace(key)); key != "" && gitProgramKey(key) {
			return fmt.Errorf("refused: this repository's git configuration sets %s, which makes git run a program; a background fork does not run git here", key)
		}
	}
	return nil
}
