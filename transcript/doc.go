// Package transcript is layer 5, checkpoints: each session's append-only JSONL journal in Claude
// Code's format ($STRATA_HOME/projects/<slug>/<sessionId>.jsonl, subagents under
// <sessionId>/subagents/), and everything that reads it back: resume, listing, search, export,
// archiving.
//
//   - The file (0600, directories 0700) is created at the first user or assistant entry;
//     entries before it wait in memory.
//   - Journal writes every 100 ms from a goroutine it owns, and on Flush; Sync (every turn end)
//     and Close also fsync: after Sync returns nil every entry appended before it is durable.
//   - One line a record: a failed or short write is cut back and retried, and a torn last line
//     left by a crash is cut off when the file is next opened for writing.
//   - One writer per file: a Journal holds an flock; a second gets ErrLocked.
//   - Session metadata is re-appended at Close when it drifted more than half a TailWindow
//     from the end, so listing finds it in the tail; a summary or AI title only when it was in
//     the tail already, so Claude Code's title does not change.
//   - Conversation entries get session id, cwd, version and git branch (GitBranch reads HEAD)
//     when they have none.
//   - Unknown entry types and keys survive a round trip (Entry.Raw); a corrupt line is skipped
//     and reported with its line number.
//   - BuildChain rebuilds the chain as Claude Code's loader does: progress lines bridged, the
//     leaf the newest user or assistant entry ending a branch, parentUuid followed cycle-safe
//     and across compact boundaries, parallel tool calls put back. Files over 5 MB are read
//     from their last compact boundary unless the full history is asked for.
//   - Listing reads at most 64 KB from each end of a file; with ListOptions.Index it opens only
//     files whose size, mtime, ctime or inode changed, so it is never stale.
//   - Title is the one rule for a session's title (custom, AI, a summary whose leaf is in the
//     file, the first real prompt).
//   - Nothing is deleted: retention (cleanupPeriodDays, only when set) and Archive move files
//     and report what moved.
//   - Session gives resume its raw material: the chain (Live, Turns, Messages, RequestFixes),
//     Metadata, LastTodos, FileSnapshots, ReadToolUses and OfType.
package transcript
