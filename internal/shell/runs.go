package shell

import (
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// run is what a command runs through its arguments: the words from index at on, or (script)
// the text of a script held in the words from at on.
type run struct {
	at     int
	words  []Word
	script bool
	text   string
}

// maxStarts bounds the readings of a runner's options; more is a SyntaxError.
const maxStarts = 8

// options describes a runner's options, enough to find where the command it runs begins.
type options struct {
	arg      string   // short options that take an argument (the rest of the word, or the next word)
	flag     string   // short options that take none
	attached string   // short options whose optional argument can only be the rest of the word
	longArg  []string // long options that take an argument (--name=v or --name v)
	longFlag []string // long options that take none
	assigns  bool     // NAME=value words may stand before the command
	skip     []string // words skipped as they are (env's "-")
	lead     int      // operands before the options (setarch's ARCH)
	operands int      // operands between the options and the command (timeout's DURATION)
}

// runners are the commands that run the command that follows their options.
var runners = sync.OnceValue(func() map[string]options {
	return map[string]options{
		"command": {flag: "pvV"},
		"--":      {}, // bash's "time -p -- cmd": the end of the keyword's options
		"builtin": {},
		"exec":    {arg: "a", flag: "cl"},
		"nohup":   {},
		"setsid":  {flag: "cfw", longFlag: []string{"--ctty", "--fork", "--wait"}},
		"nice":    {arg: "n", flag: "0123456789", longArg: []string{"--adjustment"}},
		"timeout": {arg: "sk", flag: "v", longArg: []string{"--signal", "--kill-after"},
			longFlag: []string{"--preserve-status", "--foreground", "--verbose"}, operands: 1},
		"prlimit": {arg: "po", attached: "cdefilmnqrstuvxyR", longArg: []string{"--pid", "--output"},
			longFlag: []string{"--noheadings", "--raw", "--verbose"}},
		"setarch": {lead: 1, flag: "vRFZLBXST3", longFlag: []string{"--verbose", "--uname-2.6"}},
		"linux32": {flag: "vRFZLBXST3"},
		"linux64": {flag: "vRFZLBXST3"},
		"taskset": {flag: "acpv", longFlag: []string{"--all-tasks", "--cpu-list", "--pid", "--verbose"}, operands: 1},
		"ionice":  {arg: "cnpPu", flag: "t", longArg: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}},
		"chrt":    {flag: "abdefiorv", arg: "TPD", operands: 1},
		"busybox": {},
		"ld.so": {longArg: []string{"--library-path", "--preload", "--audit", "--argv0", "--inhibit-rpath",
			"--glibc-hwcaps-prepend", "--glibc-hwcaps-mask"}},
		"stdbuf": {arg: "ioe", longArg: []string{"--input", "--output", "--error"}},
		"time": {arg: "fo", flag: "apqv", longArg: []string{"--format", "--output"},
			longFlag: []string{"--append", "--portability", "--quiet", "--verbose"}},
		"env": {arg: "uCS", flag: "i0v", longArg: []string{"--unset", "--chdir", "--split-string"},
			longFlag: []string{"--ignore-environment", "--null", "--debug"}, assigns: true, skip: []string{"-"}},
		"sudo": {arg: "CDghprRtTUu", flag: "AbEeHiKklLnPSsVv", assigns: true,
			longArg: []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--host", "--role",
				"--type", "--command-timeout", "--other-user", "--chroot"},
			longFlag: []string{"--askpass", "--background", "--bell", "--preserve-env", "--edit", "--set-home",
				"--login", "--remove-timestamp", "--reset-timestamp", "--list", "--non-interactive",
				"--preserve-groups", "--stdin", "--shell", "--validate"}},
		"doas": {arg: "uC", flag: "nsL"},
		"xargs": {arg: "adEILnPs", flag: "0oprtx", attached: "eil",
			longArg: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"},
			longFlag: []string{"--null", "--no-run-if-empty", "--verbose", "--exit", "--interactive", "--open-tty",
				"--show-limits", "--eof", "--replace", "--max-lines"}},
	}
})

