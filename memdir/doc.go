// Package memdir is layer 3b, the auto-memory store: a directory of markdown topic files with
// YAML frontmatter and a MEMORY.md index, one directory per project.
//
// # Layout
//
//	<dir>/MEMORY.md            the index: "- [name](file.md) — description", one line per file
//	<dir>/<file>.md            topic files: frontmatter name, description, type, modified; a body
//	<dir>/logs/YYYY/MM/D.md    daily logs (memoryMode "daily-log")
//	<dir>/.archive/            memories forgotten with Archive (moved, never deleted)
//	<dir>/.strata.lock         the cross-process write lock
//
// Resolve picks the directory (flag, STRATA_MEMORY_DIR, the autoMemoryDirectory setting, else
// $STRATA_HOME/projects/<slug of the git root>/memory, shared by all worktrees).
//
// # Guarantees
//
//   - Atomic writes: every topic file and index change is a whole-file replace (temp file in
//     the same directory, write, fsync, rename, fsync of the directory) through fsutil. A reader
//     never sees a half-written file.
//   - The index stays in step: Add changes or appends exactly the one index line of its file,
//     Forget removes the lines of its file, Reindex rewrites one line after a hand edit; every
//     other line of MEMORY.md is kept byte for byte. If the second write of a change fails (or
//     any step after the first), the first is undone: the old topic file and the old index are
//     what they were, and the error says what failed.
//   - One index parser: ParseIndex decides which lines of MEMORY.md are entries, for the store's
//     edits, Lint, ReadIndex and the dream alike. An entry is a list item (bullet or numbered,
//     nested or not) starting with a link to a ".md" file inside the directory; an anchor
//     ("f.md#why"), "./", %-escapes and spaces are resolved to the file on disk. Lines inside
//     HTML comments and fenced code blocks (where people keep examples), headings, prose,
//     URLs and paths leaving the directory are not entries, so nothing acts on them.
//   - Serialised writers: every write takes an flock on .strata.lock, so separate processes
//     writing at once lose nothing. Reads take no lock.
//   - Limits, never silent: loading the index for the model (LoadIndex) cuts it at 200 lines,
//     then at 25,000 characters (UTF-16 code units, as Claude Code counts) at the last newline,
//     and returns a warning naming the limit; Lint reports exactly those cuts. A write
//     that would push the index over a limit fails with ErrIndexFull, naming the limit and what
//     to consolidate. Topic files are at most MaxFileBytes (1 MiB); longer hand-made files are
//     read up to that size with a diagnostic.
//   - Secrets: a write whose text looks like a credential (cloud keys, GitHub/GitLab/Slack
//     tokens, Anthropic/OpenAI keys, JWTs, PEM private keys, high-entropy values assigned to
//     password/secret/token-like names) fails with a *SecretError naming the kind and line;
//     nothing is written. ScanSecrets keeps, for the process, the findings of texts of 64
//     bytes or more, keyed by the whole text (at most 4 MiB of them): the same instruction file
//     or search result is scanned once, and a changed text is a new key.
//   - Names: ValidateName refuses empty names, path separators, "..", control characters and
//     invalid UTF-8; FileName maps any other name (Chinese included) to a safe file name.
//   - Symlinks: files are read and written through an os.Root of the directory; a symlink that
//     leads outside it is never followed (reads report it, writes fail with ErrUnsafePath), and
//     a write never replaces a symlink.
//   - Hand edits are welcome: missing or broken frontmatter is a diagnostic and the body still
//     counts; binary files are reported and skipped (so a write whose text holds a NUL byte
//     is refused, ErrBinary); the store only rewrites a file it was asked to write.
//   - Change detection for warm indexes: Changes re-reads only files whose size, mtime or inode
//     changed since a Snapshot; Unchanged stats only the directories, which every store write
//     and every file added, removed or renamed touches (an in-place hand edit does not: call
//     Changes now and then too).
//   - Files are created 0600, directories 0700.
package memdir
