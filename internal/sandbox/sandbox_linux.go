package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// devices are the device files every command may write: redirections to /dev/null, terminals.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom"}

func probe() Status {
	var s Status
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.EOPNOTSUPP):
		s.Landlock = "Landlock is built into this kernel but not enabled (add landlock to the lsm= boot parameter)"
	case err != nil || abi < 1:
		s.Landlock = fmt.Sprintf("this kernel has no Landlock (Linux 5.13 or later is needed): %v", err)
	default:
		s.ABI = abi
	}
	s.Namespaces, s.NamespacesWhy = probeNamespaces()
	return s
}

// probeNamespaces starts the helper in a user and mount namespace with one read-only mount
// and no command: it works only where unprivileged user namespaces and bind mounts in them do.
func probeNamespaces() (bool, string) {
	if !offered.Load() {
		return false, "not probed: this program does not offer the sandbox helper"
	}
	self, err := os.Executable()
	if err != nil {
		return false, err.Error()
	}
	dir, err := os.MkdirTemp("", "strata-sandbox-probe-")
	if err != nil {
		return false, err.Error()
	}
	defer os.RemoveAll(dir)
	spec, _ := json.Marshal(wire{Policy: Policy{ReadOnly: []string{dir}}, Namespaces: true})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, helperArg, string(spec))
	cmd.Env = []string{}
	cmd.SysProcAttr = namespaceAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "strata sandbox: "))
		if why == "" {
			why = err.Error()
		}
		return false, "unprivileged user namespaces are not available: " + why
	}
	return true, ""
}

// namespaceAttr starts the helper in a new user and mount namespace, as the same user, with
// the one capability it needs to mount (it drops it before running the command).
func namespaceAttr() *syscall.SysProcAttr {
	uid, gid := os.Getuid(), os.Getgid()
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN},
	}
}

// helper is the process Command starts: args are the policy and the command.
func helper(args []string) error {
	if len(args) == 0 {
		return errors.New("no policy given")
	}
	var w wire
	if err := json.Unmarshal([]byte(args[0]), &w); err != nil {
		return fmt.Errorf("bad policy: %v", err)
	}
	if w.Namespaces {
		if err := mountReadOnly(w.ReadOnly); err != nil {
			return err
		}
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return fmt.Errorf("drop capabilities: %v", err)
		}
	}
	if err := restrict(w.Policy); err != nil {
		return err
	}
	if len(args) == 1 {
		os.Exit(0) // a probe
	}
	path, err := exec.LookPath(args[1])
	if err != nil {
		return err
	}
	return syscall.Exec(path, args[1:], os.Environ())
}

// mountReadOnly makes each existing path a read-only bind mount of itself, in the helper's
// own mount namespace (private, so nothing propagates out).
func mountReadOnly(paths []string) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %v", err)
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			continue // nothing there to protect
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("bind %s: %v", p, err)
		}
		err := unix.MountSetattr(-1, p, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
		if errors.Is(err, unix.ENOSYS) {
			err = remountReadOnly(p)
		}
		if err != nil {
			return fmt.Errorf("make %s read-only: %v", p, err)
		}
	}
	return nil
}

// remountReadOnly is mountReadOnly's way before Linux 5.12: a remount must keep the flags the
// kernel locked on the mount (nosuid, nodev, noexec…) or it is refused.
func remountReadOnly(p string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for st_, ms := range map[int64]uintptr{unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME} {
		if st.Flags&st_ != 0 {
			flags |= ms
		}
	}
	return unix.Mount("", p, "", flags, "")
}

// restrict confines the helper (and so the command it becomes) to p by Landlock.
func restrict(p Policy) error {
	cfg := landlock.Config{HandledAccessFS: landlock.V8.HandledAccessFS, Scoped: landlock.V6.Scoped}
	if !p.Network {
		cfg.HandledAccessNet = landlock.V4.HandledAccessNet
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWFiles(devices...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts").WithIoctlDev().IgnoreIfMissing(),
	}
	if len(p.Write) > 0 {
		rules = append(rules, landlock.RWDirs(p.Write...).WithRefer().IgnoreIfMissing())
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %v", err)
	}
	return nil
}
