// Package shell is strata's one analyser of shell commands: the agent's permission check and
// the memory extractor's read-only policy both ask it what a command does, so they cannot
// disagree about it.
//
// Parse reads a command the way bash -c would and returns a Script:
//
//   - Commands: every simple command it runs, as words after quote removal (each with flags
//     for "some of it was quoted" and "the shell would expand it into file names"), in source
//     order — including the commands inside $(…), backticks, <(…), >(…), subshells, groups,
//     the bodies of if/while/for, and the commands that another command runs through its
//     arguments where the analyser knows how (xargs, find -exec/-execdir/-ok/-okdir, env,
//     command, builtin, exec, nohup, nice, timeout, stdbuf, setsid, sudo, doas, sh/bash -c,
//     eval, go -exec/-toolexec/-vettool, git rebase --exec, rg --pre, tar --to-command,
//     rsync -e, sort --compress-program). A command run by another lists it in RunBy; the
//     runner lists the positions of those words in Runs.
//   - Constructs: everything that does more than run those commands with literal words —
//     redirections and here-documents, command, process, parameter and arithmetic
//     substitutions, subshells, groups, compound-command keywords, background jobs,
//     environment assignments, ANSI-C quoting — plus two lexical ones that change nothing
//     (comments and backslash escapes), each with its offset.
//   - Operators: the ;, newline, &&, ||, |, |& and & between commands.
//
// Script.Simple says whether a command is exactly one simple command and nothing else; an
// allow pattern relies on it. Input Parse cannot read with certainty (unbalanced quotes or
// parentheses, case statements, function definitions, control characters, nesting deeper than
// MaxDepth) is an error, never a guess: callers then refuse, or fall back to the cruder
// Pieces when missing something would be worse than seeing too much.
//
// Expand makes a command's brace expansions as bash would ("git {push,}" is git push), and
// Hidden names the words that could still expand into an option the analyser does not see
// ("go test {-exec,./x}", "git log *"), for programs whose options run or write.
//
// Fields splits a command line held in a variable ($EDITOR) into its words as the shell
// would, and refuses what only a shell could run.
//
// The package imports only the standard library.
package shell
