package shell

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// flags is the table entry of one program, or of one subcommand of a program ("git log"):
// the options known to be safe. Whatever is not listed is unknown, so an option nobody
// thought of (or an abbreviation of a long one, "--outp=x") cannot make the program write,
// run something or look at another configuration without a question.
type flags struct {
	short    string   // short options that take no argument; they may be joined (-la)
	shortArg string   // short options that take an argument (-n5 or -n 5)
	attached string   // short options whose optional argument can only be the rest of the word (-M50%)
	long     []string // long options; "--name=" takes a value (--name=v or --name v), "--name?" may (--name or --name=v)
	number   bool     // -NUM is allowed (head -5, grep -3)
	operands int      // most operands (file names, patterns …); -1: any
	words    bool     // every word is text (echo, printf, test): nothing is an option that acts
	goStyle  bool     // go's flag package: -name or --name, never bundled; long lists "-name" and "-name="
	script   bool     // the first operand is a program in the tool's own language (sed's script)
	bundled  bool     // a first argument without "-" is bundled option letters (tar xzf)
	readOnly bool     // the program (with these options) only reads: the extractor may run it
	inert    bool     // no option of the program writes or runs anything: a glob may stand anywhere
	// extra checks what the lists cannot say (date's operand, make's VAR=value); args
	// from index from on are beyond a rule's prefix.
	extra func(args []Word, from int) string
}

// table is the one table of known programs, shared by the permission check (what a prefix
// rule covers, which prefix "don't ask again" offers) and the extractor (what only reads).
var table = sync.OnceValue(func() map[string]*flags {
	t := map[string]*flags{}
	for name, f := range readers() {
		f.readOnly, f.inert = true, !slices.Contains(globRisky, name)
		t[name] = &f
	}
	for sub, f := range gitReaders() {
		f.readOnly = true
		t["git "+sub] = &f
	}
	for key, f := range writers() {
		t[key] = &f
	}
	return t
})

// globRisky are the readers with options that write or run something: a file name expanded
// from a glob could be such an option ("-delete", "--pre=sh").
var globRisky = []string{"find", "sort", "rg", "tree", "file", "date", "hostname", "uniq"}

