// Package memdir is layer 3b, the auto-memory store: a directory of markdown topic files with
// YAML frontmatter and a MEMORY.md index, one directory per project (Resolve: flag,
// STRATA_MEMORY_DIR, autoMemoryDirectory, else $STRATA_HOME/projects/<slug>/memory).
//
//   - Atomic writes: every topic file and index change is a whole-file replace through fsutil;
//     a reader never sees half a file. Files are 0600, directories 0700.
//   - The index stays in step: a write changes exactly its file's MEMORY.md line and keeps
//     every other byte; if a later step of a change fails, the earlier ones are undone and the
//     error says what failed.
//   - One writer at a time: every write holds an flock on .strata.lock (Store.Locked gives a
//     Tx); reads take no lock. A change of several files (archive, restore) writes its intent
//     to JournalFile first, and the next command to take the lock completes or undoes it.
//   - Archiving moves, never deletes: Forget with archive (and Archive) moves files to
//     .archive/ with an ArchiveRecord in ARCHIVE.log, a write that changes a memory keeps the
//     replaced version there too, and Restore puts them back.
//   - One index parser: ParseIndex decides which MEMORY.md lines are entries (list items
//     linking a .md file in the dir; anchors, "./" and escapes resolved; HTML comments and
//     fenced code skipped) for the store, Lint, ReadIndex and the dream alike.
//   - Limits, never silent: LoadIndex cuts at 200 lines, then 25,000 characters (UTF-16 code
//     units), with a warning; Lint reports the same cuts; a write past a limit fails with
//     ErrIndexFull naming what to consolidate. Topic files are read up to MaxFileBytes.
//   - Secrets: a write that looks like a credential fails with a *SecretError naming kind and
//     line. ScanSecrets also sees through invisible characters, full-width letters, split
//     lines and base64, and keeps findings per text for the process; WithholdSecrets replaces
//     such lines for output.
//   - Names: ValidateName refuses empty names, separators, "..", control characters and invalid
//     UTF-8; FileName maps any other name to a safe file name; a write finds its memory by
//     NameKey (case, width and Unicode form aside), and several matches are ErrAmbiguousName.
//   - Symlinks: reads and writes go through an os.Root; a link leading outside is never
//     followed (ErrUnsafePath) and a write never replaces a link. Every file is opened as a
//     regular file only, so a FIFO or device is an error, never a hang.
//   - Hand edits are welcome: broken frontmatter is a diagnostic and the body still counts;
//     keys strata does not write survive a save; binary files are skipped (a NUL byte in a
//     write is ErrBinary); the store rewrites only the file it was asked to.
//   - Change detection for warm indexes: Changes re-reads only files whose size, mtime or
//     inode changed since a Snapshot; Unchanged stats only the directories (an in-place hand
//     edit needs Changes).
package memdir
