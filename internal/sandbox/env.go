package sandbox

import (
	"slices"
	"strings"
)

// kept are the variables MinimalEnv keeps: where programs and caches are, the locale and the
// terminal. Nothing that authenticates.
var kept = []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "COLORTERM", "NO_COLOR", "TZ", "TMPDIR",
	"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOTOOLCHAIN", "GOFLAGS", "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "JAVA_HOME",
	"VIRTUAL_ENV", "PYTHONPATH", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"}

// MinimalEnv returns the variables of environ that a command no one watches needs (kept, and
// LC_*), without any that looks secret (see Secret).
func MinimalEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if (slices.Contains(kept, name) || strings.HasPrefix(name, "LC_")) && !Secret(name) {
			out = append(out, kv)
		}
	}
	return out
}

// ScrubEnv returns environ without the variables whose names look secret (see Secret).
func ScrubEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if name, _, _ := strings.Cut(kv, "="); !Secret(name) {
			out = append(out, kv)
		}
	}
	return out
}

// secretWords are the parts of a variable name that mark a credential.
var secretWords = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASS", "CREDENTIAL", "CREDENTIALS", "AUTH", "COOKIE", "PRIVATE", "APIKEY", "PAT"}

// Secret reports whether a variable name looks like it holds a credential: one of its
// underscore-separated words is KEY, TOKEN, SECRET, PASSWORD, AUTH and the like
// (ANTHROPIC_API_KEY, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY), in any case. A socket's path
// (SSH_AUTH_SOCK) is not a secret: git push over ssh keeps working.
func Secret(name string) bool {
	name = strings.ToUpper(name)
	if strings.HasSuffix(name, "_SOCK") {
		return false
	}
	for w := range strings.SplitSeq(name, "_") {
		if slices.Contains(secretWords, w) {
			return true
		}
	}
	return false
}
