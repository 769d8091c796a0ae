package extract

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// flags is the allow-list of a reading program's options: whatever is not listed is refused,
// so an option nobody thought of (or an abbreviation of a long one, "--outp=x") cannot make
// the program write, run something or look at another configuration.
type flags struct {
	short    string   // short options that take no argument; they may be joined (-la)
	shortArg string   // short options that take an argument (-n5 or -n 5)
	attached string   // short options whose optional argument can only be the rest of the word (-M50%)
	long     []string // long options; "--name=" takes a value (--name=v or --name v), "--name?" may (--name or --name=v)
	number   bool     // -NUM is allowed (head -5, grep -3)
	operands int      // most operands (file names, patterns …); -1: any
	words    bool     // every word is text (echo, printf, test): nothing is an option that acts
}

// check reads args by the allow-list; it returns why it refuses, or "".
func (f flags) check(prog string, args []string) string {
	if f.words {
		return ""
	}
	operands := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands += len(args) - i - 1
			i = len(args)
		case a == "-" || !strings.HasPrefix(a, "-"):
			operands++
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			switch {
			case slices.Contains(f.long, name+"="):
				if !hasValue {
					i++
				}
			case slices.Contains(f.long, name+"?"), slices.Contains(f.long, name) && !hasValue:
			default:
				return fmt.Sprintf("%s option %s is not on the extractor's list of read-only options", prog, name)
			}
		case f.number && strings.Trim(a[1:], "0123456789") == "":
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte(f.shortArg, c) >= 0 {
					if j == len(a)-1 {
						i++ // the argument is the next word
					}
					break
				}
				if strings.IndexByte(f.attached, c) >= 0 {
					break
				}
				if strings.IndexByte(f.short, c) < 0 {
					return fmt.Sprintf("%s option -%c is not on the extractor's list of read-only options", prog, c)
				}
			}
		}
	}
	if f.operands >= 0 && operands > f.operands {
		switch f.operands {
		case 0:
			return fmt.Sprintf("%s takes no operands here (with one it changes something)", prog)
		default:
			return fmt.Sprintf("%s with more than %d operand(s) writes the last one", prog, f.operands)
		}
	}
	return ""
}

// grepFlags are grep's read-only options (egrep and fgrep too).
var grepFlags = flags{short: "EFGPiyvwxcLlomqsbHhnTZzrRIaU", shortArg: "efABCmdD", number: true, operands: -1,
	long: []string{"--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp", "--regexp=", "--file=",
		"--ignore-case", "--no-ignore-case", "--word-regexp", "--line-regexp", "--null-data", "--no-messages",
		"--invert-match", "--count", "--color?", "--colour?", "--files-without-match", "--files-with-matches",
		"--max-count=", "--only-matching", "--quiet", "--silent", "--byte-offset", "--with-filename", "--no-filename",
		"--label=", "--line-number", "--initial-tab", "--null", "--after-context=", "--before-context=", "--context=",
		"--text", "--binary-files=", "--devices=", "--directories=", "--exclude=", "--exclude-from=", "--exclude-dir=",
		"--include=", "--recursive", "--dereference-recursive", "--line-buffered"}}

// sumFlags are the options of md5sum, sha1sum and sha256sum.
var sumFlags = flags{short: "bctwz", operands: -1, long: []string{"--check", "--binary", "--text", "--tag", "--quiet",
	"--status", "--strict", "--warn", "--zero", "--ignore-missing"}}

