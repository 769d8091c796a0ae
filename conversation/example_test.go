package conversation_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/strata-mem/strata/conversation"
)

// A Read tool records what it showed; an identical re-read gets the stub; a partial view blocks
// edits until a real Read.
func ExampleReadCache() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "说明.md")
	os.WriteFile(path, []byte("---\nname: x\n---\n正文\n"), 0o600)
	fi, _ := os.Stat(path)

	c := conversation.NewReadCache(conversation.ReadCacheOptions{})
	// Injected with its frontmatter stripped: a partial view.
	c.Record(conversation.FileState{Path: path, Content: "正文\n", ModTime: fi.ModTime(), Partial: true, Source: conversation.SourceInjected})
	fmt.Println(errors.Is(c.CheckWritable(path), conversation.ErrPartialView))

	// The Read tool shows the whole file.
	if _, ok := c.Reread(path, 0, 0, fi.ModTime()); !ok {
		c.Record(conversation.FileState{Path: path, Content: "---\nname: x\n---\n正文\n", ModTime: fi.ModTime()})
	}
	fmt.Println(c.CheckWritable(path))
	stub, ok := c.Reread(path, 0, 0, fi.ModTime())
	fmt.Println(ok, stub == conversation.UnchangedStub)
	// Output:
	// true
	// <nil>
	// true true
}

// The provider's usage is exact for what was sent; what was appended since is estimated.
func ExampleAccountant() {
	var a conversation.Accountant
	a.Observe(conversation.Usage{InputTokens: 10, CacheReadInputTokens: 5000, OutputTokens: 200})
	a.Add(conversation.NewText(conversation.User, "请把测试也改一下")) // 8 CJK characters
	fmt.Println(a.Tokens())
	// Output: 5218
}
