// Package instructions is strata's layer 3a: it finds the instruction files that apply to a
// working directory (CLAUDE.md, .claude/CLAUDE.md, .claude/rules/**/*.md, AGENTS.md,
// CLAUDE.local.md and their managed and user-level counterparts), follows their @imports, strips
// notes meant for humans, and renders the text a model sees, each piece headed by its origin.
//
// # Order
//
// Pieces are kept lowest priority first (later text wins): managed ($STRATA_MANAGED_DIR/CLAUDE.md,
// then rules/**/*.md), user ($STRATA_HOME/CLAUDE.md, then rules/**/*.md), then for every directory
// from the filesystem root down to the working directory: the instruction file names of
// Options.FileNames (default CLAUDE.md, .claude/CLAUDE.md, AGENTS.md), with .claude/rules/**/*.md placed
// right after the last name that is CLAUDE.md or lives under .claude/, and CLAUDE.local.md last.
// A file's imports follow it, depth first. The auto-memory index, given by the caller through
// [Set.AddAutomem], is the last session-start piece. Pieces that a [Set.Touch] adds come after it,
// in the order they were touched, and enforced managed blocks are repeated after everything.
//
// # Rules and nested files
//
// A rule's frontmatter "paths" (a comma-separated string or a YAML list of patterns) makes it
// conditional: it loads when a file matching them is touched. Patterns have gitignore semantics,
// as in Claude Code, with {a,b} braces: a pattern without a slash matches a name at any depth, a
// slash at the start or in the middle anchors it (so does a leading "./"), a matched directory
// covers everything below it, a trailing "/" matches directories only, "**" any number of
// directories, and "!pattern" excludes again. They are relative to the directory that holds the
// .claude directory (for managed and user rules: the project root).
//
// # Project root
//
// The project root is the nearest directory holding .git (Options.ProjectRoot overrides it): a
// linked git worktree, whose .git is a file, is its own project root. [FindRoots] also gives the
// canonical root (the main working tree), which keys the auto-memory. A rule without paths, or whose globs are all "**", loads at session start; so
// does a rule whose frontmatter cannot be parsed (with an error, so it is never silently lost).
// Instruction files in directories below the working directory load once, the first time any path
// under them (or the directory itself) is touched. A touched path outside the working directory
// adds no nested file, even inside the project (sibling subtrees never load each other's
// files, as in the reference); conditional rules still match it. Per-directory lookups are
// cached in the Set, so a touch that brings nothing new costs no system call for directories
// already seen.
//
// # Imports
//
// "@path", "@./path", "@../path", "@~/path" and "@/abs" outside code spans, fenced blocks and
// HTML comments are imports, resolved relative to the including file. A token after "@" counts as
// an import only when it could be a path: it consists of letters, digits and "._-~/+%" (a
// backslash escapes a space), trailing ".,:;)!?" is dropped, and "#fragment" is ignored. Among
// those, a token that names no existing file is reported as a missing import only when it clearly
// means a file: it starts with "./", "../" or "~/", or its last element has an extension and it
// either contains a "/" or the extension is a common text-file one (md, txt, yaml, go …). So npm
// scopes ("@types/node", "@scope/pkg@latest"), decorators ("@Component", "@pytest.mark.slow",
// "@tools.action(...)") and path aliases ("@/mocks") are never reported, and "@docs/style.md" or
// "@b.md" are. An "@" is only considered at the start of a line, after white space or after a
// CJK character or punctuation mark (e-mail addresses are not imports).
//
// An import is refused, with an error, when: it resolves (symlinks followed) outside the project
// root, $STRATA_HOME and $STRATA_MANAGED_DIR and no approvedExternalImports entry (a path, a
// directory that covers everything below it, or a doublestar glob; "~/" allowed) names it; it
// would be a 6th hop (a file reached through 5 imports loads); it closes a cycle (file identity,
// so symlinks cannot hide one); it is a directory, device, pipe or socket; it is not a text file.
// From $STRATA_HOME only instruction files are imported: markdown files outside hidden
// directories and the directories that hold data (projects/, file-history/, plans/, plugins/,
// caches …), whatever the approvals say; the others are refused without being read. An import
// that names a directory loads nothing (an info diagnostic), and so does a glob (a warning). A
// missing import that a .gitignore of the project leaves out is a warning naming the line.
//
// A file imported twice loads once (an info diagnostic says where it already is). Note that
// files found above the project root (say ~/CLAUDE.md) may import only inside the project root,
// $STRATA_HOME, the managed directory or approved paths, like every other file.
//
// # Excludes
//
// claudeMdExcludes (doublestar globs on absolute paths) skips any instruction file or import it
// matches, with an info diagnostic; managed files are policy and cannot be excluded, and a
// project's own globs (Options.ProjectExcludes) skip only files inside the project root.
//
// # Secrets
//
// With Options.ScanSecrets, every file's text is scanned before anything else reads it: a line
// that looks like a credential is replaced by "[strata: line withheld: …]" and reported as a
// warning naming the file and line.
//
// # What the model sees
//
// Frontmatter is removed. Block-level HTML comments (a line starting with "<!--", outside fenced
// code, through the line holding "-->") are removed; an unclosed comment stays as written.
// CRLF and a UTF-8 byte-order mark are normalised. Files are read with a size cap
// (Options.MaxFileBytes, default 256 KiB): a bigger file is cut at a line boundary, marked
// truncated and reported. Binary files (a NUL byte) and invalid UTF-8 are skipped with an error
// naming the line. A file over 40,000 characters gets a warning. Pipes and devices are never
// opened in a way that can block: files are opened non-blocking, and nothing read from a file
// is used before it is known to be a regular file — by fstat, or (for a plain file shorter than
// 64 KiB, which is most of them) by one positioned read that returns fewer bytes than asked,
// which pipes, terminals and directories refuse and devices do not do; symlinks are always
// fstat'ed. File identity (for cycles and "already loaded") is the inode; a file read without
// fstat is compared by a fingerprint of its bytes first, and by inode when fingerprints match,
// so hard links and symlinks are recognised.
//
// With a total budget (settings "instructionBudgetTokens"), the least specific text is cut first:
// pieces in load order (user before project, a parent directory's before its child's), with
// managed text last; a cut piece ends with a visible "[strata: … cut …]" marker, is marked
// truncated, and a warning names it.
//
// # Diagnostics
//
// Nothing is dropped silently: every file or import that is skipped, refused, cut or found
// broken yields a [Diagnostic] with the path (and line where there is one), and loading goes on.
// Severity "error" marks what strata lint fails on; "warning" and "info" do not.
//
// A Set is safe for concurrent use.
package instructions
