// Package shell is strata's one analyser of shell commands, so the agent's permission rules
// and the extractor's read-only policy cannot disagree about what a command does. Commands are
// parsed by mvdan.cc/sh/v3/syntax; this package walks the tree and decides.
//
//   - Parse returns a Script: every simple command it runs (words after quote removal, flagged
//     quoted or globbing), including those inside substitutions, subshells, groups, functions
//     and compound commands, and those run through another's arguments (xargs, find -exec,
//     env, sudo, nice, timeout, sh -c, eval, the dynamic loader …; RunBy and Runs link them),
//     plus every construct beyond literal words (operators, redirections, expansions …).
//     Input it cannot read is an error, never a guess.
//   - One table (Known, Safe, ReadOnly) lists per program and subcommand the options known
//     to be safe: they run no other program, load nothing from elsewhere, write nowhere
//     unusual. Rule.Allows covers a command only when every word after the prefix is an
//     operand or such an option; Rule.Denies matches anywhere; AlwaysRule derives the rule a
//     "don't ask again" saves.
//   - Expand makes brace expansions as bash would; Fields splits a command line held in a
//     variable ($EDITOR).
package shell
