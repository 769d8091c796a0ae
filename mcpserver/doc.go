// Package mcpserver serves a project's strata memory over the Model Context Protocol (the
// official Go SDK), so that any MCP client reads and writes the same memory as strata itself.
//
//   - Tools: memory_search (the recall ranker over a warm index; at most 5 memories, each cut
//     at 200 lines / 4,096 bytes), memory_get, memory_save, memory_forget (through
//     memdir.Store, with its checks, atomic under its lock), memory_list, instructions and
//     session_search. Resources: MEMORY.md and every memory file under strata://memory/.
//   - Scope: one project (Options.Project, else the client's first root, else the working
//     directory). Paths go through an os.Root, memory files are read as regular files only,
//     and instruction files outside the project and STRATA_HOME are listed as withheld.
//   - Secrets: every string of a result and every resource text passes
//     memdir.WithholdSecrets.
//   - Freshness: a save or forget updates the index and resource list before the call returns;
//     others' changes are picked up by polling (Options.PollInterval) and announced with
//     resources/list_changed and resources/updated.
//   - Errors: a bad argument is a tool error saying what to fix; a panic fails that call only;
//     a stdio line that is not JSON-RPC gets a JSON-RPC error and the session goes on.
//   - Start and stop: the store is indexed in the background, so initialize and tools/list
//     answer at once. Close waits for every goroutine the Server starts; RunStdio answers every
//     call it has read; once ctx is cancelled, what is still running gets at most 5 s.
//   - HTTP: Handler serves streamable HTTP at /mcp with optional Bearer authentication and the
//     Origin check; CheckListenAddr refuses non-loopback addresses without a token. Headers,
//     bodies, writes, calls at once, connections, event streams and idle sessions are bounded
//     (HTTPOptions; the figures are in docs/mcp.md and docs/security.md).
//   - Team: with a tokens file (LoadTokens), each user reaches only the stores granted, a
//     store not granted is "not found", and every write records its author.
package mcpserver
