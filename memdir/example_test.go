package memdir_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/memdir"
)

func ExampleStore_Add() {
	dir, _ := os.MkdirTemp("", "memdir-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, _ := memdir.Open(filepath.Join(dir, "memory"), memdir.Options{})
	res, err := s.Add(ctx, memdir.Input{
		Name:        "部署流程",
		Type:        memdir.TypeProject,
		Description: "how releases reach production",
		Body:        "Build, run the smoke tests, then tag.\n",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.File)
	idx, _ := s.LoadIndex(ctx)
	fmt.Print(idx.Content())
	// Output:
	// 部署流程.md
	// - [部署流程](部署流程.md) — how releases reach production
}

func ExampleStore_Changes() {
	dir, _ := os.MkdirTemp("", "memdir-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	s, _ := memdir.Open(dir, memdir.Options{})
	s.Add(ctx, memdir.Input{Name: "a", Type: memdir.TypeUser, Description: "first"})
	changed, _, snap, _ := s.Changes(ctx, memdir.Snapshot{})
	fmt.Println(len(changed), "read")
	s.Add(ctx, memdir.Input{Name: "b", Type: memdir.TypeUser, Description: "second"})
	changed, removed, _, _ := s.Changes(ctx, snap)
	fmt.Println(len(changed), "read:", changed[0].File, "removed:", len(removed))
	// Output:
	// 1 read
	// 1 read: b.md removed: 0
}
