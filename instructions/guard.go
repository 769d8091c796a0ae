package instructions

import (
	"fmt"
	"path/filepath"
	"strings"
)

// homeDataDirs are the directories of STRATA_HOME (and of ~/.claude, when STRATA_HOME points
// there) that hold data, not instructions: transcripts and memories of every project, archives,
// file backups, plans, todos, shell snapshots, caches, downloaded plugins, logs.
func homeDataDir(name string) bool {
	switch strings.ToLower(name) {
	case "projects", "archive", "file-history", "todos", "plans", "shell-snapshots", "session-env",
		"statsig", "debug", "ide", "logs", "telemetry", "cache", "caches", "paste-cache", "image-cache",
		"plugins", "downloads", "local", "backups", "usage-data", "sessions":
		return true
	}
	return false
}

// homeRefusal says why the file at path, inside STRATA_HOME (home, resolved), may not be
// imported, or "" when it may. Only instruction files can be imported from there: markdown
// files outside hidden and data directories. Credentials (.credentials.json), settings,
// transcripts (projects/), histories and caches never can, whatever the settings approve.
func homeRefusal(path, home string) string {
	rel := relSlash(path, home)
	if rel == "" {
		return "STRATA_HOME itself is not a file"
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts {
		if strings.HasPrefix(p, ".") {
			return "it is hidden (" + p + ")"
		}
	}
	if len(parts) > 1 && homeDataDir(parts[0]) {
		return parts[0] + "/ holds data (transcripts, memories, caches …), not instructions"
	}
	if !strings.EqualFold(filepath.Ext(rel), ".md") {
		return "only markdown (.md) instruction files are read from there"
	}
	return ""
}

// homeImportRefusal applies homeRefusal to an import, as written (abs) and resolved (real):
// either one under STRATA_HOME must be an instruction file.
func (s *Set) homeImportRefusal(abs, real string) string {
	home := s.realHome()
	if home == "" {
		return ""
	}
	homes := []string{home}
	if c := filepath.Clean(s.env.Home); c != home {
		homes = append(homes, c)
	}
	for _, h := range homes {
		for _, p := range []string{abs, real} {
			if within(p, h) {
				if why := homeRefusal(p, h); why != "" {
					return fmt.Sprintf("refused: %s is in STRATA_HOME (%s), where only instruction files can be imported: %s", p, h, why)
				}
			}
		}
	}
	return ""
}

// realHome returns STRATA_HOME with its symlinks resolved ("" when there is none), resolved
// once per set and only when an import asks: every import is checked against it, but the
// managed directory is resolved only for an import outside the project root (inside).
func (s *Set) realHome() string {
	if !s.homeDone {
		s.homeDone = true
		if s.env.Home != "" {
			s.home = filepath.Clean(resolveAllowed(s.env.Home))
		}
	}
	return s.home
}

// withholdSecrets replaces each line of body that Options.ScanSecrets finds to look like a
// credential with a marker, and warns with the file line (body starts at line bodyLine).
func (s *Set) withholdSecrets(path, body string, bodyLine int) string {
	if s.loadOpts.ScanSecrets == nil || body == "" {
		return body
	}
	found := s.loadOpts.ScanSecrets(body)
	if len(found) == 0 {
		return body
	}
	lines := strings.Split(body, "\n")
	for _, f := range found {
		if f.Line < 1 || f.Line > len(lines) {
			continue
		}
		if f.Marker == "" {
			f.Marker = fmt.Sprintf("[withheld by strata: this line looks like a secret (%s)]", f.Kind)
		}
		lines[f.Line-1] = f.Marker
		for j := 1; j < f.Lines && f.Line-1+j < len(lines); j++ {
			lines[f.Line-1+j] = "" // the rest of a key split over lines; line numbers stay
		}
		s.addf(path, bodyLine+f.Line-1, SeverityWarning, "looks like a secret (%s); the line is withheld from the model. Remove it and name where the secret lives instead (an environment variable, a vault path)", f.Kind)
	}
	return strings.Join(lines, "\n")
}
