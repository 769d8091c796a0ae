package extract_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/strata-mem/strata/extract"
	"github.com/strata-mem/strata/memdir"
)

// The extractor writes memory only through a Confined: a topic file directly in the memory dir
// is written and indexed; a path out of it is refused with a reason for the model.
func ExampleConfined() {
	base, _ := os.MkdirTemp("", "strata-example")
	defer os.RemoveAll(base)
	store, _ := memdir.Open(filepath.Join(base, "memory"), memdir.Options{})
	c, err := extract.OpenConfined(store, extract.WriteAuto)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	ctx := context.Background()

	msg, err := c.Write(ctx, "deploy.md", "---\nname: deploy\ndescription: how releases go out\ntype: project\n---\n\nTag, then run the release job.\n")
	fmt.Println(msg, err)
	_, err = c.Write(ctx, "../outside.md", "x")
	fmt.Println(errors.Is(err, extract.ErrDenied), c.Denied()[0].Reason)
	idx, _ := os.ReadFile(store.IndexPath())
	fmt.Print(string(idx))
	// Output:
	// created deploy.md (100 bytes); MEMORY.md is in step <nil>
	// true ".." is not allowed in a memory path
	// - [deploy](deploy.md) — how releases go out
}

func ExampleReadOnlyCommand() {
	for _, cmd := range []string{
		"git log --oneline -3 | head -1",
		"grep -rn TODO . > todo.txt",
		"find . -name '*.tmp' -delete",
	} {
		ok, why := extract.ReadOnlyCommand(cmd)
		fmt.Println(strings.TrimSpace(fmt.Sprint(ok, " ", why)))
	}
	// Output:
	// true
	// false redirection (>)
	// false find -delete is not on the list of read-only find primaries
}
