package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/strata-mem/strata/internal/fsutil"
)

// MaxSettingsBytes is the largest settings file read (1 MiB); a larger one is skipped with an
// error naming it, as a FIFO or device is, and the other files still apply.
const MaxSettingsBytes = 1 << 20

// ParseError is a settings file that is not valid JSON, or not a JSON object: none of it is
// used, and the other files still apply.
type ParseError struct {
	Path      string
	Line, Col int // 1-based; Col counts characters
	Err       error
}

// Error formats e as "path:line:col: settings file does not parse: …".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d:%d: settings file does not parse: %v", e.Path, e.Line, e.Col, e.Err)
}

// Unwrap returns the JSON decoder's error.
func (e *ParseError) Unwrap() error { return e.Err }

// KeyError is one key of a settings file that was not taken as written — a value of the wrong
// type or out of range, a key a project file may not set, an unknown or misspelt key — or a
// value that was adjusted (a number capped). Msg says what was wrong and what is used instead.
// The rest of the file applies.
type KeyError struct {
	Path      string
	Line, Col int // of the key; 1-based, Col in characters
	Key       string
	Msg       string
}

// Error formats e as "path:line:col: key: message".
func (e *KeyError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", e.Path, e.Line, e.Col, e.Key, e.Msg)
}

// Files returns the settings files that apply to projectRoot, lowest priority first, with
// their scopes. projectRoot may be "" for the user's and managed settings only.
func (e Env) Files(projectRoot string) []File {
	files := []File{{filepath.Join(e.Home, "settings.json"), ScopeUser}}
	if projectRoot != "" {
		files = append(files,
			File{filepath.Join(projectRoot, ".claude", "settings.json"), ScopeProject},
			File{filepath.Join(projectRoot, ".claude", "settings.local.json"), ScopeLocal})
	}
	if e.ManagedDir != "" {
		files = append(files, File{filepath.Join(e.ManagedDir, "managed-settings.json"), ScopeManaged})
	}
	return files
}

// SettingsFiles returns the paths of Files.
func (e Env) SettingsFiles(projectRoot string) []string {
	var out []string
	for _, f := range e.Files(projectRoot) {
		out = append(out, f.Path)
	}
	return out
}

// Load merges the settings files that apply to projectRoot (Files) and returns what was wrong
// with them: a *ParseError for a file that does not parse, an error naming a file that could not
// be read (a FIFO, a device, over MaxSettingsBytes …), and a *KeyError for each key not taken as
// written. Missing files are skipped. Each problem costs only what it names: the rest of the
// file, and the other files, still apply.
func (e Env) Load(projectRoot string) (Settings, []error) {
	l := newLoader()
	if projectRoot != "" {
		rules, err := e.Approvals(projectRoot)
		if err != nil {
			l.add(problem{err: err})
		}
		for _, r := range rules {
			l.approved[strings.TrimSpace(r)] = true
		}
	}
	for _, f := range e.Files(projectRoot) {
		l.nfile++
		data, err := fsutil.ReadRegular(f.Path, MaxSettingsBytes)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			l.add(problem{err: fmt.Errorf("settings file skipped: %w", err)})
			continue
		}
		l.file(f, data)
	}
	return l.finish()
}

// ParseSettings decodes one settings file's content as the user's own (every key allowed). The
// error joins every problem found (see Load); the Settings hold what could be taken.
func ParseSettings(data []byte) (Settings, error) {
	l := newLoader()
	l.nfile++
	l.file(File{Path: "settings.json", Scope: ScopeUser}, data)
	s, errs := l.finish()
	return s, errors.Join(errs...)
}

// loader merges files one by one. A dropped key's message says what is used instead, which is
// known only once every file is merged: such problems are completed by finish.
type loader struct {
	s      Settings
	origin map[string]string // key → the file that set the merged value last
	// approved are the local allow rules the user approved for the project (takeApproved).
	approved map[string]bool
	nfile    int // files read so far
	probs    []problem
}

// problem is one error found, where (file order, line), and for a dropped key, its spec.
type problem struct {
	file, line int
	err        error
	dropped    bool
	spec       *keySpec // of a dropped key; nil for "permissions" as a whole
}

