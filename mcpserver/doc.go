// Package mcpserver serves a project's strata memory over the Model Context Protocol, so that
// any MCP client (Claude Code, Claude Desktop, Cursor, Codex, Gemini CLI …) reads and writes
// the same memory as strata itself.
package mcpserver
