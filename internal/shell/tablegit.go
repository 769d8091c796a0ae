package shell

import (
	"fmt"
	"slices"
	"strings"
)

// gitGlobal are the options git itself may be given before the subcommand. Not among them:
// everything that points git at another repository, work tree, configuration or program
// (-C, -c, --git-dir, --work-tree, --namespace, --exec-path, --config-env, --super-prefix,
// -p/--paginate …).
var gitGlobal = []string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
	"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects"}

// gitPointers are the global options that point git elsewhere, for a clearer refusal.
var gitPointers = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env",
	"--super-prefix", "--list-cmds", "--bare"}

// gitHistory are the options shared by log, show, diff and rev-list that only choose and
// format what is shown. Not among them: --output, --ext-diff, --textconv, --show-signature
// (runs gpg), -p's pager friends.
var gitHistory = []string{
	"-p", "-u", "--patch", "-s", "--no-patch", "--stat?", "--numstat", "--shortstat", "--dirstat?", "--name-only",
	"--name-status", "--summary", "--oneline", "--graph", "--decorate?", "--no-decorate", "--all", "--branches?",
	"--tags?", "--remotes?", "--reverse", "--first-parent", "--merges", "--no-merges", "--follow", "--max-count=",
	"--skip=", "--since=", "--after=", "--until=", "--before=", "--author=", "--committer=", "--grep=",
	"--regexp-ignore-case", "--all-match", "--invert-grep", "--pretty?", "--format=", "--abbrev-commit",
	"--no-abbrev-commit", "--abbrev?", "--no-abbrev", "--date=", "--relative-date", "--no-color", "--color?",
	"--cached", "--staged", "--word-diff?", "--color-words?", "--ignore-all-space", "--ignore-space-change",
	"--ignore-blank-lines", "--ignore-space-at-eol", "--unified=", "--no-ext-diff", "--no-textconv",
	"--diff-filter=", "--find-renames?", "--find-copies?", "--no-renames", "--relative?", "--check", "--exit-code",
	"--quiet", "--minimal", "--histogram", "--patience", "--diff-algorithm=", "--full-history", "--simplify-merges",
	"--raw", "--full-index", "--binary", "--no-index", "--merge-base", "--left-right", "--cherry-pick", "--boundary",
	"--count", "--objects", "--topo-order", "--date-order", "--author-date-order", "--no-walk?", "--source",
	"--use-mailmap", "--mailmap", "--notes?", "--no-notes", "--expand-tabs?", "--no-expand-tabs", "--ancestry-path",
	"--function-context", "--inter-hunk-context=", "--stat-width=", "--stat-count=", "--submodule?",
	"--ignore-submodules?", "--src-prefix=", "--dst-prefix=", "--no-prefix", "--line-prefix=", "--text",
}

