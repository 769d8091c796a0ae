package shell

import "strings"

// Quote returns s as one shell word: unchanged when it holds only characters that are never
// special (letters, digits and _ . / = : , + @ % ^ -), else in single quotes. Parse reads it
// back as s.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%^-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
