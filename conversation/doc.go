// Package conversation is layer 1, short-term memory: the message model shared by the agent,
// the providers and the transcript, the conversation chain, the read cache and token
// accounting.
//
//   - History is the chain of entries (UUID v7, parent UUID), oldest first. Nothing is removed
//     from it; Fit leaves isMeta entries out of a request first (never one holding tool calls
//     or results) and returns ErrOverBudget when that is not enough, so the caller compacts.
//   - ReadCache records what the model was shown of each file (content, mtime, range, partial
//     or not), an LRU of 100 files and 25 MB keyed by NormalizePath. Reread gives
//     UnchangedStub only for a full view of the same range at the same mtime; CheckWritable
//     refuses Edit/Write of an existing file not seen in full, or changed since; an evicted
//     view never yields a stub. Snapshot/Restore carry paths, mtimes and ranges across a
//     resume, skipping (and reporting) files that changed.
//   - Accountant gives the context size: the provider's Usage for the last request plus
//     tokens.Estimate for what came after; the estimate alone while no usage was reported.
//     Usage is strata's one usage type (llm.Usage is an alias).
//   - Check and Repair are the one rule for a valid request: the user's first, no empty
//     message, roles alternating (Merge), every tool_use answered in the next message, every
//     tool_result answering a call of the message before. Repair never edits its input, says
//     what it changed, and answers a call without a result as Interrupted.
//   - Provenance records where a user message's parts came from (typed, pasted, attached,
//     command output) and whether it is pinned, when it arrives.
//   - History, ReadCache and Accountant are safe for concurrent use.
package conversation