// lookup returns the table entry a command falls under, its key ("ls", "git log") and how
// many words name it (1 or 2); nil when the table does not know it. A program given by path
// is not known.
func lookup(ws []Word) (key string, f *flags, n int) {
	if len(ws) == 0 || strings.ContainsAny(ws[0].Text, `/\`) {
		return "", nil, 0
	}
	name := ws[0].Text
	if len(ws) > 1 {
		if f := table()[name+" "+ws[1].Text]; f != nil {
			return name + " " + ws[1].Text, f, 2
		}
	}
	if f := table()[name]; f != nil {
		return name, f, 1
	}
	return "", nil, 0
}

// Known returns the table key of a command ("ls", "git log", "go test") and how many of its
// words name it; "" when the table does not know the program (or the subcommand). A prefix
// rule is offered only for a known command.
func Known(ws []Word) (key string, n int) {
	key, _, n = lookup(ws)
	return key, n
}

// Safe returns why the words of a simple command from index from on are not all plain
// operands or options on the known-safe list of its program (and subcommand); "" when they
// are. The words before from are the ones a rule names: they are read (an option there may
// take the next word) but not judged. A program the table does not know has no safe
// options: every option beyond from is unknown.
func Safe(ws []Word, from int) string {
	key, f, n := lookup(ws)
	if f == nil {
		return unknownArgs(ws, max(from, 1))
	}
	return f.check(key, ws[n:], max(from-n, 0))
}

// ReadOnly returns why a simple command is not one that only reads (a reader of the table,
// or git with a reading subcommand, with known-safe options only); "" when it is.
func ReadOnly(ws []Word) string {
	if len(ws) == 0 {
		return "empty command"
	}
	if strings.ContainsAny(ws[0].Text, `/\`) {
		return fmt.Sprintf("%q is a path to a program; only programs on the read-only list, by name, may run", ws[0].Text)
	}
	if ws[0].Text == "git" {
		return readOnlyGit(ws)
	}
	key, f, n := lookup(ws)
	if f == nil || !f.readOnly {
		if key == "" {
			key = ws[0].Text
		}
		return fmt.Sprintf("%q is not on the list of read-only programs", key)
	}
	return f.check(key, ws[n:], 0)
}

// unknownArgs refuses the options of a program the table does not know, and the globs that
// could expand into one.
func unknownArgs(ws []Word, from int) string {
	for i := 1; i < len(ws); i++ {
		a := ws[i]
		switch {
		case a.Text == "--":
			return globArgs(ws[0].Text, ws[max(i+1, from):])
		case i < from:
		case strings.HasPrefix(a.Text, "-") && a.Text != "-":
			return fmt.Sprintf("%s option %s is not on a list of known-safe options", ws[0].Text, a.Text)
		case a.Glob && mayBeOption(a):
			return fmt.Sprintf("%s: the glob %q could expand into an option", ws[0].Text, a.Text)
		}
	}
	return ""
}

// globArgs refuses a glob among ws that could expand into an option.
func globArgs(prog string, ws []Word) string {
	for _, a := range ws {
		if a.Glob && mayBeOption(a) {
			return fmt.Sprintf("%s: the glob %q could expand into an option", prog, a.Text)
		}
	}
	return ""
}

// check reads args by the table; it returns why it refuses an argument from index from on,
// or "".
func (f *flags) check(prog string, args []Word, from int) string {
	if f.words {
		return f.extras(args, from)
	}
	operands, script := 0, f.script
	operand := func(i int, afterDashes bool) string {
		operands++
		switch {
		case script && i >= from:
			return fmt.Sprintf("the first operand of %s is a program in its own language; only a rule naming it covers it", prog)
		case i >= from && !afterDashes && args[i].Glob && !f.inert && mayBeOption(args[i]):
			return fmt.Sprintf("%s: the glob %q could expand into an option", prog, args[i].Text)
		}
		script = false
		return ""
	}
	unknown := func(i int, opt string) string {
		if i < from {
			return ""
		}
		return fmt.Sprintf("%s option %s is not on its list of known-safe options", prog, opt)
	}
	value := func(i int) string { // the word at i is an option's value, taken unread
		return globValue(prog, args, i, from)
	}
	for i := 0; i < len(args); i++ {
		a := args[i].Text
		var why string
		switch {
		case a == "--":
			for j := i + 1; j < len(args) && why == ""; j++ {
				why = operand(j, true)
			}
			i = len(args)
		case f.bundled && i == 0 && !strings.HasPrefix(a, "-"):
			for _, c := range []byte(a) {
				switch {
				case strings.IndexByte(f.shortArg, c) >= 0:
					i++
					why = cmp.Or(why, value(i))
				case strings.IndexByte(f.short, c) < 0 && why == "":
					why = unknown(0, "-"+string(c))
				}
			}
		case a == "-" || !strings.HasPrefix(a, "-"):
			why = operand(i, false)
		case f.goStyle || strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a, "=")
			if f.goStyle {
				name = "-" + strings.TrimLeft(name, "-")
			}
			switch {
			case slices.Contains(f.long, name+"="):
				if !hasValue {
					i++
					why = value(i)
				}
			case slices.Contains(f.long, name+"?"), slices.Contains(f.long, name) && (!hasValue || f.goStyle):
			default:
				why = unknown(i, name)
			}
		case f.number && strings.Trim(a[1:], "0123456789") == "":
		default:
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte(f.shortArg, c) >= 0 {
					if j == len(a)-1 {
						i++ // the argument is the next word
						why = value(i)
					}
					break
				}
				if strings.IndexByte(f.attached, c) >= 0 {
					break
				}
				if strings.IndexByte(f.short, c) < 0 {
					why = unknown(i, "-"+string(c))
					break
				}
			}
		}
		if why != "" {
			return why
		}
	}
	if f.operands >= 0 && operands > f.operands {
		if f.operands == 0 {
			return fmt.Sprintf("%s takes no operands here (with one it changes something)", prog)
		}
		return fmt.Sprintf("%s with more than %d operand(s) writes the last one", prog, f.operands)
	}
	return f.extras(args, from)
}

// globValue refuses the word at i, an option's value, when it is a glob: bash may make it
// several words (find -name {x,-delete}; a file named -delete for *), the later ones options
// never read as such.
func globValue(prog string, args []Word, i, from int) string {
	if i < from || i >= len(args) || !args[i].Glob {
		return ""
	}
	return fmt.Sprintf("%s: the glob %q, an option's value, could expand into more words and options", prog, args[i].Text)
}

// extras runs the entry's extra check, if it has one.
func (f *flags) extras(args []Word, from int) string {
	if f.extra == nil {
		return ""
	}
	return f.extra(args, from)
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

// readers are the programs that only read, and the options each may be given. Left out on
// purpose: find -exec/-delete/-fprint (find has its own check), sort -o and
// --compress-program, tree -o and -R, file -C, date -s, hostname's operand and -F, tail -f,
// rg --pre and --search-zip, jq's --arg family, uniq's second operand.
func readers() map[string]flags {
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
		"echo":     {words: true}, "printf": {words: true, extra: checkPrintf}, "true": {words: true}, "false": {words: true},
		"test": {words: true, extra: checkTest}, "[": {words: true, extra: checkTest},
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
		"find":    {words: true, extra: checkFind},
		"date": {extra: checkDate, short: "uRI", shortArg: "dfr", operands: -1, long: []string{"--date=", "--utc", "--universal",
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
	}
}

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
func checkFind(args []Word, from int) string {
	for i := 0; i < len(args); i++ {
		a := args[i].Text
		if n, ok := findPrimaries()[a]; ok {
			for range n {
				i++
				if why := globValue("find", args, i, from); why != "" {
					return why
				}
			}
			continue
		}
		if strings.HasPrefix(a, "-newer") && len(a) == 8 { // -newerXY REF
			i++
			if why := globValue("find", args, i, from); why != "" {
				return why
			}
			continue
		}
		if i >= from && (strings.HasPrefix(a, "-") || args[i].Glob && mayBeOption(args[i])) {
			return fmt.Sprintf("find %s is not on the list of read-only find primaries", a)
		}
	}
	return ""
}

// checkDate refuses date's operand unless it is a +FORMAT (one without sets the clock).
func checkDate(args []Word, from int) string {
	for _, a := range args[min(from, len(args)):] {
		if !strings.HasPrefix(a.Text, "-") && !strings.HasPrefix(a.Text, "+") {
			return "date " + a.Text + " sets the clock"
		}
	}
	return ""
}

// checkPrintf refuses printf -v, which sets a shell variable (PATH, say) that later commands use.
func checkPrintf(args []Word, from int) string {
	if len(args) > 0 && from == 0 && strings.HasPrefix(args[0].Text, "-v") {
		return "printf -v sets a shell variable (PATH, say) that later commands use"
	}
	return ""
}

// checkTest refuses test -v and -R, which evaluate an array subscript that may set a variable.
func checkTest(args []Word, from int) string {
	for _, a := range args[min(from, len(args)):] {
		if a.Text == "-v" || a.Text == "-R" {
			return "test -v evaluates an array subscript, which may set a shell variable (test -v 'a[PATH=0]')"
		}
	}
	return ""
}

// checkMake refuses make's VAR=value operands: a variable (SHELL, CC, MAKEFLAGS) may name the
// program make runs.
func checkMake(args []Word, from int) string {
	for _, a := range args[min(from, len(args)):] {
		if !strings.HasPrefix(a.Text, "-") && strings.Contains(a.Text, "=") {
			return "make " + a.Text + " sets a variable, which may name a program make runs"
		}
	}
	return ""
}

// checkCurl refuses a header given as @FILE: curl sends the file's lines as headers.
func checkCurl(args []Word, from int) string {
	for i := min(from, len(args)); i < len(args); i++ {
		a := args[i].Text
		var v string
		switch {
		case a == "--header" && i+1 < len(args):
			v = args[i+1].Text
		case strings.HasPrefix(a, "--header="):
			v = strings.TrimPrefix(a, "--header=")
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			j := strings.IndexAny(a[1:], "HXAmr") + 1 // the first option that takes a value
			if j == 0 || a[j] != 'H' {
				continue
			}
			if v = a[j+1:]; v == "" && i+1 < len(args) {
				v = args[i+1].Text
			}
		}
		if strings.HasPrefix(v, "@") {
			return "curl -H " + v + " sends a file's lines as headers"
		}
	}
	return ""
}