// gitReaders are the git subcommands that only read, each with its allow-list of options.
func gitReaders() map[string]flags {
	return map[string]flags{
		"log":      {short: "pusiwbzRa", shortArg: "nLSG", attached: "MCBU", number: true, operands: -1, extra: checkSignatures, long: gitHistory},
		"show":     {short: "pusiwbzRa", shortArg: "SG", attached: "MCBU", operands: -1, extra: checkSignatures, long: gitHistory},
		"diff":     {short: "pusiwbzRa", shortArg: "SG", attached: "MCBU", operands: -1, extra: checkSignatures, long: gitHistory},
		"rev-list": {short: "i", shortArg: "n", number: true, operands: -1, extra: checkSignatures, long: gitHistory},
		"status": {short: "sbvuz", operands: -1, long: []string{"--short", "--branch", "--porcelain?", "--long",
			"--untracked-files?", "--ignored?", "--no-renames", "--ahead-behind", "--no-ahead-behind", "--show-stash",
			"--verbose", "--renames", "--find-renames?", "--column?", "--no-column", "--ignore-submodules?"}},
		"blame": {short: "weslntpcfb", shortArg: "L", attached: "MC", operands: -1, long: []string{"--porcelain", "--line-porcelain",
			"--date=", "--since=", "--root", "--show-name", "--show-number", "--show-email", "--incremental", "--reverse=",
			"--first-parent", "--abbrev?", "--ignore-rev=", "--score-debug", "--minimal"}},
		"grep": {short: "niwvlLcEFGPhHIrozqWp", shortArg: "efABCm", number: true, operands: -1, long: []string{"--cached",
			"--untracked", "--no-index", "--recurse-submodules", "--max-depth=", "--line-number", "--column",
			"--ignore-case", "--word-regexp", "--invert-match", "--files-with-matches", "--name-only",
			"--files-without-match", "--count", "--extended-regexp", "--fixed-strings", "--basic-regexp", "--perl-regexp",
			"--heading", "--break", "--show-function", "--function-context", "--all-match", "--and", "--or", "--not",
			"--only-matching", "--quiet", "--full-name", "--null", "--color?", "--no-color", "--after-context=",
			"--before-context=", "--context=", "--max-count=", "--threads=", "--exclude-standard", "--no-exclude-standard",
			"--text", "--no-textconv"}},
		"ls-files": {short: "cdmoiskuztvf", shortArg: "xX", operands: -1, long: []string{"--cached", "--deleted",
			"--modified", "--others", "--ignored", "--stage", "--killed", "--unmerged", "--exclude-standard",
			"--directory", "--no-empty-directory", "--error-unmatch", "--full-name", "--abbrev?", "--exclude=",
			"--eol", "--deduplicate", "--recurse-submodules", "--format="}},
		"ls-tree": {short: "rdtlz", operands: -1, long: []string{"--name-only", "--name-status", "--object-only",
			"--full-name", "--full-tree", "--abbrev?", "--long", "--format="}},
		"rev-parse": {short: "q", operands: -1, long: []string{"--show-toplevel", "--abbrev-ref?", "--short?", "--verify",
			"--quiet", "--git-dir", "--absolute-git-dir", "--git-common-dir", "--is-inside-work-tree",
			"--is-inside-git-dir", "--is-bare-repository", "--is-shallow-repository", "--show-prefix", "--show-cdup",
			"--symbolic", "--symbolic-full-name", "--all", "--branches?", "--tags?", "--remotes?", "--default=",
			"--show-superproject-working-tree", "--show-object-format?", "--since=", "--until=", "--revs-only",
			"--no-revs", "--flags", "--no-flags"}},
		"describe": {operands: -1, long: []string{"--tags", "--all", "--always", "--long", "--abbrev=", "--exact-match",
			"--dirty?", "--broken?", "--contains", "--match=", "--exclude=", "--first-parent", "--candidates="}},
		"shortlog": {short: "snec", shortArg: "w", operands: -1, long: []string{"--summary", "--numbered", "--email",
			"--committer", "--all", "--since=", "--until=", "--after=", "--before=", "--group=", "--format=",
			"--no-merges", "--merges", "--first-parent"}},
		"cat-file": {short: "tspe", operands: -1, long: []string{"--batch?", "--batch-check?", "--batch-all-objects",
			"--follow-symlinks", "--unordered", "--buffer", "--allow-unknown-type", "--use-mailmap", "--mailmap"}},
		"show-ref": {short: "sdq", operands: -1, long: []string{"--heads", "--tags", "--head", "--hash?", "--verify",
			"--dereference", "--abbrev?", "--quiet", "--exists", "--branches"}},
		"branch": {short: "arv", operands: 0, long: []string{"--all", "--remotes", "--list", "--show-current",
			"--no-color", "--color?", "--verbose", "--sort=", "--contains?", "--no-contains?", "--merged?",
			"--no-merged?", "--points-at=", "--format=", "--column?", "--no-column"}},
		"remote": {short: "v", operands: 0, long: []string{"--verbose"}},
	}
}

// checkSignatures refuses a format's %G placeholders: git runs gpg to verify each signature.
func checkSignatures(args []Word, from int) string {
	for _, a := range args[min(from, len(args)):] {
		if strings.Contains(a.Text, "%G") {
			return "git's %G format placeholders run gpg to verify signatures"
		}
	}
	return ""
}

// readOnlyGit allows the reading git subcommands, each with its options on the table, and
// none of git's own options that point it at another repository, configuration or program.
// (Which configuration git reads when it runs is the runner's business: the extractor's
// shell runs with system and global configuration, hooks, fsmonitor, pagers and external
// diff programs turned off.)
func readOnlyGit(ws []Word) string {
	i := 1
	for ; i < len(ws); i++ {
		a := ws[i].Text
		name, _, _ := strings.Cut(a, "=")
		switch {
		case slices.Contains(gitGlobal, a):
			continue
		case slices.Contains(gitPointers, name) || strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-C"):
			return fmt.Sprintf("git option %s points git at another repository, configuration or program", a)
		case strings.HasPrefix(a, "-"):
			return fmt.Sprintf("git option %s is not allowed for a read-only command", a)
		}
		break
	}
	if i >= len(ws) {
		return "git without a subcommand"
	}
	f := table()["git "+ws[i].Text]
	if f == nil || !f.readOnly {
		return fmt.Sprintf("git %s is not a read-only git command", ws[i].Text)
	}
	return f.check("git "+ws[i].Text, ws[i+1:], 0)
}
