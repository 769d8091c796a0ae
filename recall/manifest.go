package recall

import (
	"strings"
	"time"

	"github.com/strata-mem/strata/internal/termtext"
	"github.com/strata-mem/strata/memdir"
)

// MaxManifestEntries is how many files a manifest lists at most (the newest).
const MaxManifestEntries = 200

// Manifest renders memories as the selector sees them: one line per file, newest first,
// "- [type] file (ISO mtime): description", at most max lines (MaxManifestEntries when max
// <= 0). A memory without a type shows [unknown]; one without a description shows its name.
// Line breaks inside a description are folded to spaces so every entry stays one line.
func Manifest(mems []memdir.Memory, max int) string {
	if max <= 0 {
		max = MaxManifestEntries
	}
	sorted := append([]memdir.Memory(nil), mems...)
	SortNewest(sorted)
	var b strings.Builder
	for i, m := range sorted {
		if i == max {
			break
		}
		b.WriteString(manifestLine(m))
		b.WriteByte('\n')
	}
	return b.String()
}

func manifestLine(m memdir.Memory) string {
	typ := string(m.Type)
	if typ == "" {
		typ = "unknown"
	}
	desc := m.Description
	if desc == "" {
		desc = m.Name
	}
	return "- [" + termtext.OneLine(typ) + "] " + termtext.OneLine(m.File) + " (" + m.ModTime.UTC().Format(time.RFC3339) + "): " + termtext.OneLine(desc)
}