func newLoader() *loader { return &loader{origin: map[string]string{}, approved: map[string]bool{}} }

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// file decodes one file key by key and lays it over the settings so far.
func (l *loader) file(f File, data []byte) {
	data = bytes.TrimPrefix(data, utf8BOM) // editors on Windows write one; JSON has none
	if len(bytes.TrimSpace(data)) == 0 {
		return
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		off := len(data)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = int(se.Offset) - 1
		}
		line, col := position(data, off)
		l.add(problem{line: line, err: &ParseError{Path: f.Path, Line: line, Col: col, Err: err}})
		return
	}
	ms, ok := members(data, 0)
	if !ok {
		l.add(problem{line: 1, err: &ParseError{Path: f.Path, Line: 1, Col: 1, Err: errors.New("want a JSON object ({ … })")}})
		return
	}
	var layer Settings
	l.members(f, data, ms, keys, "", &layer)
	l.merge(&layer, f.Path)
}

// members decodes the members ms of one object (the file's, or its "permissions") into layer.
func (l *loader) members(f File, data []byte, ms []member, specs []keySpec, prefix string, layer *Settings) {
	last := map[string]int{}
	for i, m := range ms {
		last[m.key] = i
	}
	for i, m := range ms {
		name := prefix + m.key
		line, col := position(data, m.at)
		ke := &KeyError{Path: f.Path, Line: line, Col: col, Key: name}
		if m.key == "" {
			ke.Key = prefix + `""` // an empty key, named so it can be seen
		}
		if j := last[m.key]; j != i {
			l.warn(ke, fmt.Sprintf("given again at line %d; this one is ignored", lineOf(data, ms[j].at)))
			continue
		}
		if prefix == "" && m.key == "permissions" {
			if string(m.raw) == "null" {
				continue
			}
			sub, ok := members(m.raw, m.vpos)
			if !ok {
				ke.Msg = "want an object (allow, deny, defaultMode), got " + shortValue(m.raw) + "; ignored"
				l.drop(ke, nil)
				continue
			}
			l.members(f, data, sub, permissionKeys, "permissions.", layer)
			continue
		}
		spec := findSpec(specs, name)
		if spec == nil {
			l.unknown(ke, m, prefix != "", layer)
			continue
		}
		if string(m.raw) == "null" {
			continue // null: not set, as if absent
		}
		if spec.userOnly && !f.Scope.Trusted() {
			ke.Msg = "a project file may not set this; only " + trustedWhere + " may; ignored"
			l.drop(ke, spec)
			continue
		}
		if spec.entries != nil {
			probs := spec.entries(layer, m.raw, f.Path)
			if !spec.set(layer) {
				ke.Msg = "want " + spec.want + ", got " + shortValue(m.raw) + "; ignored"
				l.drop(ke, spec)
				continue
			}
			for _, p := range probs {
				k := *ke
				k.Line, k.Col = position(data, m.vpos+p.off)
				k.Msg = p.msg
				l.add(problem{line: k.Line, err: &k})
			}
			continue
		}
		note, err := spec.decode(layer, m.raw)
		if err != nil {
			ke.Msg = "want " + spec.want + ", got " + shortValue(m.raw) + "; ignored"
			if r, ok := err.(outOfRange); ok {
				ke.Msg = r.Error() + " (want " + spec.want + "); ignored"
			}
			l.drop(ke, spec)
			continue
		}
		if note != "" {
			l.warn(ke, note)
		}
		if spec.stricter != nil && !f.Scope.Trusted() {
			if ke.Msg = spec.stricter(&l.s, layer); ke.Msg != "" {
				l.drop(ke, spec)
			}
			continue
		}
		if spec.restrict == nil || f.Scope.Trusted() {
			continue
		}
		approved := l.takeApproved(f, spec, layer)
		for _, msg := range spec.restrict(layer) {
			k := *ke
			if k.Msg = msg; spec.added || spec.set(layer) {
				l.add(problem{line: k.Line, err: &k})
			} else {
				l.drop(&k, spec)
			}
		}
		layer.Permissions.Allow = append(layer.Permissions.Allow, approved...)
	}
}