// programFlags are the extractor's reading programs and the options each may be given. Left
// out on purpose: find -exec/-delete/-fprint (find is read separately), sort -o and
// --compress-program, tree -o and -R, file -C, date -s, hostname's operand and -F, tail -f,
// rg --pre and --search-zip, jq's --arg family, uniq's second operand.
var programFlags = sync.OnceValue(func() map[string]flags {
	return map[string]flags{
		"ls": {short: "aAbBcCdfFghHiklLmnNopqQrRsStuUvxXZ1", shortArg: "ITw", operands: -1,
			long: []string{"--all", "--almost-all", "--human-readable", "--si", "--recursive", "--reverse", "--sort=",
				"--time=", "--time-style=", "--color?", "--classify?", "--full-time", "--group-directories-first",
				"--ignore=", "--width=", "--directory", "--dereference", "--inode", "--size", "--literal",
				"--quoting-style=", "--indicator-style=", "--format=", "--block-size="}},
		"cat": {short: "AbeEnstTuv", operands: -1, long: []string{"--number", "--number-nonblank", "--show-all",
			"--show-ends", "--show-tabs", "--squeeze-blank", "--show-nonprinting"}},
		"head": {short: "qvz", shortArg: "nc", number: true, operands: -1,
			long: []string{"--lines=", "--bytes=", "--quiet", "--silent", "--verbose", "--zero-terminated"}},
		"tail": {short: "qvz", shortArg: "nc", number: true, operands: -1,
			long: []string{"--lines=", "--bytes=", "--quiet", "--silent", "--verbose", "--zero-terminated"}},
		"wc": {short: "clmwL", operands: -1, long: []string{"--bytes", "--chars", "--lines", "--words",
			"--max-line-length", "--files0-from="}},
		"grep": grepFlags, "egrep": grepFlags, "fgrep": grepFlags,
		"rg": {short: "iSsFwxvcClLnNHIoqUu0.P", shortArg: "efgtTABCmMjdrE", operands: -1,
			long: []string{"--hidden", "--no-ignore", "--glob=", "--iglob=", "--type=", "--type-not=", "--files",
				"--files-with-matches", "--files-without-match", "--count", "--count-matches", "--line-number",
				"--no-line-number", "--heading", "--no-heading", "--with-filename", "--no-filename", "--max-count=",
				"--max-depth=", "--max-filesize=", "--follow", "--ignore-case", "--smart-case", "--case-sensitive",
				"--fixed-strings", "--word-regexp", "--line-regexp", "--invert-match", "--only-matching", "--context=",
				"--after-context=", "--before-context=", "--color=", "--json", "--vimgrep", "--sort=", "--sortr=",
				"--type-list", "--multiline", "--pcre2", "--trim", "--stats", "--regexp=", "--null", "--text",
				"--unrestricted", "--no-messages", "--quiet", "--column", "--replace=", "--encoding="}},
		"pwd":  {short: "LP"},
		"stat": {short: "LftZ", shortArg: "c", operands: -1, long: []string{"--format=", "--printf=", "--dereference", "--terse", "--file-system"}},
		"file": {short: "bLhiNkzZ0rs", shortArg: "Ffem", operands: -1, long: []string{"--brief", "--mime", "--mime-type",
			"--mime-encoding", "--dereference", "--no-dereference", "--files-from=", "--separator=", "--keep-going",
			"--extension", "--apple", "--raw"}},
		"du": {short: "abcDhHkLmlsSxP0", shortArg: "dBt", operands: -1, long: []string{"--max-depth=", "--summarize",
			"--human-readable", "--all", "--apparent-size", "--bytes", "--total", "--threshold=", "--exclude=",
			"--block-size=", "--si", "--inodes", "--one-file-system", "--dereference"}},
		"df": {short: "ahHiklPT", shortArg: "Btx", operands: -1, long: []string{"--human-readable", "--si", "--inodes",
			"--local", "--portability", "--print-type", "--total", "--block-size=", "--type=", "--exclude-type=", "--all"}},
		"tree": {short: "adlfixpsugDFqNrtvUCAJSnh", shortArg: "LPI", operands: -1, long: []string{"--dirsfirst",
			"--noreport", "--charset=", "--du", "--gitignore", "--prune", "--filelimit=", "--sort=", "--matchdirs", "--ignore-case"}},
		"realpath": {short: "eLmPqsz", operands: -1, long: []string{"--canonicalize-existing", "--canonicalize-missing",
			"--logical", "--physical", "--quiet", "--strip", "--no-symlinks", "--zero", "--relative-to=", "--relative-base="}},
		"readlink": {short: "efmnqsvz", operands: -1, long: []string{"--canonicalize", "--canonicalize-existing",
			"--canonicalize-missing", "--no-newline", "--quiet", "--silent", "--verbose", "--zero"}},
		"basename": {short: "az", shortArg: "s", operands: -1, long: []string{"--multiple", "--suffix=", "--zero"}},
		"dirname":  {short: "z", operands: -1, long: []string{"--zero"}},
		"echo":     {words: true}, "printf": {words: true}, "true": {words: true}, "false": {words: true},
		"test": {words: true}, "[": {words: true},
		"cut": {short: "nsz", shortArg: "bcdf", operands: -1, long: []string{"--bytes=", "--characters=", "--delimiter=",
			"--fields=", "--complement", "--only-delimited", "--output-delimiter=", "--zero-terminated"}},
		"tr": {short: "cCdst", operands: -1, long: []string{"--complement", "--delete", "--squeeze-repeats", "--truncate-set1"}},
		"nl": {short: "p", shortArg: "bdfhilnsvw", operands: -1},
		"diff": {short: "abBdEilNpqrsStTuwyZ", shortArg: "CUWxXIF", number: true, operands: -1,
			long: []string{"--brief", "--report-identical-files", "--unified?", "--context?", "--side-by-side", "--recursive",
				"--new-file", "--ignore-case", "--ignore-all-space", "--ignore-space-change", "--ignore-blank-lines", "--text",
				"--strip-trailing-cr", "--color?", "--exclude=", "--label=", "--normal", "--no-dereference",
				"--suppress-common-lines", "--minimal", "--expand-tabs", "--from-file=", "--to-file=", "--width=",
				"--show-function-line=", "--ignore-matching-lines=", "--speed-large-files"}},
		"cmp": {short: "blsv", shortArg: "in", operands: -1, long: []string{"--print-bytes", "--verbose", "--quiet",
			"--silent", "--bytes=", "--ignore-initial="}},
		"comm": {short: "123iz", operands: -1, long: []string{"--check-order", "--nocheck-order", "--output-delimiter=",
			"--total", "--zero-terminated"}},
		"jq": {short: "rjacnsSeCM", shortArg: "f", operands: -1, long: []string{"--raw-output", "--compact-output",
			"--slurp", "--null-input", "--sort-keys", "--exit-status", "--tab", "--indent=", "--join-output", "--ascii-output"}},
		"which":  {short: "a", operands: -1},
		"whoami": {},
		"id":     {short: "gGnruz", operands: -1},
		"uname": {short: "asnrvmpio", long: []string{"--all", "--kernel-name", "--nodename", "--kernel-release",
			"--kernel-version", "--machine", "--processor", "--hardware-platform", "--operating-system"}},
		"md5sum": sumFlags, "sha1sum": sumFlags, "sha256sum": sumFlags,
		"strings": {short: "afw", shortArg: "ntTe", number: true, operands: -1, long: []string{"--all", "--bytes=",
			"--radix=", "--encoding="}},
		"column":  {short: "tnxeJLr", shortArg: "csoNRTHlW", operands: -1},
		"od":      {short: "bcdfiloxsv", shortArg: "AjNSwt", operands: -1},
		"hexdump": {short: "bcCdovx", shortArg: "enfs", operands: -1},
		"date": {short: "uRI", shortArg: "dfr", operands: -1, long: []string{"--date=", "--utc", "--universal",
			"--iso-8601?", "--rfc-3339=", "--rfc-email", "--reference=", "--file="}},
		"hostname": {short: "afisIdA", operands: 0, long: []string{"--alias", "--fqdn", "--long", "--ip-address",
			"--all-ip-addresses", "--short", "--domain", "--all-fqdns"}},
		"tac":    {short: "br", shortArg: "s", operands: -1, long: []string{"--before", "--regex", "--separator="}},
		"rev":    {operands: -1},
		"fold":   {short: "bs", shortArg: "w", operands: -1, long: []string{"--bytes", "--spaces", "--width="}},
		"expand": {short: "i", shortArg: "t", number: true, operands: -1, long: []string{"--initial", "--tabs="}},
		"sort": {short: "bdfgiMhnRrVcCsuz", shortArg: "ktS", operands: -1, long: []string{"--key=", "--field-separator=",
			"--numeric-sort", "--reverse", "--unique", "--human-numeric-sort", "--version-sort", "--ignore-case", "--stable",
			"--check?", "--general-numeric-sort", "--month-sort", "--random-sort", "--zero-terminated",
			"--ignore-leading-blanks", "--dictionary-order", "--ignore-nonprinting", "--buffer-size=", "--files0-from="}},
		"uniq": {short: "cdDiuz", shortArg: "fsw", number: true, operands: 1, long: []string{"--count", "--repeated",
			"--all-repeated?", "--ignore-case", "--unique", "--skip-fields=", "--skip-chars=", "--check-chars=",
			"--zero-terminated", "--group?"}},
		// xargs: only its own options, before the command it runs (that command is checked apart).
		"xargs": {short: "0rtx", shortArg: "nILdPsE", operands: -1, long: []string{"--null", "--no-run-if-empty",
			"--max-args=", "--delimiter=", "--max-procs=", "--max-lines=", "--verbose", "--replace?", "--exit"}},
	}
})

