package memdir

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestLockedReindexAndExclusion(t *testing.T) {
	ctx := t.Context()
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	added := make(chan error, 1)
	err = s.Locked(ctx, func(tx *Tx) error {
		data := "---\nname: 部署\ndescription: 如何部署\ntype: project\n---\n\n先构建。\n"
		if err := tx.Root().WriteFile("deploy.md", []byte(data), 0o600); err != nil {
			return err
		}
		// An Add from elsewhere must wait for the lock.
		go func() { _, err := s.Add(context.Background(), Input{Name: "other", Type: TypeUser}); added <- err }()
		select {
		case err := <-added:
			t.Errorf("Add finished while the lock was held: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		changed, err := tx.Reindex(ctx, "deploy.md")
		if err != nil || !changed {
			t.Errorf("Reindex = %v, %v; want true, nil", changed, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-added; err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(s.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"- [部署](deploy.md) — 如何部署", "- [other](other.md)"} {
		if !strings.Contains(string(idx), want) {
			t.Errorf("index %q lacks %q", idx, want)
		}
	}
}
