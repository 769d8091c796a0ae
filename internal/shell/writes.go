package shell

import (
	"path"
	"slices"
	"strings"
	"sync"
)

// writeOptions are, per program, the options whose value names a file the program writes
// instead of (or besides) its standard output: what a rule approved for the program's usual
// use would not expect it to write. The short ones may be bundled ("curl -sSLo f"); the long
// ones may be abbreviated as far as "--ou" (git and GNU getopt take unique abbreviations).
var writeOptions = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"git":  {"--output", "--output-directory"},
		"sort": {"-o", "--output"},
		"tree": {"-o"},
		"curl": {"-o", "--output", "-O", "--remote-name", "--remote-name-all", "--output-dir", "-D",
			"--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl", "--stderr",
			"--etag-save", "--hsts", "--alt-svc"},
	}
})

// Writes returns the indexes in ws (a simple command's words) of the options that make its
// program write a file it names (writeOptions: git log --output=F, git format-patch -o DIR,
// sort -o F, tree -o F, curl -o F …; goWriteFlags: go build -o F, go test -coverprofile=F …),
// in order. The option is matched, not its value: a
// bundled or abbreviated option counts, so the list may hold more than the program reads,
// never less.
func Writes(ws []Word) []int {
	if len(ws) < 2 {
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(ws[0].Text, `\`, "/"))), ".exe")
	if name == "go" {
		return goWrites(ws)
	}
	opts := writeOptions()[name]
	if name == "git" && slices.ContainsFunc(ws[1:], func(w Word) bool { return w.Text == "format-patch" }) {
		opts = append(slices.Clip(opts), "-o")
	}
	if len(opts) == 0 {
		return nil
	}
	var at []int
	for i, w := range ws[1:] {
		if w.Text == "--" {
			break
		}
		if writesThrough(w.Text, opts) {
			at = append(at, i+1)
		}
	}
	return at
}

// writesThrough reports whether the word w is one of opts: a long option whole, abbreviated
// to at least "--ou", or with its "=value"; a short one alone, bundled after other letters,
// or with its value attached.
func writesThrough(w string, opts []string) bool {
	switch {
	case strings.HasPrefix(w, "--"):
		name, _, _ := strings.Cut(w, "=")
		return len(name) > 3 && slices.ContainsFunc(opts, func(o string) bool {
			return strings.HasPrefix(o, "--") && strings.HasPrefix(o, name)
		})
	case len(w) > 1 && w[0] == '-':
		return slices.ContainsFunc(opts, func(o string) bool {
			return len(o) == 2 && o[0] == '-' && strings.IndexByte(w[1:], o[1]) >= 0
		})
	}
	return false
}

// goWriteFlags are the go command's flags whose value names a file or directory it writes
// (go build -o, go test -coverprofile, -outputdir …), and the test binary's -test. forms that
// go test passes on.
var goWriteFlags = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{"o": true, "modfile": true}
	for _, f := range []string{"coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "outputdir"} {
		m[f], m["test."+f] = true, true
	}
	m["test.testlogfile"], m["test.gocoverdir"] = true, true
	return m
})

// goWrites is Writes for the go command, whose flag package takes a flag with one dash or
// two, its value after "=" or as the next word, never bundled or abbreviated. Every word is
// looked at, those after -args (the test binary's) too.
func goWrites(ws []Word) []int {
	var at []int
	for i, w := range ws[1:] {
		name, ok := strings.CutPrefix(w.Text, "-")
		if !ok {
			continue
		}
		name = strings.TrimPrefix(name, "-")
		name, _, _ = strings.Cut(name, "=")
		if goWriteFlags()[name] {
			at = append(at, i+1)
		}
	}
	return at
}