// commandFlags are, per program, the options whose value is a command it runs (go test
// -exec, git rebase --exec, rg --pre, tar --to-command, rsync -e, sort --compress-program).
var commandFlags = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"go": {"-exec", "-toolexec", "-vettool"},
		"git": {"--exec", "-x", "--upload-pack", "--receive-pack", "-O", "--open-files-in-pager",
			"--extcmd", "--tool"},
		"rg":    {"--pre"},
		"tar":   {"--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script", "--new-volume-script"},
		"rsync": {"-e", "--rsh"},
		"sort":  {"--compress-program"},
	}
})

// shells are the programs whose -c option takes a script.
var shells = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true, "mksh": true}
})

// IsShell reports whether the program named (a path or a base name) is a shell whose -c
// option takes a script (sh, bash, dash, zsh, ksh, ash, mksh).
func IsShell(name string) bool { return shells()[base(name)] }

// runnerName is the name a program goes by in runners: its base name, and "ld.so" for the
// dynamic loader under any of its names (ld-linux-x86-64.so.2, ld-musl-x86_64.so.1).
func runnerName(name string) string {
	n := base(name)
	if strings.HasPrefix(n, "ld-") && strings.Contains(n, ".so") || strings.HasPrefix(n, "ld.so") {
		return "ld.so"
	}
	return n
}

// assignment reports whether w is NAME=value or NAME+=value.
func assignment(w string) bool {
	i := strings.IndexByte(w, '=')
	return i > 0 && syntax.ValidName(strings.TrimSuffix(w[:i], "+"))
}

// ReadsRuns reports whether the analyser reads what a program named name (a path or a base
// name) runs through its arguments (a Command's Runs): shells' -c, eval, find -exec, the
// runners (env, sudo, xargs, nice …) and the command options of commandFlags. For other
// programs that run commands (ssh, flock, awk …) Runs is empty.
func ReadsRuns(name string) bool {
	name = runnerName(name)
	_, runner := runners()[name]
	return runner || name == "find" || name == "eval" || shells()[name] || commandFlags()[name] != nil
}

// runsOf lists what a command with words ws runs through its arguments; ok is false when the
// options can be read in too many ways.
func runsOf(ws []Word) (runs []run, ok bool) {
	if len(ws) == 0 {
		return nil, true
	}
	name := runnerName(ws[0].Text)
	switch {
	case name == "find":
		return findRuns(ws), true
	case shells()[name]:
		return shellRuns(ws), true
	case name == "eval":
		if len(ws) < 2 {
			return nil, true
		}
		texts := make([]string, 0, len(ws)-1)
		for _, w := range ws[1:] {
			texts = append(texts, w.Text)
		}
		return []run{{at: 1, script: true, text: strings.Join(texts, " ")}}, true
	case commandFlags()[name] != nil:
		flags := commandFlags()[name]
		if name == "git" {
			has := func(sub string) bool { return slices.ContainsFunc(ws, func(w Word) bool { return w.Text == sub }) }
			flags = slices.DeleteFunc(slices.Clone(flags), func(f string) bool {
				return f == "-x" && !has("rebase") || f == "-O" && !has("grep") // other meanings elsewhere
			})
		}
		for i := 1; i < len(ws); i++ {
			w := ws[i].Text
			if name == "go" && strings.HasPrefix(w, "--") {
				w = w[1:] // the flag package takes -exec and --exec alike
			}
			for _, f := range flags {
				if w == f && i+1 < len(ws) {
					runs = append(runs, run{at: i + 1, script: true, text: strings.TrimPrefix(ws[i+1].Text, "exec=")})
				} else if cmd, ok := strings.CutPrefix(w, f+"="); ok && strings.HasPrefix(f, "--") || ok && name == "go" {
					runs = append(runs, run{at: i, script: true, text: strings.TrimPrefix(cmd, "exec=")})
				}
			}
		}
		return runs, true
	}
	o, isRunner := runners()[name]
	if !isRunner {
		return nil, true
	}
	var starts []int
	o.starts(ws, 1+o.lead, &starts, map[int]bool{})
	if len(starts) > maxStarts {
		return nil, false
	}
	slices.Sort(starts)
	if name == "command" && slices.ContainsFunc(ws[1:min(first(starts), len(ws))], func(w Word) bool {
		return strings.HasPrefix(w.Text, "-") && strings.ContainsAny(w.Text, "vV")
	}) {
		return nil, true // command -v and -V describe a command, they do not run it
	}
	for _, s := range starts {
		s += o.operands
		if s < len(ws) {
			runs = append(runs, run{at: s, words: ws[s:len(ws):len(ws)]})
		}
	}
	if name == "env" {
		runs = append(runs, splitString(ws, starts)...)
	}
	return runs, true
}

