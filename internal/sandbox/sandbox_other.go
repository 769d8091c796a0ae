//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
	"syscall"
)

func probe() Status {
	return Status{Landlock: "Landlock is Linux only; this is " + runtime.GOOS, NamespacesWhy: "Linux only"}
}

func namespaceAttr() *syscall.SysProcAttr { return nil }

func helper([]string) error { return errors.New("no sandbox on " + runtime.GOOS) }
