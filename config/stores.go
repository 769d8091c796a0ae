package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ProjectStore is the name of the project's own auto-memory among the memory stores: reserved,
// so no mounted store may take it.
const ProjectStore = "project"

// StoresVar is the environment variable that mounts memory stores besides the memoryStores
// setting: comma-separated NAME=PATH entries, each optionally ending in ":rw" (strata may
// write to it) or ":ro" (the default), e.g. "team=~/team-mem:rw,org=/srv/org-mem". The mode
// is read from the end, so a Windows path (C:\mem) needs no quoting; a path itself ending in
// ":rw" or ":ro" cannot be named here (use the setting). PATH must be absolute or start with
// "~/".
const StoresVar = "STRATA_MEMORY_STORES"

// MemoryStore is one mounted memory store: an entry of the memoryStores setting (user and
// managed settings only) or of STRATA_MEMORY_STORES.
type MemoryStore struct {
	// Name is a short identifier (1–32 letters, digits, '-' or '_', starting with a letter; any
	// script), unique among the stores; "project" is reserved.
	Name string `json:"name"`
	// Path is the directory as written: absolute, "~/…", or relative to the settings file's
	// directory.
	Path string `json:"path"`
	// Writable says strata may write to the store; a store is read-only unless it says so.
	Writable bool `json:"writable,omitempty"`
	// From is where the entry was given: the settings file's path, or StoresVar.
	From string `json:"-"`
}

// Dir returns the store's directory, absolute: "~/" is the user's home, a relative path is
// relative to the directory of the settings file that gave it.
func (m MemoryStore) Dir(userHome string) string {
	p := expandHome(m.Path, userHome)
	if !filepath.IsAbs(p) && m.From != StoresVar {
		p = filepath.Join(filepath.Dir(m.From), p)
	}
	return filepath.Clean(p)
}

// Mode says "read-write" or "read-only", for messages and listings.
func (m MemoryStore) Mode() string {
	if m.Writable {
		return "read-write"
	}
	return "read-only"
}

// ValidStoreName says what is wrong with name as a memory store's name, or "" when it is one.
// The one rule for store names: the settings, the environment variable, --store and the MCP
// tools' store argument all ask it.
func ValidStoreName(name string) string {
	switch {
	case name == "":
		return "a store needs a name"
	case strings.EqualFold(name, ProjectStore):
		return fmt.Sprintf("%q is the project's own memory and cannot name a mounted store", name)
	case utf8.RuneCountInString(name) > 32:
		return fmt.Sprintf("the store name %q is longer than 32 characters", name)
	}
	for i, r := range name {
		ok := unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || r == '-' || r == '_')
		if !ok {
			return fmt.Sprintf("the store name %q may hold only letters, digits, '-' and '_', and starts with a letter", name)
		}
	}
	return ""
}

// storesKey is the memoryStores setting: a list of {"name", "path", "writable"} objects. A bad
// entry is dropped with its own KeyError (file, line, entry); the other entries are kept.
// Lists from the user's and the managed settings are joined; a name given again replaces the
// earlier entry (managed settings are read last, so they win).
func storesKey() keySpec {
	k := keySpec{name: "memoryStores", want: `a list of {"name", "path", "writable"} objects`, def: "none", added: true,
		set: func(s *Settings) bool { return s.MemoryStores != nil },
		merge: func(d, o *Settings) {
			d.MemoryStores = mergeStores(d.MemoryStores, o.MemoryStores)
		},
		show: func(s *Settings) string {
			if len(s.MemoryStores) == 0 {
				return "none"
			}
			var names []string
			for _, m := range s.MemoryStores {
				names = append(names, m.Name)
			}
			return strings.Join(names, ", ")
		}}
	k.decode = func(s *Settings, raw json.RawMessage) (string, error) {
		probs := decodeStores(s, raw, "")
		if len(probs) > 0 && s.MemoryStores == nil {
			return "", errWrongType
		}
		return "", nil
	}
	k.entries = decodeStores
	return k
}

// entryProblem is one entry of a list key that was not taken (or taken with a note): off is the
// entry's byte offset within the key's value, msg what was wrong.
type entryProblem struct {
	off int
	msg string
}

// decodeStores decodes raw into s.MemoryStores (an empty list when raw is a list with no good
// entry; nil when raw is not a list) and returns a problem per bad entry; from names the file.
func decodeStores(s *Settings, raw json.RawMessage, from string) []entryProblem {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return []entryProblem{{0, `want a list of {"name", "path", "writable"} objects, got ` + shortValue(raw) + "; ignored"}}
	}
	out := []MemoryStore{}
	var probs []entryProblem
	offs := ElementOffsets(raw)
	seen := map[string]bool{}
	for i, item := range items {
		off := 0
		if i < len(offs) {
			off = offs[i]
		}
		m, msg := decodeStore(item)
		if msg == "" && seen[strings.ToLower(m.Name)] {
			msg = fmt.Sprintf("the store name %q is given twice in this list", m.Name)
		}
		if msg != "" {
			probs = append(probs, entryProblem{off, fmt.Sprintf("entry %d (%s): %s; this store is not mounted", i+1, shortValue(item), msg)})
			continue
		}
		seen[strings.ToLower(m.Name)] = true
		m.From = from
		out = append(out, m)
	}
	s.MemoryStores = out
	return probs
}

