// Package compact keeps a conversation inside its context window without losing the task.
//
// Thresholds: with effective = window − min(maxOutput, 20K), automatic compaction starts when
// the context exceeds effective − 13K, the user is warned 20K before that, and new requests
// are refused at window − 3K (ThresholdsFor, Thresholds.Level). For small windows, where those
// fixed margins would leave nothing, auto-compaction starts at half the window at the earliest.
// The context's size is the caller's: the provider's reported usage of the last response plus
// an estimate of what was added since (conversation.Accountant).
//
// Run compacts a history and is pure: its Input holds values only (the history, the caller's
// token count and request-prefix estimate, the session notes' text, the budgets and what to
// re-inject), and it returns its decision — the transcript entries to append, the new context,
// the file views re-injected — for the caller to apply. The compacted context, prefix
// included, aims at Budget.Target: the automatic threshold divided by PostCompactDivisor (half),
// for any window; BudgetFor shares the room among the summary, the pinned and the recent user
// messages, the files and the kept tail. A result over the target carries a Note saying why; a
// result that would not be at least MinGainPercent smaller than the context is refused with a
// *NotSmallerError (ErrNotSmaller) and nothing to write — before any model call when what must
// be carried is already that large.
// When the session notes hold notes they are the summary and the recent messages (10K–40K
// tokens, a quarter to a half of the room in a smaller window, at least 5 text messages, never
// starting on an orphan tool result) are kept; otherwise the model writes a summary with fixed
// sections (Sections, "Standing instructions" among them).
// When the history is too long for one summary call, Summarize cuts it into consecutive
// chunks, summarises each, and rolls the chunk summaries up, as many levels as needed; every
// summary records the uuid range it covers, and the level-0 ranges cover the summarised
// messages exactly once, in order.
//
// Session notes: a running notes file per session (NotesPath: <transcript without
// .jsonl>/session-memory/summary.md) that a restricted forked agent keeps up to date in the
// background, and that Run uses as the summary (read with ReadSessionNotes). NotesTracker says when an update is due: once
// the context reaches NotesInitTokens (10K), then after NotesUpdateTokens (+5K) of growth and
// either NotesUpdateToolCalls (3) tool calls or a turn without tool calls. A new file starts
// from NotesTemplate (a title and eight "## " sections, each with an italic description line);
// NotesPrompt is the fork's instruction; Notes is the only thing the fork may write through.
// NotesWorker runs the updates in the background, one at a time, forking through Forker (the
// agent's fork, from each turn's Snapshot) under Notes.Policy.
//
// Guarantees of the session notes:
//   - Notes writes exactly one file: any other path (after cleaning; relative paths are never
//     accepted) and any call but a decoded Edit or Write is refused with ErrNotesOnly. Reads and writes
//     go through an os.Root opened on the notes directory after checking that neither the
//     directory nor the file is a symlink (ErrNotesSymlink), and that the directory opened is
//     the one checked.
//   - Every write is atomic (temp file, fsync, rename, fsync of the directory; 0600 in a 0700
//     directory); on any error the file is left as it was and no temp file remains.
//   - A change is refused, naming what to fix, when it makes CheckNotes' findings worse: a
//     heading or description line removed, a heading doubled or invented, a section over
//     NotesSectionTokens (2K) or the whole over NotesTotalTokens (12K), counted with package
//     tokens (a CJK character is about one token). Findings the file already had do not block
//     a change, so notes that were off can be mended a step at a time.
//   - Run uses the notes only when they hold more than the bare template (HasNotes). When
//     Notes.MarkCovered recorded the last message an update saw, Run keeps every later
//     message, and uses a model summary instead when those exceed the keep limit (KeepMaxTokens,
//     or half the room in a smaller window; Budget.KeepMax) or the result would miss its
//     target: messages the notes do not cover are never dropped.
//   - CheckNotes never panics (fuzzed); headings inside fenced code do not count.
//
// Guarantees of compaction:
//   - The user's own messages are carried verbatim by the engine inside the summary message,
//     pinned ones first. Pinning is explicit: the session's first request and the messages the
//     user pinned (conversation.Provenance.Pinned, /pin), recognised again by later
//     compactions; no message is pinned for its words.
//   - A carried message that is not pinned holds what the user typed: the parts its recorded
//     provenance marks pasted, attached or command output are replaced by a line saying so.
//     Pinned messages, the latest message and messages with no record (older transcripts,
//     Claude Code's) are carried whole.
//   - Pinned messages over their budget are condensed by the model into a numbered list, one
//     item per message (Result.Condensed). A message without its item is carried verbatim
//     when the budget allows, newest first, and otherwise listed in Result.Lost and named in
//     the Note and the summary; a failed or useless condensation leaves them all verbatim. A
//     pinned message is never dropped silently.
//   - The other messages fill their budget from the most recent backwards (the latest always
//     whole), and the number left out is stated.
//   - The result is the transcript entries to append (a system/compact_boundary entry with a
//     null parentUuid and logicalParentUuid = the old leaf, then the summary as a user entry
//     flagged isCompactSummary, then meta attachments and kept messages) and the matching new
//     conversation chain with the same uuids.
//   - Re-injected: the files RecentFiles picks — the 5 most recent the model read or wrote, each
//     once, not injected views (instruction files, recalled memories) and not files the new
//     prompt holds (Reinject.InPrompt) — within the files' share (5K tokens each, 50K in all at
//     most), then todos, tasks, and the conditional rules and nested instruction files that
//     were active, as the caller re-read them from disk. Result.FileViews are the views as
//     re-injected.
//   - Run changes no state: it reaches no read cache, store, instruction set or recall
//     session (Input holds none). Re-reading instructions and the memory index, refilling the
//     read cache, resetting recall and writing the transcript are the caller's, after a
//     success.
//   - Breaker stops automatic compaction after MaxFailures consecutive automatic failures, or
//     when the context refilled past the threshold within RefillTurns turns of a compaction
//     MaxRefills times in a row (thrash), and returns a message for the user that says why and
//     what to do; manual compaction is always allowed and its success re-enables auto.
package compact
