// Package transcript is layer 5, checkpoints: the append-only JSONL journal of each session, in
// Claude Code's format, and everything that reads it back (resume, listing, search, export,
// archiving).
//
// Layout: $STRATA_HOME/projects/<slug of the working directory>/<sessionId>.jsonl, one JSON
// object per line; a subagent's transcript is <sessionId>/subagents/agent-<id>.jsonl with an
// agent-<id>.meta.json beside it and isSidechain set on its entries. Session ids are UUIDs
// (version 7 for new sessions).
//
// Guarantees of the writer (Journal):
//   - The file is created (0600, directories 0700) only when the first user or assistant entry
//     arrives; entries before it are buffered in memory.
//   - Entries are written every 100 ms by a goroutine the Journal owns (Close waits for it),
//     and on Flush; Sync, to be called at the end of every turn, and Close also fsync. After
//     Sync returns nil every entry appended before it is durable.
//   - Each record is one line. A failed or short write is cut back so that no partial record
//     sits between two good ones; the entries stay buffered and are retried. A file left with
//     a torn last record by a crash is repaired when it is next opened for writing (the
//     fragment, never reported durable, is cut off).
//   - One writer per file: the transcript is flock-ed while a Journal has it open; a second
//     Journal gets ErrLocked.
//   - Session metadata (titles, tag, last prompt, mode) is re-appended at Close when it has
//     drifted more than half a TailWindow from the end, so listing finds it in the tail. A
//     summary or AI title is re-appended only when it was in the tail already: Claude Code's
//     resume list takes them from the tail, and one moved there would change its title.
//   - Conversation entries get the session id, cwd, version and git branch (read from HEAD,
//     see GitBranch) when they have none.
//
// Guarantees of the reader:
//   - Unknown entry types and unknown keys are kept (Entry.Raw) and survive a read/write round
//     trip; they are never fatal.
//   - A torn or corrupt line is skipped and reported with its line number; every line is either
//     an entry or a Problem with Skipped set.
//   - The chain is rebuilt as Claude Code's loader rebuilds it (BuildChain): progress lines
//     bridged, the leaf the newest user or assistant entry that ends a branch, parentUuid
//     followed cycle-safe and across compact boundaries (parentUuid null, logicalParentUuid),
//     the sibling lines and results of parallel tool calls put back. Files over 5 MB are read
//     from their last compact boundary on, found by scanning backwards from the end, unless
//     the full history is asked for.
//   - Listing reads at most 64 KB from each end of a file (usually 8 KB and 16 KB). With
//     ListOptions.Index it remembers each file's Info keyed by its size, modification time,
//     change time and inode, stats every file at every listing and opens only those whose
//     key changed: the index never shows stale data, and an append made a moment before a
//     listing is in it.
//
// Nothing is ever deleted: retention (settings cleanupPeriodDays, only when set) and Archive
// move transcripts to an archive directory and report what moved.
//
// A session's title is decided in one place, Title (custom title, AI title, a summary whose
// leaf is in the file, the first real prompt), for listing and for loaded sessions alike.
//
// For resume, Session offers the raw material other layers turn into state: the chain (Live,
// Turns, Messages, RequestFixes), Metadata, LastTodos (the newest TodoWrite input), FileSnapshots, ReadToolUses and
// OfType for entry types other packages write.
package transcript
