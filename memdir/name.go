package memdir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// ErrBadName is wrapped by the error returned when a memory name cannot be used: empty, too
// long, or containing a path separator, "..", a control character or invalid UTF-8.
var ErrBadName = errors.New("bad memory name")

// MaxNameRunes is the longest memory name accepted, in characters.
const MaxNameRunes = 200

// maxStemBytes bounds the file name derived from a name (before ".md" and any hash suffix), so
// that it stays far below the 255-byte limit of common file systems.
const maxStemBytes = 96

// ValidateName reports why name cannot be a memory name, or nil. A name is refused when it is
// empty (after trimming spaces), longer than MaxNameRunes, not valid UTF-8, or contains '/',
// '\\', "..", or a control character (newlines and tabs included). Names in any script are
// accepted: "部署流程" is a fine name.
func ValidateName(name string) error {
	bad := func(why string) error { return fmt.Errorf("memdir: %w %q: %s", ErrBadName, name, why) }
	switch {
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("memdir: %w: the name is empty", ErrBadName)
	case !utf8.ValidString(name):
		return bad("not valid UTF-8")
	case strings.ContainsAny(name, `/\`):
		return bad("contains a path separator")
	case strings.Contains(name, ".."):
		return bad(`contains ".."`)
	case utf8.RuneCountInString(name) > MaxNameRunes:
		return bad(fmt.Sprintf("longer than %d characters", MaxNameRunes))
	}
	for _, r := range name {
		if unicode.IsControl(r) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return bad(fmt.Sprintf("contains the control character %U", r))
		}
	}
	return nil
}

// NameKey is the form in which two memory names are the same name to a person: Unicode
// compatibility-normalised (NFKC: "café" typed on macOS (NFD) and on Linux (NFC) agree, and
// so do full-width "ＤＢ" and "DB", as Chinese and Japanese input methods type them), trimmed
// and lower-cased. Lint warns about two memories whose names have one key, and a lookup by
// name that finds no exact match takes the memory whose name has the same key.
func NameKey(name string) string {
	return strings.ToLower(strings.TrimSpace(norm.NFKC.String(name)))
}

// FileName maps a memory name ValidateName accepts to its topic file name, deterministically:
// NFC, trimmed, lower-cased; letters and digits of any script, '-' and '_' kept; runs of
// anything else one '-'; a stem over 96 bytes, empty, or reserved by Windows gets a hash of
// the name. "Prefer tabs!" → "prefer-tabs.md", "部署 流程" → "部署-流程.md". The result has no
// separator, no leading '.', and ends in ".md"; two names that map alike are told apart by
// the store (FileNameAlt).
func FileName(name string) string {
	stem := stemOf(name)
	switch {
	case stem == "":
		return "memory-" + nameHash(name) + ".md"
	case len(stem) > maxStemBytes:
		cut := maxStemBytes
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut--
		}
		return strings.TrimRight(stem[:cut], "-") + "-" + nameHash(name) + ".md"
	case reservedStem(stem):
		return stem + "-" + nameHash(name) + ".md"
	}
	return stem + ".md"
}

// FileNameAlt is the file name used for name when FileName(name) is already taken by a
// different memory: the stem plus "-" and 8 hex digits of the name's hash.
func FileNameAlt(name string) string {
	base := strings.TrimSuffix(FileName(name), ".md")
	h := nameHash(name)
	if strings.HasSuffix(base, "-"+h) {
		// Already hashed: use a longer hash so the alternative differs.
		return strings.TrimSuffix(base, h) + nameHashLong(name) + ".md"
	}
	return base + "-" + h + ".md"
}

func stemOf(name string) string {
	name = norm.NFC.String(strings.TrimSpace(name))
	var b strings.Builder
	dash := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + ('a' - 'A'))
			dash = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_':
			b.WriteRune(r)
			dash = false
		case r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) && r != utf8.RuneError:
			b.WriteRune(unicode.ToLower(r))
			dash = false
		default:
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	return strings.Trim(b.String(), "-")
}

func reservedStem(stem string) bool {
	switch stem {
	case "con", "prn", "aux", "nul", "memory":
		// "memory" would become memory.md, which differs from MEMORY.md only by case; on
		// case-insensitive file systems it would overwrite the index.
		return true
	}
	if len(stem) == 4 && (strings.HasPrefix(stem, "com") || strings.HasPrefix(stem, "lpt")) && stem[3] >= '0' && stem[3] <= '9' {
		return true
	}
	return false
}

func nameHash(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:4])
}

func nameHashLong(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:8])
}
