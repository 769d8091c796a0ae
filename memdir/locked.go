package memdir

import (
	"context"
	"fmt"
	"os"
)

// Tx is the memory directory held under its write lock, as given to the function passed to
// Store.Locked. It is valid only during that call.
type Tx struct {
	s    *Store
	root *os.Root
}

// Locked takes the directory's write lock (creating the directory, 0700, when missing), opens
// the directory as an os.Root and runs fn. Every other writer — this store's Add, Forget and
// Reindex, other Stores and other processes — waits until fn returns, so a caller can read,
// write through tx.Root() and re-index as one step. fn must not call the Store's own write
// methods (they take the same lock and would wait for ever): it uses tx.Reindex instead.
func (s *Store) Locked(ctx context.Context, fn func(tx *Tx) error) error {
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	root, ok, err := s.openRoot()
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("memdir: open %s: the directory vanished", s.dir)
	}
	defer root.Close()
	return fn(&Tx{s: s, root: root})
}

// Root returns the memory directory opened as an os.Root: no path through it leaves the
// directory, symlinks included. It is closed when Locked returns.
func (t *Tx) Root() *os.Root { return t.root }

// Reindex is Store.Reindex for a caller inside Locked: the index line of file is brought in
// step with the file (or removed when the file is gone), under the limits; on a refusal
// (ErrIndexFull, *SecretError) MEMORY.md is left as it was.
func (t *Tx) Reindex(ctx context.Context, file string) (changed bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	file, err = cleanRel(file)
	if err != nil {
		return false, err
	}
	return t.s.reindex(t.root, file)
}
