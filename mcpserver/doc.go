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
//     symlink leads anywhere else, and only as regular files (a FIFO or device is refused at
//     once); instruction files from outside the project and STRATA_HOME are listed as withheld,
//     never read out.
//   - Secrets: every string of a tool result and every resource text passes
//     memdir.WithholdSecrets; a line that looks like a credential (plain or obfuscated) reaches
//     the client as a marker naming its kind.
//   - Freshness: a save or forget through the server updates the search index and the resource
//     list before the call returns. Changes made by others are picked up by a watcher that polls
//     the memory directory (Options.PollInterval, reading only files whose size, mtime or inode
//     changed) and announced with resources/list_changed and resources/updated.
//   - Errors: a bad argument is a tool error that says what to fix; a panic in a handler fails
//     that call only; over stdio a line that is not a JSON-RPC message gets a JSON-RPC error
//     (parse error or invalid request) and the session goes on. Any number of sessions may
//     call tools at once.
//   - Start: the project's store is read and indexed in the background, so initialize and
//     tools/list are answered at once; calls that need the memories wait for it.
//   - Lifetime: the goroutines the Server starts (that reading, the watcher, the recall
//     recorder) end with Close, which waits for them.
//     RunStdio answers every call it has read before returning, so a client that closes its
//     input right after a write still gets the write done. Once ctx is cancelled, Run (and
//     Close, for the watcher) waits at most 5 s for what is still running, so a call stuck in
//     a system call cannot keep the process from ending.
//   - HTTP: Handler serves the streamable HTTP transport at /mcp with optional Bearer
//     authentication and the Origin check the MCP specification asks for; CheckListenAddr
//     refuses non-loopback addresses without a token. Serve bounds request headers (5 s), bodies
//     (16 MB, 10 s), each response write (30 s), the calls handled at once (128, counted after
//     authentication), the open connections (2,048, idle ones closed early when that is near)
//     and the event streams (1,024); sessions idle for 5 minutes are closed (HTTPOptions).
//     A notification that cannot reach some sessions is logged as one line counting them.
package mcpserver
