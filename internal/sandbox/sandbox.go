package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// Policy is what a confined command may do. Paths are absolute; missing ones are skipped.
type Policy struct {
	// Write are the trees the command may write: create, remove, rename, truncate.
	Write []string `json:"write,omitempty"`
	// ReadOnly are trees inside Write that stay read-only (.git, .claude, STRATA_HOME). They
	// need namespaces (Status.Namespaces); without them they are as writable as their parent.
	ReadOnly []string `json:"readOnly,omitempty"`
	// Network allows TCP connect and bind; off, both fail in the kernel (Landlock ABI 4+).
	Network bool `json:"network,omitempty"`
	// Env is the command's whole environment (see MinimalEnv and ScrubEnv).
	Env []string `json:"-"`
}

// ErrUnavailable is wrapped by Command when a command cannot be confined here: no Landlock in
// the kernel, not Linux, or a binary that offers no helper (see Main). The text says why.
var ErrUnavailable = errors.New("sandbox unavailable")

// helperArg is the first argument that makes strata's binary the helper.
const helperArg = "__strata-sandbox-helper"

// offered is set by Main: this binary runs the helper when asked.
var offered atomic.Bool

// Main makes the running binary the sandbox helper. Call it first in main (or TestMain):
// started as the helper, it confines the process and executes the command, never returning
// (a failure exits with status 126 and the reason on stderr); otherwise it records that the
// binary can serve as the helper and returns.
func Main() {
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		if err := helper(os.Args[2:]); err != nil {
			fmt.Fprintf(os.Stderr, "strata sandbox: %v\n", err)
		}
		os.Exit(126)
	}
	offered.Store(true)
}

// Status is what this machine offers, as Probe finds it.
type Status struct {
	// ABI is the kernel's Landlock ABI version; 0 when Landlock is missing.
	ABI int
	// Landlock is why Landlock cannot be used ("" when it can).
	Landlock string
	// Namespaces reports that unprivileged user and mount namespaces work, so Policy.ReadOnly
	// holds; NamespacesWhy says why not.
	Namespaces    bool
	NamespacesWhy string
	// Helper reports that this binary runs the helper (see Main).
	Helper bool
}

// Active reports whether commands are confined: Landlock works and the binary has the helper.
func (s Status) Active() bool { return s.Landlock == "" && s.Helper }

// Why says in one line why commands are not confined ("" when they are).
func (s Status) Why() string {
	switch {
	case s.Landlock != "":
		return s.Landlock
	case !s.Helper:
		return "this program does not offer the sandbox helper"
	}
	return ""
}

var probeOnce = sync.OnceValue(probe)

// Probe reports what the kernel offers; it probes once per process.
func Probe() Status {
	s := probeOnce()
	s.Helper = offered.Load()
	return s
}

// wire is the policy as the helper receives it.
type wire struct {
	Policy
	Namespaces bool `json:"namespaces,omitempty"`
}

// Command returns the command that runs name with args confined by p: strata's binary as the
// helper, with p.Env as its environment. The caller sets Dir, stdio and the like; SysProcAttr
// is set (namespaces) and must be extended, not replaced. It wraps ErrUnavailable when
// commands cannot be confined here.
func Command(ctx context.Context, p Policy, name string, args ...string) (*exec.Cmd, error) {
	st := Probe()
	if !st.Active() {
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, st.Why())
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: cannot find strata's own binary: %v", ErrUnavailable, err)
	}
	pc := p.clean()
	w := wire{Policy: pc, Namespaces: st.Namespaces && len(pc.ReadOnly) > 0}
	spec, err := json.Marshal(w)
	if err != nil {
		return nil, err
	}
	if path, err := exec.LookPath(name); err == nil {
		name = path // by strata's PATH, as an unconfined command would be found
	}
	cmd := exec.CommandContext(ctx, self, append([]string{helperArg, string(spec), name}, args...)...)
	cmd.Env = p.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	if w.Namespaces {
		cmd.SysProcAttr = namespaceAttr()
	}
	return cmd, nil
}

// clean returns p with absolute, cleaned paths, symlinks resolved where they exist, and only
// the read-only trees that lie inside a writable one (the others need no mount).
func (p Policy) clean() Policy {
	out := Policy{Network: p.Network, Env: p.Env}
	for _, d := range p.Write {
		out.Write = appendResolved(out.Write, d)
	}
	for _, d := range p.ReadOnly {
		for _, r := range appendResolved(nil, d) {
			if under(r, out.Write) {
				out.ReadOnly = append(out.ReadOnly, r)
			}
		}
	}
	return out
}

// appendResolved appends d and, when it differs, d with symlinks resolved.
func appendResolved(list []string, d string) []string {
	if d == "" || !filepath.IsAbs(d) {
		return list
	}
	d = filepath.Clean(d)
	list = append(list, d)
	if r, err := filepath.EvalSymlinks(d); err == nil && r != d {
		list = append(list, r)
	}
	return list
}

// under reports whether p is inside (or is) one of dirs.
func under(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) || d == "/" {
			return true
		}
	}
	return false
}
