package shell

import (
	"slices"
	"strings"
	"sync"
)

// runsArgs are the programs that run what their arguments say: shells, interpreters,
// editors with a command line, programs that run other programs or scripts given in their
// arguments (awk's system(), GNU sed's e command, ssh's remote command), and package runners
// that fetch and run any package. A deny rule looks through the words of those it does not
// read (runsUnread); a prefix rule naming only one of those never covers it (Rule.Allows).
var runsArgs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "eval": true,
		"exec": true, "source": true, ".": true, "sudo": true, "doas": true, "su": true, "env": true,
		"xargs": true, "nohup": true, "timeout": true, "time": true, "nice": true, "command": true,
		"builtin": true, "watch": true, "python": true, "python3": true, "node": true, "ruby": true,
		"perl": true, "php": true, "lua": true, "osascript": true, "pwsh": true, "powershell": true,
		"ash": true, "mksh": true, "csh": true, "tcsh": true, "busybox": true, "cmd": true,
		"nodejs": true, "pypy": true, "ipython": true, "irb": true, "jshell": true, "java": true,
		"rscript": true, "tclsh": true, "wish": true, "expect": true, "luajit": true, "julia": true,
		"awk": true, "gawk": true, "mawk": true, "nawk": true, "sed": true, "gsed": true, "tar": true,
		"gtar": true, "ssh": true, "script": true, "flock": true, "chroot": true, "unshare": true,
		"nsenter": true, "ionice": true, "taskset": true, "chrt": true, "setsid": true, "stdbuf": true,
		"strace": true, "ltrace": true, "gdb": true, "lldb": true, "valgrind": true, "parallel": true,
		"tmux": true, "screen": true, "systemd-run": true, "dbus-run-session": true, "run0": true,
		"pkexec": true, "runuser": true, "at": true, "batch": true, "vim": true, "vi": true,
		"nvim": true, "emacs": true, "npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true,
		"ex": true, "view": true, "vimdiff": true, "rvim": true, "gvim": true, "nvi": true, "prlimit": true, "setarch": true,
		"linux32": true, "linux64": true, "ld.so": true, "setpriv": true, "sg": true, "firejail": true, "bwrap": true, "fakeroot": true, "proot": true,
		"caffeinate": true, "catchsegv": true, "torsocks": true, "proxychains": true, "chpst": true,
	}
})

// runsUnread reports whether a command with words ws runs what its arguments say in a way the
// analyser does not read: a program of runsArgs that ReadsRuns does not cover
// (ionice, ssh, awk …), an alias definition (which bash runs for a later line once
// expand_aliases is set), a hash -p entry or a trap, git given configuration on its command line (-c alias.x='!cmd',
// -c core.pager=cmd, --config-env), make given a makefile's text (--eval, -E), and a
// subcommand of runSubcommands (npm exec, poetry run, bundle exec, docker run, git submodule
// …), which runs the words after it, here or elsewhere.
func runsUnread(ws []Word) bool {
	if len(ws) == 0 {
		return false
	}
	name := ws[0].Text
	if runsAnything(name) && !ReadsRuns(name) {
		return true
	}
	base := base(name)
	has := func(match func(string) bool) bool {
		return slices.ContainsFunc(ws[1:], func(w Word) bool { return match(w.Text) })
	}
	if subs := runSubcommands()[base]; subs != nil && has(func(w string) bool { return slices.Contains(subs, w) }) {
		return true
	}
	switch base {
	case "alias", "hash", "trap":
		// shopt -s expand_aliases, then alias ls='rm' on one line runs rm on the next;
		// hash -p /bin/rm ls makes ls run rm; trap 'rm x' EXIT runs rm at the end.
		return true
	case "git":
		return has(func(w string) bool {
			return strings.HasPrefix(w, "-c") || strings.HasPrefix(w, "--config-env") || strings.HasPrefix(w, "--exec-path")
		})
	case "make", "gmake", "remake":
		return has(func(w string) bool {
			return strings.HasPrefix(w, "--eval") || strings.HasPrefix(w, "-E")
		})
	}
	return false
}

// runSubcommands are, per program, the subcommands that run a command, a package or code
// given in their arguments: package runners (npm exec, pnpm dlx, poetry run, uv run, bundle
// exec, nix run, go run pkg@version …), git's that run a command (submodule foreach, bisect
// run …), and a container's exec and run. A deny rule looks through their words
// (runsUnread), and no prefix rule is offered for them (noPrefixSubcommand).
var runSubcommands = sync.OnceValue(func() map[string][]string {
	containers := []string{"exec", "run", "debug", "compose"}
	return map[string][]string{
		"npm": {"exec", "x"}, "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"},
		"deno": {"eval", "run"}, "poetry": {"run"}, "uv": {"run", "tool"}, "pipenv": {"run"},
		"pdm": {"run"}, "hatch": {"run"}, "bundle": {"exec"}, "nix": {"run", "shell", "develop"},
		"mix": {"run"}, "go": {"run"},
		"git":    {"submodule", "bisect", "filter-branch", "difftool", "mergetool"},
		"docker": containers, "podman": containers, "nerdctl": containers, "kubectl": containers,
		"oc": containers, "lxc": containers, "incus": containers, "crictl": containers, "ctr": containers,
	}
})

// runsAnything reports whether the program named (as a command's first word) is one of
// runsArgs, under any of the names it goes by: a path, another case (a case-insensitive
// file system runs SH as sh), a .exe suffix, a version suffix (python3.12, node18, pypy3).
func runsAnything(program string) bool {
	n := runnerName(program)
	if runsArgs()[n] {
		return true
	}
	n = strings.TrimRight(n, "0123456789.-_")
	return n != "" && runsArgs()[n]
}