// first returns the first of the sorted starts, or a number past every word when there is
// none.
func first(starts []int) int {
	if len(starts) == 0 {
		return 1 << 30
	}
	return starts[0]
}

// starts appends to out the indexes where the command may begin, reading options from i on.
// An option it does not know may or may not take an argument: both readings are followed.
func (o options) starts(ws []Word, i int, out *[]int, seen map[int]bool) {
	for i < len(ws) {
		if seen[i] {
			return // read from here already
		}
		seen[i] = true
		w := ws[i].Text
		switch {
		case w == "--":
			if i+1 < len(ws) && !slices.Contains(*out, i+1) {
				*out = append(*out, i+1)
			}
			return
		case slices.Contains(o.skip, w) || o.assigns && assignment(w):
			i++
		case strings.HasPrefix(w, "--"):
			name, _, eq := strings.Cut(w, "=")
			switch {
			case eq || slices.Contains(o.longFlag, name):
				i++
			case slices.Contains(o.longArg, name):
				i += 2
			default:
				o.starts(ws, i+2, out, seen)
				i++
			}
		case len(w) > 1 && w[0] == '-':
			next := i + 1
		letters:
			for j := 1; j < len(w); j++ {
				last := j == len(w)-1
				switch l := w[j]; {
				case strings.IndexByte(o.arg, l) >= 0:
					if last {
						next = i + 2
					}
					break letters
				case strings.IndexByte(o.attached, l) >= 0:
					break letters
				case strings.IndexByte(o.flag, l) >= 0:
				case last:
					o.starts(ws, i+2, out, seen) // it may take the next word
				default:
					o.starts(ws, i+1, out, seen) // the rest of the word may be its argument
				}
			}
			i = next
		default:
			if !slices.Contains(*out, i) {
				*out = append(*out, i)
			}
			return
		}
	}
}

// splitString returns the script of env -S / --split-string, read before the command starts.
func splitString(ws []Word, starts []int) []run {
	end := first(starts)
	for i := 1; i < len(ws) && i < end; i++ {
		w := ws[i].Text
		switch {
		case w == "--split-string" || w == "-S":
			if i+1 < len(ws) {
				return []run{{at: i + 1, script: true, text: ws[i+1].Text}}
			}
		case strings.HasPrefix(w, "--split-string="):
			return []run{{at: i, script: true, text: strings.TrimPrefix(w, "--split-string=")}}
		case strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "S"):
			rest := w[strings.IndexByte(w, 'S')+1:]
			if rest != "" {
				return []run{{at: i, script: true, text: rest}}
			}
			if i+1 < len(ws) {
				return []run{{at: i + 1, script: true, text: ws[i+1].Text}}
			}
		}
	}
	return nil
}

// findRuns returns the commands of find's -exec, -execdir, -ok and -okdir (up to ";" or "+").
func findRuns(ws []Word) []run {
	var runs []run
	for i := 1; i < len(ws); i++ {
		switch ws[i].Text {
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(ws) && ws[end].Text != ";" && ws[end].Text != "+" {
				end++
			}
			if end > i+1 {
				runs = append(runs, run{at: i + 1, words: ws[i+1 : end : end]})
			}
			i = end
		}
	}
	return runs
}

// shellRuns returns the script of sh -c SCRIPT (and bash, dash, zsh …), after the options.
func shellRuns(ws []Word) []run {
	c := false
	i := 1
	for i < len(ws) {
		w := ws[i].Text
		if w == "--" || w == "-" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' && w[0] != '+' {
			break
		}
		i++
		if w[1] == '-' {
			if w == "--rcfile" || w == "--init-file" {
				i++
			}
			continue
		}
		c = c || w[0] == '-' && strings.Contains(w, "c")
		if strings.ContainsAny(w, "oO") {
			i++ // -o OPTION
		}
	}
	if !c || i >= len(ws) {
		return nil
	}
	return []run{{at: i, script: true, text: ws[i].Text}}
}