// findPrimaries are find's read-only options, tests and actions, with how many arguments
// each takes. -exec, -execdir, -ok, -okdir, -delete, -fprint, -fprint0, -fprintf and -fls
// are not among them.
var findPrimaries = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"-H": 0, "-L": 0, "-P": 0, "-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1,
		"-regex": 1, "-iregex": 1, "-regextype": 1, "-type": 1, "-xtype": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1,
		"-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1, "-ctime": 1, "-cmin": 1, "-size": 1, "-perm": 1, "-user": 1,
		"-group": 1, "-uid": 1, "-gid": 1, "-links": 1, "-inum": 1, "-lname": 1, "-ilname": 1, "-samefile": 1,
		"-maxdepth": 1, "-mindepth": 1, "-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0, "-nouser": 0,
		"-nogroup": 0, "-print": 0, "-print0": 0, "-printf": 1, "-ls": 0, "-prune": 0, "-quit": 0, "-depth": 0,
		"-xdev": 0, "-mount": 0, "-follow": 0, "-noleaf": 0, "-daystart": 0, "-true": 0, "-false": 0, "-not": 0,
		"!": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0, "(": 0, ")": 0, ",": 0,
	}
})

// checkFind allows find's paths, then read-only primaries only.
func checkFind(args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if n, ok := findPrimaries()[a]; ok {
			i += n
			continue
		}
		if strings.HasPrefix(a, "-newer") && len(a) == 8 { // -newerXY REF
			i++
			continue
		}
		if strings.HasPrefix(a, "-") || a == "!" || a == "(" {
			return fmt.Sprintf("find %s is not on the extractor's list of read-only find options", a)
		}
	}
	return ""
}

// checkDate refuses date's operand unless it is a +FORMAT (one without sets the clock).
func checkDate(args []string) string {
	if why := programFlags()["date"].check("date", args); why != "" {
		return why
	}
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return "date " + a + " sets the clock"
		}
	}
	return ""
}

// checkGo allows go version, go doc and go env (without -w or -u).
func checkGo(args []string) string {
	if len(args) == 0 {
		return "go without a subcommand"
	}
	sub := map[string]flags{
		"version": {operands: -1, long: []string{"-m", "-v", "-json"}},
		"doc":     {operands: -1, long: []string{"-all", "-c", "-cmd", "-short", "-src", "-u"}},
		"env":     {operands: -1, long: []string{"-json", "-changed"}},
	}
	f, ok := sub[args[0]]
	if !ok {
		return fmt.Sprintf("go %s is not a read-only go command (version, doc, env)", args[0])
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") && !slices.Contains(f.long, a) {
			return fmt.Sprintf("go %s %s is not on the extractor's list of read-only options", args[0], a)
		}
	}
	return ""
}
