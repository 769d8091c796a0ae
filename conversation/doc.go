// Package conversation is layer 1, short-term memory: the message model shared by the agent,
// the providers and the transcript, the conversation chain, the read cache that answers
// "unchanged since last read", and token accounting.
//
// History is the chain of entries, each with a UUID (v7) and its parent's UUID, oldest first.
// Entries flagged IsMeta were injected by the engine; when a request does not fit, Fit leaves
// them out first (oldest first, never one holding tool calls or results) and reports
// ErrOverBudget when that is not enough, so the caller compacts. Nothing is removed from the
// chain itself.
//
// ReadCache is the reference's readFileState: an LRU of at most 100 files and 25 MB of content
// (sizes in bytes, so Chinese text counts three bytes a character), keyed by NormalizePath
// (absolute, cleaned, symlinks resolved when the file or its directory exists). It records what
// the model was shown of each file: content, mtime, the Read range and whether the view was
// partial (altered or truncated when injected). Guarantees:
//   - Reread returns UnchangedStub only for a non-partial Read view of the same range at the
//     same mtime; any mtime change means the content is read again.
//   - CheckWritable refuses Edit/Write of an existing file that was not seen, was seen only
//     partially, or changed on disk since (mtime and content); a file that does not exist may
//     be created.
//   - Evicted or cleared entries are forgotten entirely: a stub is never given for a view the
//     cache no longer holds. Compaction calls Clear, then re-injects the files from Recent.
//   - Snapshot/Restore carry paths, mtimes and ranges (not content) across a resume; Restore
//     skips, and reports, files that are gone or changed.
//
// Accountant gives the current context size: the provider's Usage for the last request, which
// is exact, plus tokens.Estimate for everything appended since (about 4 bytes a token for Latin
// text, one token per CJK character); while no usage was reported (a fresh or just-compacted
// chain, a provider that reports none) it is the estimate alone. Entry.Usage carries a reply's
// usage; Accountant.Append and ContextTokens read it from a chain. Usage is strata's one usage
// type (llm.Usage is an alias).
//
// Check and Repair decide, in one place, whether messages make a valid request: the first
// message the user's, no empty message or blank text, roles alternating (Merge joins
// consecutive messages of one role, tool results first), every tool_use answered by a
// tool_result at the start of the next message, every tool_result answering a call of the
// message before. Repair never edits its input and says what it changed; a call without a
// result gets an error result saying it was interrupted (Interrupted), as Claude Code answers
// one, and nothing but blank text and results answering no call is dropped.
//
// History, ReadCache and Accountant are safe for concurrent use.
package conversation
