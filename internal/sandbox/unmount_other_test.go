//go:build !linux

package sandbox_test

import "errors"

func unmount(string) error { return errors.New("unmount: Linux only") }
