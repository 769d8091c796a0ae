// Package extract is layer 4's background work on the memory dir: extraction (a forked agent
// saving memories after a turn), the dream (consolidation) and forgetting.
//
// Extraction:
//
//   - Worker is a session's memory work: told about each finished turn with a compact.Snapshot,
//     it forks through the snapshot's compact.Forker under Policy, keeps its cursor (skipped
//     and advanced after the main agent's own memory writes, started over after a compaction)
//     and triggers auto-dream; Close drains it with a time limit.
//   - Scheduler runs it every Every-th turn (memoryExtractEvery), one run at a time in a
//     goroutine it owns; a request mid-run is kept and run once after it; Turn never blocks;
//     Drain waits with a time limit, then cancels and waits; a panicking run is a failure.
//   - Prompt writes the extractor's instructions with the existing memories and the project's
//     Guidance (memory/EXTRACT.md, capped at MaxGuidanceBytes; binary or non-UTF-8 is an error
//     naming file and line).
//   - ReadOnlyCommand is the extractor's shell policy on internal/shell: the table's reading
//     programs with their known-safe options, joined by pipes and lists, and no construct the
//     analyser reports (redirections, substitutions, subshells, expansions, xargs). Fuzzed:
//     ">" outside quotes is never allowed.
//   - Confined is the only way the extractor writes: through an os.Root on the memory dir,
//     *.md topic files directly in it only — never MEMORY.md, EXTRACT.md, hidden files,
//     symlinks, "..", look-alike separators, invalid or oversized content, secrets, a file
//     without name, description and known type, or a second file for an existing name. Every
//     refusal wraps ErrDenied with the reason for the model and is listed by Denied.
//   - Writes are atomic, 0600, under the store's lock, MEMORY.md brought in step in the same
//     locked step; an index refusal puts the file back and is reported.
//   - Provenance: in auto mode a write not Grounded in what the user typed (more of its words
//     from tool results) is held in .inbox/ and the model told why (HoldUngrounded, fed by
//     compact.Snapshot.Sources).
//   - Modes (memoryExtraction): WriteAuto writes live; WriteConfirm stages in .inbox/ for
//     Inbox, Accept and Reject; WriteReadOnly refuses every call. Accept applies the same
//     rules and removes the staged copy only once live; Reject moves it to .archive/inbox/
//     with an ARCHIVE.log line.
//
// Dream:
//
//   - PlanDream proposes, writing nothing: merge (near-duplicates, generic labels such as
//     "**Why:**" left out; the newer kept), supersede (same subject, same key with another
//     value; the newer wins), stale (a path or symbol the project lost: flagged only), forget
//     (only on evidence: watched, unsurfaced in ForgetSessions eligible sessions and unused for
//     ForgetAfter; age alone never), dangling (index lines without a file: proposed only),
//     condense and index (while MEMORY.md is over its limits, its blank, repeated and
//     empty-heading lines go, memdir.CondenseLines, then the least recently used memories'
//     lines; no memory is archived to fit the index, and they stay in the store and recall).
//   - ExactOnly (the automatic run) archives exact duplicates only and proposes the rest.
//     Each step's ID hashes its kind, files and content: Options.Only carries out the steps
//     it names, and ids in RejectLog (.archive/REJECTED.log) stay out while files are
//     unchanged.
//   - With a model, AskModel asks once for merges and contradictions with reasons;
//     ParseModelReply refuses any other shape (ErrModelReply) and then nothing is archived.
//     A proposal archives only between memories about the same subject, keeping the newer;
//     otherwise it stays a proposal whose Guard says why. SaveModelProposals keeps the last
//     ones (.archive/MODEL-PROPOSALS.json); a proposal whose files changed is dropped.
//   - Apply archives only through memdir.Store.Forget (moved to .archive/) and takes index
//     lines out only through Store.CondenseIndex, Unindex and DropIndexLines, each with an
//     ARCHIVE.log record; UndoLastDream puts the newest dream back byte for byte. Distil turns
//     finished daily logs into topic memories and archives the log; a failure leaves it.
//   - The auto-dream gate: ShouldDream (24 h and 5 sessions), Gate (scans at most every 10
//     minutes), AcquireLock (.consolidate-lock: mtime the last run, body the PID, stale after
//     1 h or when the holder is dead).
//   - Planning never writes; nothing is deleted; a failed step stops Apply naming the file,
//     earlier steps staying done and logged. Deterministic but for Distil and AskModel: the
//     same dir, statistics, repo, clock and proposals give the same plan. Chinese text is
//     compared per character.
//
// The thresholds and the user's view are in docs/memory-dream.md.
package extract
