// Package memsync shares a memory store (a memdir directory) through git: Sync commits the local
// changes, fetches the upstream, merges it memory by memory and pushes; Background does that for
// a session's stores while it runs.
//
// # Guarantees
//
//   - No edit is lost. Files merge one by one against the merge base: a file one side changed
//     takes that side's version; a memory both sides changed differently keeps ours, and theirs
//     becomes a proposal in .inbox/ named after its origin (KindBothEdited); an edit against a
//     forget keeps the edit (KindEditOverForget); append-only logs keep both sides' lines.
//     Every conflict is in Report.Conflicts.
//   - MEMORY.md is never merged as text: it starts from one side's index and every memory the
//     merge changed gets its line from the file through memdir's Tx.Reindex.
//   - Histories converge: a merge is a git commit with both parents, so after every replica has
//     synced twice they hold the same files.
//   - Secrets stay home: a changed file that memdir.ScanSecrets flags is not committed
//     (Report.HeldBack, with file and line), and commits older than the sync are scanned before
//     a push (ErrSecretInHistory).
//   - Nothing of the repository's runs: git runs without system or user configuration files
//     (identity, credential, http and ssh keys carried over), plumbing commands and fetch/push with hooks,
//     fsmonitor, signing, submodules and ext:: off on the command scope, every GIT_* variable
//     but the transport's and identity's removed, no terminal and a time limit; a repository
//     whose own configuration names a transport program is refused (ErrUnsafeConfig). Files
//     are read and written by this package (atomic writes through the store's os.Root), never
//     checked out by git, so no filter or textconv runs.
//   - One sync at a time per store (a lock file in the git directory), and the store's own
//     write lock while the work tree is read or changed, so other writers never see half a
//     merge.
//   - The upstream's tree is hostile input: only files checkName admits (memory files under
//     checked names, never a .git component in any spelling, never a machine-local file),
//     regular, at most MaxFileBytes each (by their size in git, unread) and MaxStoreBytes in
//     all, are planned on, read or written; the rest is in Report.Skipped and stays out of the
//     merge commit.
//   - Push failures are told apart: a lost race is merged and retried with backoff, a refusal
//     is ErrRemoteRefused with the remote's reason, only an unreachable upstream is Offline.
//   - A killed sync leaves nothing that fails the next: git dies with strata on Linux, the next
//     sync ends a recorded git process group, and the index follows the branch first.
//   - Offline is not an error: local changes are committed and Report.Offline says the next
//     sync pushes them.
//   - Machine-local files never travel: locks, the watch state, recall statistics, temp files,
//     hidden files (Shared).
package memsync
