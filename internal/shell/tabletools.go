package shell

// writers are the programs and subcommands that change something in their usual use (a
// build, a commit, a download), and the options known not to make them run another program,
// load code from elsewhere or write where their usual use would not: a prefix rule for one
// covers it with these options only. Left out on purpose, among others: git's
// --upload-pack, --receive-pack, --exec, -c, -C, grep -O and commit -F (a file into the
// message); go's -exec, -toolexec, -vettool, -o, -ldflags, -gcflags (-cpuprofile=FILE),
// -overlay, -modfile and -args; make's -f, -C, -E/--eval and VAR=value (-j, -l and -O take
// their value attached: make reads "-j -f x" as two options); sed -e, -f, -i and any script
// not named by the rule; tar's --to-command, --checkpoint-action, -I and
// --use-compress-program; curl's -K/--config, -o, -O, --output-dir, -w, -H @FILE and the
// -d/-F/-T family (which send files); scp's -o, -F, -S and -J; cargo's --config.
func writers() map[string]flags {
	goBuild := []string{"-v", "-x", "-a", "-n", "-race", "-msan", "-asan", "-cover", "-covermode=", "-coverpkg=",
		"-trimpath", "-tags=", "-mod=", "-p=", "-work", "-buildvcs=", "-json", "-short", "-run=",
		"-skip=", "-count=", "-bench=", "-benchmem", "-benchtime=", "-timeout=", "-failfast", "-cpu=", "-parallel=",
		"-list=", "-shuffle=", "-fullpath", "-vet=", "-fuzz=", "-fuzztime=", "-fuzzminimizetime="}
	goFlags := func(extra ...string) flags {
		return flags{goStyle: true, operands: -1, long: append(append([]string(nil), goBuild...), extra...)}
	}
	gitCommit := []string{"--message=", "--all", "--amend", "--no-edit", "--signoff", "--no-verify", "--allow-empty",
		"--quiet", "--verbose", "--author=", "--date=", "--fixup=", "--only", "--patch", "--reset-author", "--dry-run"}
	gitRemote := []string{"--all", "--tags", "--no-tags", "--prune", "--quiet", "--verbose", "--force-with-lease?",
		"--set-upstream", "--depth=", "--rebase?", "--no-rebase", "--ff-only", "--ff", "--no-ff", "--dry-run",
		"--heads", "--refs", "--branch=", "--single-branch", "--recurse-submodules?", "--no-recurse-submodules",
		"--progress", "--no-progress", "--unshallow", "--follow-tags", "--delete", "--autostash", "--no-autostash",
		"--sort=", "--symref", "--get-url", "--exit-code", "--bare", "--origin=", "--filter=", "--shallow-since="}
	cargo := flags{short: "qvp", shortArg: "jpF", operands: -1, long: []string{"--release", "--workspace", "--all",
		"--lib", "--bins", "--bin=", "--tests", "--test=", "--examples", "--benches", "--all-targets", "--package=",
		"--features=", "--all-features", "--no-default-features", "--target=", "--jobs=", "--verbose", "--quiet",
		"--locked", "--offline", "--frozen", "--no-fail-fast", "--no-run", "--doc", "--check", "--profile=",
		"--color=", "--message-format=", "--exclude="}}
	npm := flags{operands: -1, long: []string{"--silent", "--quiet", "--verbose", "--workspaces", "--workspace=",
		"--if-present", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts"}}
	return map[string]flags{
		"git add": {short: "AunvfpNi", operands: -1, long: []string{"--all", "--update", "--dry-run", "--verbose",
			"--force", "--intent-to-add", "--patch", "--no-all", "--ignore-removal", "--renormalize", "--sparse"}},
		"git commit":    {short: "aqvsnep", shortArg: "m", operands: -1, long: gitCommit},
		"git push":      {short: "uqvn", operands: -1, long: gitRemote},
		"git pull":      {short: "qvr", operands: -1, long: gitRemote},
		"git fetch":     {short: "qvnpPt", operands: -1, long: gitRemote},
		"git clone":     {short: "qvnls", shortArg: "b", operands: 2, long: gitRemote},
		"git ls-remote": {short: "qht", operands: -1, long: gitRemote},
		"git switch": {short: "cCdfqm", operands: -1, long: []string{"--create=", "--force-create=", "--detach",
			"--discard-changes", "--merge", "--quiet", "--track?", "--no-track", "--guess", "--no-guess", "--orphan="}},
		"git checkout": {short: "bBqfmt", operands: -1, long: []string{"--quiet", "--force", "--merge", "--detach",
			"--track?", "--no-track", "--orphan=", "--ours", "--theirs", "--progress", "--no-progress"}},
		"git restore": {short: "sSWq", operands: -1, long: []string{"--source=", "--staged", "--worktree", "--quiet",
			"--ours", "--theirs", "--merge", "--patch"}},
		"git stash": {short: "kupaqm", operands: -1, long: []string{"--keep-index", "--include-untracked", "--all",
			"--quiet", "--message=", "--staged", "--index"}},
		"git merge": {short: "nqv", shortArg: "m", operands: -1, long: []string{"--ff", "--no-ff", "--ff-only",
			"--squash", "--no-squash", "--abort", "--continue", "--quiet", "--verbose", "--no-edit", "--message=",
			"--no-verify", "--autostash", "--stat", "--no-stat"}},
		"git rebase": {short: "iq", operands: -1, long: []string{"--continue", "--abort", "--skip", "--onto=",
			"--autosquash", "--no-autosquash", "--autostash", "--quiet", "--root", "--update-refs", "--keep-base"}},
		"git tag": {short: "alnmfsd", shortArg: "m", operands: -1, long: []string{"--list", "--annotate",
			"--message=", "--delete", "--sort=", "--contains?", "--points-at=", "--format="}},
		"git init": {short: "bq", shortArg: "b", operands: 1, long: []string{"--quiet", "--bare",
			"--initial-branch=", "--object-format="}},
		"go test":    goFlags("-benchmem", "-c"),
		"go vet":     goFlags(),
		"go build":   goFlags(),
		"go install": goFlags(),
		"go list":    goFlags("-m", "-u", "-f=", "-e", "-deps", "-find", "-test", "-export", "-compiled", "-versions", "-retracted"),
		"go fmt":     goFlags(),
		"go mod":     {goStyle: true, operands: -1, long: []string{"-v", "-x", "-e", "-json", "-go=", "-compat="}},
		"go version": {goStyle: true, readOnly: true, operands: -1, long: []string{"-m", "-v", "-json"}},
		"go doc":     {goStyle: true, readOnly: true, operands: -1, long: []string{"-all", "-c", "-cmd", "-short", "-src", "-u"}},
		"go env":     {goStyle: true, readOnly: true, operands: -1, long: []string{"-json", "-changed"}},
		"gofmt":      {short: "lsdex", operands: -1},
		"make": {short: "kinsqBrRwe", attached: "jlO", operands: -1, extra: checkMake, long: []string{"--keep-going",
			"--just-print", "--dry-run", "--silent", "--quiet", "--always-make", "--jobs?", "--load-average?",
			"--question", "--no-builtin-rules", "--print-directory", "--no-print-directory", "--output-sync?"}},
		"sed": {short: "nErsuz", script: true, operands: -1, long: []string{"--quiet", "--silent", "--regexp-extended",
			"--separate", "--unbuffered", "--null-data", "--posix", "--sandbox", "--debug"}},
		"tar": {short: "tvxczjJaSpkhO", shortArg: "fC", bundled: true, operands: -1, long: []string{"--list",
			"--extract", "--get", "--create", "--verbose", "--file=", "--directory=", "--gzip", "--bzip2", "--xz",
			"--zstd", "--auto-compress", "--exclude=", "--strip-components=", "--keep-old-files", "--skip-old-files",
			"--no-same-owner", "--no-same-permissions", "--wildcards", "--to-stdout", "--totals", "--sort="}},
		"curl": {short: "sSLfIikvG#", shortArg: "HXAmr", operands: -1, extra: checkCurl, long: []string{"--silent",
			"--show-error", "--location", "--fail", "--fail-with-body", "--head", "--include", "--insecure",
			"--verbose", "--get", "--header=", "--request=", "--user-agent=", "--max-time=", "--connect-timeout=",
			"--retry=", "--compressed", "--http1.1", "--http2", "--range=", "--no-progress-meter"}},
		"scp":         {short: "346BCpqrTv", shortArg: "Pcil", operands: -1},
		"mkdir":       {short: "pv", shortArg: "m", operands: -1, long: []string{"--parents", "--verbose", "--mode="}},
		"touch":       {short: "acm", operands: -1, long: []string{"--no-create", "--date="}},
		"cargo build": cargo, "cargo test": cargo, "cargo check": cargo, "cargo clippy": cargo, "cargo fmt": cargo,
		"cargo run": cargo, "cargo doc": cargo, "cargo bench": cargo,
		"npm test": npm, "npm run": npm, "npm ci": npm, "npm install": npm, "npm start": npm,
		"pnpm test": npm, "pnpm run": npm, "pnpm install": npm, "yarn test": npm, "yarn run": npm, "yarn install": npm,
	}
}
