// Package shell is strata's one analyser of shell commands: the agent's permission rules
// and the memory extractor's read-only policy both ask it what a command does, so they
// cannot disagree about it. Commands are read by mvdan.cc/sh/v3/syntax, a well-kept bash
// parser; this package walks its syntax tree and adds only what strata decides.
//
// Parse returns a Script:
//
//   - Commands: every simple command it runs, as words after quote removal (each with flags
//     for "some of it was quoted" and "the shell would expand it into file names"),
//     including the commands inside substitutions, subshells, groups, functions and
//     compound commands, and the commands another command runs through its arguments where
//     the analyser knows how (xargs, find -exec, env, command, exec, nice, timeout, nohup,
//     setsid, stdbuf, sudo, doas, prlimit, setarch, taskset, ionice, chrt, busybox, the
//     dynamic loader, sh/bash -c, eval, go -exec/-toolexec/-vettool, git --upload-pack …).
//     A command run by another lists it in RunBy; the runner lists those words in Runs.
//   - Constructs: everything that does more than run those commands with literal words —
//     operators, redirections, substitutions, expansions, subshells, groups, compound
//     commands, background jobs, assignments, ANSI-C quoting.
//
// The one table of programs (Known, Safe, ReadOnly) lists, per program and subcommand, the
// options known to be safe: options that neither run another program, nor load code or
// configuration from elsewhere, nor write where the program's usual use would not. A Bash
// allow rule with a prefix covers a command only when every word after the prefix is a
// plain operand or such an option (Rule.Allows); the extractor runs only the table's
// readers (ReadOnly). Rule.Denies matches a deny rule anywhere in a command, and
// AlwaysRule derives the rule a "don't ask again" answer saves.
//
// Expand makes a command's brace expansions as bash would; Fields splits a command line
// held in a variable ($EDITOR) into its words.
package shell
