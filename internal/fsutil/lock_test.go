package fsutil

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Waiters of one process get the lock in the order they asked for it, and one whose context
// ends stops waiting without taking a turn from the others.
func TestLockIsQueued(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lock")
	unlock, err := Lock(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, err := Lock(context.Background(), p)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			u()
		}()
		time.Sleep(20 * time.Millisecond) // arrive in order
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a waiter past its deadline: %v", err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	for i, got := range order {
		if got != i {
			t.Fatalf("served in the order %v; want 0 1 2 3 4", order)
		}
	}
	if len(order) != 5 {
		t.Fatalf("served %v", order)
	}
}
