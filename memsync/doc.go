// Package memsync shares a memory store (a memdir directory) through git: Sync commits the
// local changes, fetches, merges memory by memory and pushes; Background does that for a
// session's stores while it runs.
//
//   - No edit is lost: files merge one by one against the merge base; one side changed takes
//     that side; both changed keeps ours and puts theirs in .inbox/ (KindBothEdited); an edit
//     beats a forget (KindEditOverForget); logs keep both sides' lines. Every conflict is in
//     Report.Conflicts.
//   - MEMORY.md is never merged as text: it starts from one side and every memory the merge
//     changed is re-indexed through memdir's Tx.Reindex.
//   - Histories converge: a merge is a two-parent commit, so replicas that synced twice hold
//     the same files.
//   - Secrets stay home: a file memdir.ScanSecrets flags is not committed (Report.HeldBack),
//     and commits older than the sync are scanned before a push (ErrSecretInHistory).
//   - Nothing of the repository's runs: git runs without system or user config files (their
//     identity, credential, http and ssh keys carried over), with hooks, fsmonitor, signing,
//     submodules and ext:: off, every GIT_* variable but the transport's and identity's
//     removed, no terminal and a time limit; a repository configuring a transport program is
//     refused (ErrUnsafeConfig). Files are read and written by this package, never checked
//     out, so no filter or textconv runs.
//   - One sync at a time per store (a lock in the git directory), under the store's write lock
//     while the work tree is read or changed.
//   - The upstream's tree is hostile: only checked memory file names, regular, within
//     MaxFileBytes each and MaxStoreBytes in all, are planned on; the rest is Report.Skipped.
//   - Push failures are told apart: a lost race is merged and retried, a refusal is
//     ErrRemoteRefused, only an unreachable upstream is Report.Offline (not an error: the next
//     sync pushes).
//   - A killed sync leaves nothing that fails the next: git dies with strata on Linux, the
//     next sync ends a recorded git process group, and the index follows the branch first.
//   - Machine-local files never travel (Shared): locks, watch state, recall statistics, temp
//     and hidden files.
package memsync
