package fsutil

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// Lock takes an exclusive cross-process lock on the file at path (created 0600 if missing,
// with its directory) and returns the function that releases it. It waits until the lock is
// free or ctx is done. Locks are advisory: every strata process that writes a store takes the
// store's lock first.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	fl := flock.New(path, flock.SetPermissions(FileMode))
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
	return fl.Unlock, nil
}

// TryLock is Lock without waiting: ok is false when another process holds the lock.
func TryLock(path string) (unlock func() error, ok bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	fl := flock.New(path, flock.SetPermissions(FileMode))
	ok, err = fl.TryLock()
	if err != nil {
		return nil, false, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, false, nil
	}
	return fl.Unlock, true, nil
}