// decodeStore reads one entry, saying what is wrong with it ("" when nothing).
func decodeStore(raw json.RawMessage) (MemoryStore, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return MemoryStore{}, `want an object {"name", "path", "writable"}`
	}
	var m MemoryStore
	for key, v := range fields {
		var err error
		switch key {
		case "name":
			err = json.Unmarshal(v, &m.Name)
		case "path":
			err = json.Unmarshal(v, &m.Path)
		case "writable":
			err = json.Unmarshal(v, &m.Writable)
		default:
			return m, fmt.Sprintf("unknown field %q (want name, path, writable)", key)
		}
		if err != nil {
			want := "a string"
			if key == "writable" {
				want = "true or false"
			}
			return m, fmt.Sprintf("%s: want %s, got %s", key, want, shortValue(v))
		}
	}
	if msg := ValidStoreName(m.Name); msg != "" {
		return m, msg
	}
	if strings.TrimSpace(m.Path) == "" {
		return m, "a store needs a path"
	}
	return m, ""
}

// ElementOffsets returns the byte offset of each element of the JSON array raw (nil when raw is
// not an array), so a file's entries can be named by their line; the tokens file of the team
// server uses it too.
func ElementOffsets(raw []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil
	}
	var offs []int
	for dec.More() {
		start := int(dec.InputOffset())
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		// InputOffset before Decode may sit before the separator and blanks: skip them.
		for start < len(raw) && (raw[start] == ',' || raw[start] == ' ' || raw[start] == '\n' || raw[start] == '\t' || raw[start] == '\r') {
			start++
		}
		offs = append(offs, start)
	}
	return offs
}

// mergeStores lays over on top of base: a store of the same name (in any letter case) is
// replaced where it was, a new one added at the end.
func mergeStores(base, over []MemoryStore) []MemoryStore {
	out := slices.Clone(base)
	if out == nil {
		out = []MemoryStore{}
	}
	for _, m := range over {
		i := slices.IndexFunc(out, func(o MemoryStore) bool { return strings.EqualFold(o.Name, m.Name) })
		if i >= 0 {
			out[i] = m
		} else {
			out = append(out, m)
		}
	}
	return out
}

// StoresError is an entry of STRATA_MEMORY_STORES that was not taken: the store is not
// mounted, the other entries are.
type StoresError struct {
	Entry string // the entry as written
	Msg   string
}

// Error formats e as "STRATA_MEMORY_STORES: entry "…": message".
func (e *StoresError) Error() string {
	return fmt.Sprintf("%s: entry %q: %s; this store is not mounted", StoresVar, e.Entry, e.Msg)
}

// ParseStoresVar reads the value of STRATA_MEMORY_STORES (see StoresVar): the stores it mounts,
// in order, and a *StoresError for each entry that is not taken.
func ParseStoresVar(v string) ([]MemoryStore, []error) {
	var out []MemoryStore
	var errs []error
	for entry := range strings.SplitSeq(v, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, path, ok := strings.Cut(entry, "=")
		name, path = strings.TrimSpace(name), strings.TrimSpace(path)
		if !ok {
			errs = append(errs, &StoresError{entry, "want NAME=PATH, optionally ending in :rw or :ro"})
			continue
		}
		m := MemoryStore{Name: name, From: StoresVar}
		switch {
		case strings.HasSuffix(path, ":rw"):
			m.Writable, path = true, strings.TrimSuffix(path, ":rw")
		case strings.HasSuffix(path, ":ro"):
			path = strings.TrimSuffix(path, ":ro")
		}
		m.Path = path
		if msg := ValidStoreName(name); msg != "" {
			errs = append(errs, &StoresError{entry, msg})
			continue
		}
		if path == "" {
			errs = append(errs, &StoresError{entry, "a store needs a path"})
			continue
		}
		if !filepath.IsAbs(path) && path != "~" && !strings.HasPrefix(path, "~/") {
			errs = append(errs, &StoresError{entry, "the path must be absolute or start with ~/ (there is no settings file to be relative to)"})
			continue
		}
		if slices.ContainsFunc(out, func(o MemoryStore) bool { return strings.EqualFold(o.Name, name) }) {
			errs = append(errs, &StoresError{entry, fmt.Sprintf("the store name %q is given twice", name)})
			continue
		}
		out = append(out, m)
	}
	return out, errs
}

// MemoryStores returns the mounted memory stores: the memoryStores of s (user settings, then
// managed) with the stores of STRATA_MEMORY_STORES laid over them — a name given again
// replaces the earlier store — except that a store of the managed settings is the
// organisation's and stays as the managed file gives it. errs are the variable's bad entries.
func (e Env) MemoryStores(s Settings) ([]MemoryStore, []error) {
	fromVar, errs := ParseStoresVar(e.Var(StoresVar))
	managed := filepath.Join(e.ManagedDir, "managed-settings.json")
	var keep []MemoryStore
	for _, m := range fromVar {
		i := slices.IndexFunc(s.MemoryStores, func(o MemoryStore) bool { return strings.EqualFold(o.Name, m.Name) })
		if i >= 0 && e.ManagedDir != "" && s.MemoryStores[i].From == managed {
			errs = append(errs, &StoresError{m.Name + "=" + m.Path, "the managed settings mount a store of this name, and they win"})
			continue
		}
		keep = append(keep, m)
	}
	out := mergeStores(s.MemoryStores, keep)
	if len(out) == 0 {
		return nil, errs
	}
	return out, errs
}
