// Package extract is layer 4's background work on the memory dir: dream (consolidation) and
// forgetting. (Extraction by a forked agent at the end of a turn belongs here too.)
//
// # Dream
//
// PlanDream reads a memory dir and proposes, without writing anything:
//
//   - merge: two memories whose normalised text (name, description, body) is the same or
//     nearly so (Jaccard similarity of word-bigram shingles ≥ DuplicateThreshold, 0.8, of the
//     whole text or, when both have at least four shingles, of the bodies alone) — the
//     newer is kept, the older archived with a record naming the survivor;
//   - supersede: two memories that state the same key ("key: value" lines) with different
//     values, or share a description with different bodies — the newer wins and the older is
//     archived as superseded when every key it states is overridden (otherwise the conflict
//     is only reported);
//   - stale: a memory naming a file path or a Go/JS-style symbol that no longer exists in the
//     project (paths relative to the project root; symbols by a bounded scan of its source
//     files) is flagged, never archived for that alone;
//   - forget: a memory neither recalled nor modified for ForgetAfter (default 90 days, setting
//     memoryForgetAfterDays), from the recall statistics sidecar and file times;
//   - dangling: an index line pointing at no file is removed;
//   - index: while MEMORY.md would still be over its line or byte limit, the least recently
//     used memories are archived until it is not.
//
// Apply carries out a plan: every archive goes through memdir.Store.Forget with archive, so
// the file moves to .archive/ and its index line goes; each one appends a line to
// .archive/ARCHIVE.log (when, what, why, survivor). Nothing is deleted.
//
// Distil is the one model-driven step: it turns finished daily logs (days before today) into
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
//   - Deterministic (everything but Distil): the same dir, statistics, repo and clock give the same plan, in the same
//     order; no model is involved.
//   - Chinese text is compared per character, so duplicates in Chinese are found too.
package extract
