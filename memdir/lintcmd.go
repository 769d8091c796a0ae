package memdir

import (
	"regexp"
	"strings"
	"sync"
)

// commandPatterns find a line of a memory that tells the agent to run a command: text piped
// into a shell or an interpreter ("curl … | sh"), or "run"/"execute" followed by a command in
// a code span ("always run `make deploy`"). Every later session reads the memory, so such a
// line acts as a standing instruction; lint shows it for the user to confirm they wrote it.
// They are compiled on first use, not at every process's start-up.
var commandPatterns = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`\|\s*(sudo\s+)?(env\s+)?(sh|bash|zsh|dash|ksh|fish|python[0-9.]*|perl|ruby|node|pwsh|powershell)\b`),
		regexp.MustCompile("(?i)\\b(run|execute|exec|invoke)\\b[^`\\n]{0,40}`[^`\\n]+`"),
	}
})

// runCommandLine returns the first line (1-based) of text that tells the agent to run a
// command, and the line, or 0.
func runCommandLine(text string) (int, string) {
	for i, l := range strings.Split(text, "\n") {
		for _, re := range commandPatterns() {
			if re.MatchString(l) {
				return i + 1, strings.TrimSpace(l)
			}
		}
	}
	return 0, ""
}

// clip shortens s to at most n runes, with "…" when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
