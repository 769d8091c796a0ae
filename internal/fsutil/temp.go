package fsutil

import (
	"path/filepath"
	"strings"
)

// tempPattern is the CreateTemp pattern of WriteFileFS's temp file for path: hidden, in the same
// directory, named after the file (".MEMORY.md.tmp123456").
func tempPattern(path string) string { return "." + filepath.Base(path) + ".tmp*" }

// IsTempName reports whether name (a base name) is one of WriteFileFS's temp files: what a
// write killed between its create and its rename leaves behind. Only WriteFileFS's own
// pattern matches — a dot, the target's name, ".tmp" and the random part (decimal from
// os.CreateTemp, base 36 from RootFS) — so a user's ".notes.tmp" or "draft.tmp1" does not.
func IsTempName(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, ".tmp")
	if i < 2 { // a dot and at least one character of the target's name before ".tmp"
		return false
	}
	rnd := name[i+len(".tmp"):]
	if rnd == "" {
		return false
	}
	for j := 0; j < len(rnd); j++ {
		if c := rnd[j]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}
