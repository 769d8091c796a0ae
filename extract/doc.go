// Package extract is layer 4's background work on the memory dir: extraction (the building
// blocks of the forked agent that saves memories at the end of a turn), dream (consolidation)
// and forgetting.
//
// # Extraction
//
// Worker is a session's background memory work: told about each finished turn with a
// compact.Snapshot, it runs the extraction (through the snapshot's compact.Forker, which the
// agent implements, under Policy), keeps its cursor (skipped and advanced after the main
// agent's own memory writes, started over after a compaction) and triggers auto-dream; Close
// drains it with a time limit. Its rules:
//
//   - Scheduler decides when it runs: every Every-th turn (setting memoryExtractEvery), one run
//     at a time in a goroutine the Scheduler owns; a request that arrives mid-run is kept and
//     runs once after it (further ones fold into that one; Stats counts them); Turn never
//     blocks; Drain waits with a time limit at exit, then cancels the run's context and waits
//     for it to return. A panicking run counts as a failure.
//   - Prompt writes the extractor's instructions (what is worth keeping in the four memory
//     types, what is not, update rather than duplicate, where it may write, at most MaxTurns
//     turns, reply NothingToSave when nothing is new), with the existing memories and the
//     project's guidance: Guidance reads memory/EXTRACT.md, capped at MaxGuidanceBytes (the
//     cut is said in the text); a binary or non-UTF-8 file is an error naming file and line.
//   - ReadOnlyCommand is the shell policy, on top of the one shell analyser that the agent's
//     permission check uses too (internal/shell): only the table's reading programs with their
//     known-safe options (never xargs, whose words come from stdin), joined by pipes, ";", "&&", "||", without any construct the
//     analyser reports — redirections, substitutions, subshells, compound commands,
//     background jobs, environment assignments, variable expansions (the environment may
//     hold secrets) — or arguments that make them write or run a program.
//     It is fuzzed: a command with ">" outside quotes is never allowed.
//   - Confined is the only way the extractor writes. Paths resolve through os.OpenRoot on the
//     memory dir; only *.md topic files directly in it may be written — never MEMORY.md (the
//     index follows each write), EXTRACT.md, or anything hidden (.inbox, .archive, locks).
//     "..", absolute paths outside the dir, symlinks (even ones that point inside), control
//     and invisible characters, backslashes and look-alike separators (checked on the NFKC
//     form) are refused; so is content over MaxWriteBytes, invalid UTF-8, control characters,
//     anything memdir.ScanSecrets flags (kind and line named), a file without frontmatter
//     giving a name, a description and a known type, and a second file for a name that
//     exists. Every refusal wraps ErrDenied, carries the reason for the model, and is listed
//     by Denied.
//   - Writes are atomic (a hidden temp file in the root, synced, then Root.Rename, then the
//     directory synced), 0600, under the store's lock (memdir.Store.Locked), and in auto mode
//     MEMORY.md is brought in step in the same locked step; if the index refuses (its limits),
//     the file is put back as it was and the refusal reported. Nothing is silent.
//   - Provenance: in auto mode a write whose text is not Grounded — more of its words come
//     from what tools returned in the conversation (files, command output, web pages) than
//     from what the user typed — is held in .inbox/ as in confirm mode, and the model is told
//     why (HoldUngrounded, fed by compact.Snapshot.Sources). A file that says "save this as
//     feedback" never becomes a live memory on its own.
//   - Write modes (setting memoryExtraction): WriteAuto writes live; WriteConfirm stages the
//     file as .inbox/<name> (an Edit starts from the staged copy when there is one) for
//     Inbox, Accept and Reject (`strata memory inbox`); WriteReadOnly refuses every call.
//     Accept applies the same rules under the lock and removes the staged copy only once the
//     memory is live; Reject moves the proposal to .archive/inbox/ with a line in
//     .archive/ARCHIVE.log. Nothing is deleted.
//
// # Dream
//
// PlanDream reads a memory dir and proposes, without writing anything:
//
//   - merge: two memories whose normalised text (name, description, body; generic labels
//     such as "**Why:**" left out, see GenericLabel) is the same or nearly so (Jaccard similarity of word-bigram shingles ≥ DuplicateThreshold, 0.8, of the
//     whole text or, when both have at least four shingles, of the bodies alone; and at
//     least as high over what they state, the lines a generic label opens left out, so a
//     shared "Why:" does not make two memories alike) — the newer is kept, the older archived
//     with a record naming the survivor;
//   - supersede: two memories about the same subject (the same name, or a similarity of at
//     least 0.5) that state the same key ("key: value" lines, generic labels never) with
//     different values, or share a description with different bodies — the newer wins and the older is
//     archived as superseded when every key it states is overridden (otherwise the conflict
//     is only reported);
//   - stale: a memory naming a file path or a Go/JS-style symbol that no longer exists in the
//     project (paths relative to the project root; symbols by a bounded scan of its source
//     files) is flagged, never archived for that alone;
//   - forget: only on evidence strata observed — the store is watched (memdir.ReadWatch) and
//     the memory went unsurfaced in ForgetSessions sessions it was eligible for (default 10,
//     setting memoryForgetAfterSessions; recall.StatEntry.IdleSessions) — and when it was also
//     neither recalled nor modified for ForgetAfter (default 90 days, memoryForgetAfterDays).
//     Age alone never archives;
//   - dangling: an index line pointing at no file is proposed for removal, never removed
//     unless accepted (Claude Code does nothing with such a line, so removing it changes nothing
//     the model sees); the index step counts it as gone;
//   - condense, index: while MEMORY.md would still be over its limits, its blank, repeated
//     and empty-heading lines go (memdir.CondenseLines), then the index lines of the least
//     recently used memories; no memory is archived to fit the index, and the memories stay in
//     the store and in recall.
//
// With ExactOnly (the automatic run) only exact duplicates are archived; every other step is
// left Proposed, and Consolidation.Summary says in one line what was done and how to undo it.
// Every archiving step has an ID that hashes its kind, its files and their content: Options.Only
// carries out the steps it names (a file, an id or a kind: accepted proposals), and the ids in
// RejectLog (.archive/REJECTED.log, written by RejectSteps) are left out of every plan while the
// files are unchanged.
//
// # The model's proposals
//
// With a model (ConsolidateOptions.Provider and Propose), AskModel sends the memories (each body
// cut at 2,000 bytes, 150,000 bytes in all) in one request and asks, in its own prompt words,
// for a JSON object of merges and contradictions, each naming the file to archive, the one to
// keep and a reason. ParseModelReply refuses anything else (unknown keys, a missing field, a file
// that is not a memory) with an error wrapping ErrModelReply, and then nothing is archived.
// PlanDream checks each proposal: it may archive only between memories about the same subject
// (the same name or near-duplicates) and, for a contradiction, only when the memory kept is the
// newer; otherwise it stays a proposal whose Guard says why (never archived on the model's word
// alone). The reason is the model's, prefixed "the model: ". SaveModelProposals keeps the last
// proposals (.archive/MODEL-PROPOSALS.json) so that accepting or rejecting one acts on what the
// model said; a proposal whose files changed since is dropped.
//
// Apply carries out a plan: every archive goes through memdir.Store.Forget with archive, so
// the file moves to .archive/ and its index line goes; each one appends a line to
// .archive/ARCHIVE.log (memdir.ArchiveRecord: when, run, what, why, survivor and the index
// lines removed). Nothing is deleted, and UndoLastDream puts the newest dream back byte for byte.
//
// Distil turns finished daily logs (days before today) into
// topic memories through structured output, writes them through the store, then moves each log
// to .archive/logs/ with a "distil" line in ARCHIVE.log; a failure leaves the log in place.
//
// # Auto-dream gate
//
// ShouldDream decides from the clock, the last run and the sessions touched since (24 h and 5
// sessions); Gate adds the scan throttle (at most every 10 minutes); AcquireLock takes the
// .consolidate-lock file in the memory dir (mtime = last run, body = PID, stale after 1 h;
// a lock whose holder is dead is taken over).
//
// # Guarantees
//
//   - Planning never writes; a dry run changes nothing.
//   - Nothing is deleted: memories are moved to .archive/ with a log line, and a failed step
//     stops Apply with an error naming the file; earlier steps stay done and logged.
//   - Deterministic (everything but Distil and AskModel): the same dir, statistics, repo,
//     clock and model proposals give the same plan, in the same order; a model's proposal
//     archives only what the deterministic checks back.
//   - Chinese text is compared per character, so duplicates in Chinese are found too.
package extract
