package extract

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-mem/strata/internal/fsutil"
	"github.com/strata-mem/strata/memdir"
)

// TestConfinedWriteFaults fails each step of the atomic write, and then each step of the index
// update that follows it: the old file and the old index must stay, no temp file may be left,
// and the error must not pass for a denial.
func TestConfinedWriteFaults(t *testing.T) {
	old := memText("tabs", "indent with tabs", "feedback", "old body")
	next := memText("tabs", "indent with tabs, width 8", "feedback", "new body")
	type fault struct {
		name  string
		step  string // the step of the file's atomic write to fail, or ""
		index [4]int // failures in the store's index write: create, write, rename, sync dir
	}
	faults := []fault{
		{name: "create", step: "create"}, {name: "write", step: "write"},
		{name: "sync", step: "sync"}, {name: "rename", step: "rename"},
		{name: "index create", index: [4]int{1, 0, 0, 0}},
		{name: "index write", index: [4]int{0, 1, 0, 0}},
		{name: "index rename", index: [4]int{0, 0, 1, 0}},
		{name: "index sync dir", index: [4]int{0, 0, 0, 1}},
	}
	for _, existed := range []bool{true, false} {
		for _, f := range faults {
			t.Run(fmt.Sprintf("%s/existed=%v", f.name, existed), func(t *testing.T) {
				ctx := t.Context()
				faulty := &fsutil.Faulty{}
				c, _, dir, _ := newConfined(t, WriteAuto, memdir.Options{FS: faulty})
				if existed {
					if _, err := c.Write(ctx, "tabs.md", old); err != nil {
						t.Fatal(err)
					}
				}
				before := tree(t, dir)
				// The Faulty counts from the store's first write: the setup's index write is
				// the first of each kind when the file existed.
				at := func(n int) int {
					if n > 0 && existed {
						return n + 1
					}
					return n
				}
				faulty.FailCreate, faulty.FailWrite, faulty.FailRename, faulty.FailSyncDir = at(f.index[0]), at(f.index[1]), at(f.index[2]), at(f.index[3])
				if f.step != "" {
					rootFS = func(r *os.Root) fsutil.FS {
						fail := &fsutil.Faulty{FS: fsutil.RootFS(r)}
						switch f.step {
						case "create":
							fail.FailCreate = 1
						case "write":
							fail.FailWrite = 1
						case "sync":
							fail.FailSync = 1
						case "rename":
							fail.FailRename = 1
						}
						return fail
					}
					t.Cleanup(func() { rootFS = fsutil.RootFS })
				}
				_, err := c.Write(ctx, "tabs.md", next)
				if err == nil || errors.Is(err, ErrDenied) {
					t.Fatalf("Write = %v; want a failure that is not a denial", err)
				}
				after := tree(t, dir)
				delete(before, memdir.LockFile)
				delete(after, memdir.LockFile)
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("dir changed by a failed write (-before +after):\n%s", diff)
				}
				for p := range after {
					if strings.Contains(p, ".tmp") {
						t.Errorf("temp file %s left", p)
					}
				}
				if len(c.Written()) != map[bool]int{true: 1, false: 0}[existed] {
					t.Errorf("Written = %v", c.Written())
				}
			})
		}
	}
}
