package sandbox_test

import "syscall"

func unmount(p string) error { return syscall.Unmount(p, syscall.MNT_DETACH) }
