// Package fsutil holds the file-safety primitives every store in strata uses: whole-file atomic
// replacement (temp file in the same directory, write, fsync, rename, fsync of the directory),
// cross-process locks, an FS seam through which tests inject failures, the one reader of files
// that may be devices or FIFOs (ReadRegular), and Path: a name inside a root that cannot leave
// it and cannot name anything under .git, which every file tool uses (IsGitName is the one
// .git rule, the sync writer's too).
//
// Guarantees: after WriteFile returns nil the new content is durable and complete; after it
// returns an error the previous content of the file (or its absence) is intact and no temp file
// is left behind. Files are created 0600 and directories 0700 unless a caller asks otherwise.
// Not renameio: every step goes through the FS seam, so Faulty can fail any one of them.
package fsutil
