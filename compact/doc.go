// Package compact keeps a conversation inside its context window without losing the task.
//
//   - Thresholds (ThresholdsFor, Thresholds.Level): with effective = window − min(maxOutput,
//     20K), auto-compaction starts at effective − 13K (never below half the window), a warning
//     20K before, and requests are refused at window − 3K. The count is the caller's
//     (conversation.Accountant).
//   - Run is pure: Input holds values only (history, token count, prefix estimate, notes text,
//     budgets, what to re-inject), and it returns the transcript entries to append, the new
//     chain and the file views re-injected. It reaches no read cache, store, instruction set
//     or recall session; applying the result is the caller's, after a success.
//   - Never bigger: the result, prefix included, aims at Budget.Target (the automatic threshold
//     over PostCompactDivisor) for any window, BudgetFor sharing the room; a result over it
//     carries a Note, and one not MinGainPercent smaller is refused (ErrNotSmaller) with
//     nothing to write, before any model call when what must be carried is already that large.
//   - The summary is the session notes when they hold more than the template (HasNotes), with
//     every message after the one Notes.MarkCovered recorded kept (10K–40K tokens, at least 5
//     text messages, never starting on an orphan tool result); else a model summary with fixed
//     Sections. Summarize chunks a long history and rolls the summaries up, each recording the
//     uuid range it covers, level-0 ranges covering every message once.
//   - The user's messages are carried verbatim inside the summary message, pinned first.
//     Pinning is explicit: the first request and what the user pinned
//     (conversation.Provenance.Pinned, /pin), never a message for its words. An unpinned
//     message keeps what the user typed: parts its provenance marks pasted, attached or
//     command output become a line saying so (no record: carried whole).
//   - Pinned messages over budget are condensed by the model into one numbered item per
//     message; a message without its item is carried verbatim when it fits, else listed in
//     Result.Lost and named in the Note. The others fill their budget newest first (the latest
//     always whole) and the number left out is stated.
//   - The result's entries: a compact_boundary (parentUuid null, logicalParentUuid the old
//     leaf), the summary flagged isCompactSummary, then meta attachments and kept messages,
//     with the chain's uuids. Re-injected: the files RecentFiles picks (5 most recent read or
//     written, not injected views, not in the new prompt; 5K tokens each, 50K in all), todos,
//     tasks and the active conditional rules and nested files.
//   - Breaker stops automatic compaction after MaxFailures failures in a row, or MaxRefills
//     refills past the threshold within RefillTurns turns of a compaction (thrash), saying why;
//     manual compaction always runs and its success turns auto back on.
//   - Session notes (NotesPath: <transcript>/session-memory/summary.md) are kept by a forked
//     agent in the background (NotesWorker, one update at a time, through Forker under
//     Notes.Policy) when NotesTracker says so: at 10K tokens, then +5K with 3 tool calls or a
//     turn without any.
//   - Notes writes that one file only (else ErrNotesOnly; a symlinked file or directory is
//     ErrNotesSymlink), atomically through an os.Root, and refuses a change that makes
//     CheckNotes worse (template headings, 2K tokens a section, 12K in all); findings the file
//     already had do not block. CheckNotes never panics (fuzzed).
package compact
