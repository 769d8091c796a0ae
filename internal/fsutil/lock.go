package fsutil

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gofrs/flock"
)

// Lock takes an exclusive cross-process lock on the file at path (created 0600 if missing,
// with its directory) and returns the function that releases it. It waits until the lock is
// free or ctx is done. Locks are advisory: every strata process that writes a store takes the
// store's lock first.
//
// Waiting is queued, not polled: the goroutines of one process that want the same lock line up
// first come, first served, and only the first of them waits in the kernel (a blocking flock),
// which wakes it as soon as the holder lets go; so a busy process is not starved by a stream of
// writers, and nobody sleeps in a retry loop.
func Lock(ctx context.Context, path string) (unlock func() error, err error) {
	if err := os.MkdirAll(filepath.Dir(path), DirMode); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	q := lockQueue(path)
	select {
	case q <- struct{}{}: // our turn in this process (a channel's senders wait in order)
	case <-ctx.Done():
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
	fl := flock.New(path, flock.SetPermissions(FileMode))
	got := make(chan error, 1)
	go func() { got <- fl.Lock() }()
	select {
	case err := <-got:
		if err != nil {
			<-q
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	case <-ctx.Done():
		go func() { // the kernel still queues us: let go once it hands the lock over
			if err := <-got; err == nil {
				fl.Unlock()
			}
			<-q
		}()
		return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
	}
	return func() error {
		err := fl.Unlock()
		<-q
		return err
	}, nil
}

var (
	queuesMu sync.Mutex
	queues   = map[string]chan struct{}{}
)

// lockQueue is the in-process queue of the lock at path: a channel of one slot.
func lockQueue(path string) chan struct{} {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	queuesMu.Lock()
	defer queuesMu.Unlock()
	q, ok := queues[path]
	if !ok {
		q = make(chan struct{}, 1)
		queues[path] = q
	}
	return q
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
