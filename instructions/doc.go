// Package instructions is layer 3a: it finds the instruction files that apply to a working
// directory (CLAUDE.md, .claude/CLAUDE.md, .claude/rules/**/*.md, AGENTS.md, CLAUDE.local.md and
// their managed and user counterparts), follows their @imports and renders what the model sees.
//
//   - Order: managed, user, then every directory from / down to the working directory, rules
//     after the CLAUDE.md they sit beside, CLAUDE.local.md last, a file's imports right after
//     it (AGENTS.md only when no directory on the way has a CLAUDE.md, as in Claude Code);
//     the auto-memory index ([Set.AddAutomem]) ends the session-start pieces, touched pieces
//     follow in touch order, and enforced managed blocks are repeated after everything.
//   - Conditional rules (frontmatter "paths") load when [Set.Touch] names a matching file, by
//     gitignore semantics; nested directories below the working directory load on their first
//     touch; a touch that brings nothing new makes no system call for a directory already seen.
//   - Roots: [FindRoots] gives the project root (nearest .git; a linked worktree is its own) and
//     the canonical root (the main working tree, which keys the auto-memory).
//   - Imports are confined: a project's import outside the project, $STRATA_HOME, the managed
//     directory and approvedExternalImports is refused with an error (the user's and managed
//     files import from anywhere), and so is one past MaxImportDepth (4) hops, in a cycle (by
//     file identity), or not a regular text file; from $STRATA_HOME only instruction files load.
//     Only a token that could be a path is an import, and only one that clearly means a file is
//     reported missing (so "@types/node" or "@Component" never are).
//   - Reads never block and never trust a file: non-blocking opens, regular files only, a size
//     cap (Options.MaxFileBytes, default 256 KiB: cut at a line and marked), binary and invalid
//     UTF-8 skipped with an error naming the line; over WarnChars (40,000) is a warning.
//   - What the model sees: frontmatter and block HTML comments removed, CRLF and BOM
//     normalised; with Options.ScanSecrets a line that looks like a credential is withheld; with
//     a token budget the least specific text is cut first, with a visible marker.
//   - Excludes (claudeMdExcludes) never skip managed files; a project's own globs skip only
//     files inside it.
//   - Nothing is dropped silently: every skip, refusal or cut is a [Diagnostic] with path and
//     line, and loading goes on; "error" is what strata lint fails on.
//   - A Set is safe for concurrent use.
//
// The user's view of these rules, with examples, is docs/context.md.
package instructions
