// Package fsutil holds the file-safety primitives every store in strata uses: whole-file
// atomic replacement (temp file, write, fsync, rename, fsync of the directory), cross-process
// locks, the one reader of files that may be devices or FIFOs (ReadRegular), and Path, a name
// inside a root that cannot leave it nor name anything under .git (IsGitName is the one rule).
//
// After WriteFile returns nil the new content is durable and complete; after an error the old
// content (or its absence) is intact and no temp file is left. Files are 0600, directories
// 0700, unless a caller asks otherwise. Every step goes through the FS seam, so Faulty can
// fail any one in tests (which is why this is not renameio).
package fsutil
