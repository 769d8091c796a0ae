// Package mcpserver serves a project's strata memory over the Model Context Protocol (the
// official Go SDK), so that any MCP client — Claude Code, Claude Desktop, Cursor, Codex,
// Gemini CLI — reads and writes the same memory as strata itself.
//
// # Tools and resources
//
// Tools (typed input and output schemas): memory_search (recall's lexical ranker over a warm
// index; at most 5 memories, each cut at 200 lines / 4,096 bytes), memory_get, memory_save and
// memory_forget (through memdir.Store, so names, secrets and index limits are checked exactly
// as for the CLI, and writes are atomic under the store's lock), memory_list, instructions
// (the instruction context of a file or directory, with its sources) and session_search
// (snippets from transcripts). Resources: the MEMORY.md index and every memory file, under
// strata://memory/.
//
// # Guarantees
//
//   - Scope: a Server serves one project (Options.Project, else the client's first root, else
//     the working directory). Path arguments are resolved through an os.Root on the project and
//     memory files are read through an os.Root on the memory directory, so neither ".." nor a
//     symlink leads anywhere else; instruction files from outside the project and STRATA_HOME
//     are listed as withheld, never read out.
//   - Freshness: a save or forget through the server updates the search index and the resource
//     list before the call returns. Changes made by others are picked up by a watcher that polls
//     the memory directory (Options.PollInterval, reading only files whose size, mtime or inode
//     changed) and announced with resources/list_changed and resources/updated.
//   - Errors: a bad argument is a tool error that says what to fix; a panic in a handler fails
//     that call only. Any number of sessions may call tools at once.
//   - Lifetime: the watcher is the only goroutine the Server starts; Close stops it and waits.
//     RunStdio answers every call it has read before returning, so a client that closes its
//     input right after a write still gets the write done.
//   - HTTP: Handler serves the streamable HTTP transport at /mcp with optional Bearer
//     authentication and the Origin check the MCP specification asks for; CheckListenAddr
//     refuses non-loopback addresses without a token.
package mcpserver
