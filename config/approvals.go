package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/strata-mem/strata/internal/fsutil"
)

// A project's .claude/settings.local.json is where Claude Code saves "don't ask again"
// answers, and strata saves them there too. But a clone can bring that file, so its allow rules
// count only when the user approved each one on the user's side: the approvals file of the
// project under $STRATA_HOME (see Approvals), written by the same answer. A rule only the
// repository's file holds stays ignored, with the usual warning.

// LocalSettingsPath is the project's .claude/settings.local.json.
func LocalSettingsPath(projectRoot string) string {
	return filepath.Join(projectRoot, ".claude", "settings.local.json")
}

// ApprovalsPath is the file that lists the allow rules of projectRoot's settings.local.json
// the user approved: $STRATA_HOME/projects/<slug of projectRoot>/approved-local-rules.json,
// {"allow": ["Bash(echo:*)", …]}.
func (e Env) ApprovalsPath(projectRoot string) string {
	return filepath.Join(e.ProjectsDir(), Slug(projectRoot), "approved-local-rules.json")
}

// maxApprovalsBytes caps what is read of an approvals file.
const maxApprovalsBytes = 1 << 20

type approvalsFile struct {
	Allow []string `json:"allow"`
}

// Approvals returns the local allow rules the user approved for projectRoot (none when the
// file does not exist); an error names the file.
func (e Env) Approvals(projectRoot string) ([]string, error) {
	path := e.ApprovalsPath(projectRoot)
	data, err := fsutil.ReadRegular(path, maxApprovalsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("approvals file %s: %w", path, err)
	}
	var f approvalsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("approvals file %s: %w", path, err)
	}
	return f.Allow, nil
}

// ApproveLocalRule records that the user approved rule in projectRoot's settings.local.json
// (an atomic rewrite of the approvals file; a rule already there is not added again).
func (e Env) ApproveLocalRule(projectRoot, rule string) error {
	have, err := e.Approvals(projectRoot)
	if err != nil {
		return err
	}
	if slices.Contains(have, rule) {
		return nil
	}
	path := e.ApprovalsPath(projectRoot)
	if err := os.MkdirAll(filepath.Dir(path), fsutil.DirMode); err != nil {
		return fmt.Errorf("approvals file %s: %w", path, err)
	}
	data, err := json.MarshalIndent(approvalsFile{Allow: append(have, rule)}, "", "  ")
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(path, append(data, '\n'), fsutil.FileMode); err != nil {
		return fmt.Errorf("approvals file %s: %w", path, err)
	}
	return nil
}

// AddAllowRule adds rule to permissions.allow of the JSON settings file at path, as Claude
// Code saves a "don't ask again" answer: every other key, value and byte stays as it was (the
// rule is inserted into the text), a missing file or key is created, and the file is replaced
// atomically. A rule already in the list changes nothing. A file that is not a JSON object is
// an error naming it, and is left alone.
func AddAllowRule(path, rule string) error {
	data, err := fsutil.ReadRegular(path, MaxSettingsBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return fmt.Errorf("settings file %s: %w", path, err)
	}
	out, err := insertAllowRule(data, rule)
	if err != nil {
		return fmt.Errorf("settings file %s: %w", path, err)
	}
	if out == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), fsutil.DirMode); err != nil {
		return fmt.Errorf("settings file %s: %w", path, err)
	}
	perm := fsutil.FileMode
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := fsutil.WriteFile(path, out, perm); err != nil {
		return fmt.Errorf("settings file %s: %w", path, err)
	}
	return nil
}

// insertAllowRule returns data with rule added to permissions.allow, or nil when it is there
// already.
func insertAllowRule(data []byte, rule string) ([]byte, error) {
	quoted, _ := json.Marshal(rule)
	body := bytes.TrimPrefix(data, utf8BOM)
	bom := len(data) - len(body)
	if len(bytes.TrimSpace(body)) == 0 {
		return []byte(`{
  "permissions": {
    "allow": [
      ` + string(quoted) + `
    ]
  }
}
`), nil
	}
	if !json.Valid(body) {
		return nil, errors.New("not valid JSON; add the rule by hand")
	}
	ms, ok := members(body, 0)
	if !ok {
		return nil, errors.New("want a JSON object")
	}
	insert := func(at int, text string) []byte {
		at += bom
		return slices.Concat(data[:at], []byte(text), data[at:])
	}
	perms := lastMember(ms, "permissions")
	if perms == nil {
		end := bytes.LastIndexByte(body, '}')
		sep := ","
		if len(ms) == 0 {
			sep = ""
		}
		// after the last member's value, so a trailing newline and the closing brace stay
		at := end
		if len(ms) > 0 {
			last := ms[len(ms)-1]
			at = last.vpos + len(last.raw)
		}
		return insert(at, sep+"\n  \"permissions\": {\n    \"allow\": [\n      "+string(quoted)+"\n    ]\n  }"+map[bool]string{true: "\n", false: ""}[len(ms) == 0]), nil
	}
	pm, ok := members(perms.raw, perms.vpos)
	if !ok {
		return nil, errors.New(`"permissions" is not an object`)
	}
	allow := lastMember(pm, "allow")
	if allow == nil {
		open := perms.vpos + 1 // just after "{"
		sep := ","
		if len(pm) == 0 {
			sep = ""
		}
		return insert(open, "\n    \"allow\": ["+string(quoted)+"]"+sep), nil
	}
	var have []string
	if err := json.Unmarshal(allow.raw, &have); err != nil {
		return nil, errors.New(`"permissions.allow" is not a list of strings`)
	}
	if slices.Contains(have, rule) {
		return nil, nil
	}
	closeAt := allow.vpos + bytes.LastIndexByte(allow.raw, ']')
	if len(have) == 0 {
		return insert(closeAt, string(quoted)), nil
	}
	// after the last element, keeping the list's own layout
	inner := bytes.TrimRight(allow.raw[:bytes.LastIndexByte(allow.raw, ']')], " \t\r\n")
	lastEnd := allow.vpos + len(inner)
	indent := ""
	if i := bytes.LastIndexByte(inner, '\n'); i >= 0 {
		line := inner[i+1:]
		indent = "\n" + string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
	} else {
		indent = " "
	}
	return insert(lastEnd, ","+indent+string(quoted)), nil
}

// lastMember is the member named key that counts (the last, as the loader takes it).
func lastMember(ms []member, key string) *member {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].key == key {
			return &ms[i]
		}
	}
	return nil
}