// takeApproved removes from a settings.local.json layer the allow rules the user approved
// for this project (Env.ApproveLocalRule) and returns them, so that the project's restriction
// does not apply to them; any other file or key keeps them.
func (l *loader) takeApproved(f File, spec *keySpec, layer *Settings) []string {
	if f.Scope != ScopeLocal || spec.name != "permissions.allow" || len(l.approved) == 0 {
		return nil
	}
	var kept, approved []string
	for _, r := range layer.Permissions.Allow {
		if l.approved[strings.TrimSpace(r)] {
			approved = append(approved, r)
		} else {
			kept = append(kept, r)
		}
	}
	layer.Permissions.Allow = kept
	return approved
}

// unknown warns about a key strata does not know — with the closest known name when one is near
// — unless it is one of Claude Code's, and keeps a top-level one in Extra.
func (l *loader) unknown(ke *KeyError, m member, nested bool, layer *Settings) {
	if !nested {
		if layer.Extra == nil {
			layer.Extra = map[string]json.RawMessage{}
		}
		layer.Extra[m.key] = m.raw
	}
	if isClaudeCodeKey(m.key, nested) {
		return
	}
	msg := "unknown key, ignored"
	if nested {
		if c := closest(ke.Key, knownNames(permissionKeys, prefixed("permissions.", claudeCodePermissionKeys))); c != "" {
			msg += "; did you mean " + c + "?"
		}
	} else if c := closest(ke.Key, knownNames(keys, append([]string{"permissions"}, claudeCodeKeys...))); c != "" {
		msg += "; did you mean " + c + "?"
	}
	l.warn(ke, msg)
}

func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = p + n
	}
	return out
}

func (l *loader) warn(ke *KeyError, msg string) {
	k := *ke
	k.Msg = msg
	l.add(problem{line: k.Line, err: &k})
}

// drop records a key not taken; finish adds what is used instead to its message.
func (l *loader) drop(ke *KeyError, spec *keySpec) {
	l.add(problem{line: ke.Line, err: ke, dropped: true, spec: spec})
}

func (l *loader) add(p problem) {
	p.file = l.nfile
	l.probs = append(l.probs, p)
}

// merge lays layer (read from path) over the settings so far: a key set in layer wins, lists
// marked added are joined, Extra keys are laid over one by one.
func (l *loader) merge(layer *Settings, path string) {
	for _, specs := range [][]keySpec{keys, permissionKeys} {
		for i := range specs {
			k := &specs[i]
			if k.set(layer) {
				k.merge(&l.s, layer)
				l.origin[k.name] = path
			}
		}
	}
	l.s.ProjectClaudeMdExcludes = append(l.s.ProjectClaudeMdExcludes, layer.ProjectClaudeMdExcludes...)
	for name, v := range layer.Extra {
		if l.s.Extra == nil {
			l.s.Extra = map[string]json.RawMessage{}
		}
		l.s.Extra[name] = v
	}
}

// finish completes the messages of dropped keys with what is used instead and returns the
// merged settings and every problem, file by file in the order read, by line within a file.
func (l *loader) finish() (Settings, []error) {
	slices.SortStableFunc(l.probs, func(a, b problem) int { return cmp.Or(a.file-b.file, a.line-b.line) })
	var errs []error
	for _, p := range l.probs {
		if p.dropped {
			ke := p.err.(*KeyError)
			ke.Msg += "; " + l.instead(p.spec)
		}
		errs = append(errs, p.err)
	}
	return l.s, errs
}

// instead says what applies in place of a dropped key: the value another file gave it, or the
// default.
func (l *loader) instead(k *keySpec) string {
	switch {
	case k == nil:
		return "the permissions of the other files apply"
	case k.added && k.set(&l.s):
		return "the " + k.name + " entries of the other files apply"
	case k.added:
		return "none apply"
	}
	if from, ok := l.origin[k.name]; ok {
		return fmt.Sprintf("using %s from %s", k.show(&l.s), from)
	}
	return "using the default, " + k.def
}

func findSpec(specs []keySpec, name string) *keySpec {
	for i := range specs {
		if specs[i].name == name {
			return &specs[i]
		}
	}
	return nil
}

func lineOf(data []byte, off int) int {
	line, _ := position(data, off)
	return line
}
