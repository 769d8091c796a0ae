#!/bin/sh
# crash.sh: the kill -9 loop against the built binary, on demand. For each command (dream,
# forget --archive, restore --last-dream, memory add) it builds a small store, starts the
# command, kills it with SIGKILL after a random delay, reruns it, runs `memory lint --fix`,
# and checks the store against its model: every memory live with its text or in .archive/ with
# a record of ARCHIVE.log that names it (same content hash), the rerun succeeded, and lint
# reports nothing left by the crash. Sync and an automatic compaction, which need a git remote
# and a fake model, are killed by their Go tests (internal/cli kill_test.go), run here with
# the same number of rounds.
#
#   sh internal/bench/crash.sh [ROUNDS]        (default 20 rounds per command)
#
# It needs a Go toolchain, sha256sum and a POSIX shell; everything lives in a temp dir.
set -u
rounds=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/strata" ./cmd/strata || exit 1
export STRATA_HOME="$work/home"
bin="$work/strata"
fail=0

body="the user prefers tabs for indentation in go files and runs gofmt before every commit"

setup() { # a store of six memories, three of them exact duplicates
	rm -rf "$work/mem"
	for i in 1 2 3; do
		"$bin" memory add --memory-dir "$work/mem" --name "tabs $i" --type project --description indentation --body "$body" >/dev/null || exit 1
	done
	for i in 1 2 3; do
		"$bin" memory add --memory-dir "$work/mem" --name "fact $i" --type project --description "fact $i" --body "fact number $i is about the staging cluster" >/dev/null || exit 1
	done
	(cd "$work/mem" && sha256sum ./*.md | grep -v ' ./MEMORY.md$' >"$work/model")
}

check() { # $1: command name, $2: round
	"$bin" memory lint --fix --memory-dir "$work/mem" >"$work/lint" 2>&1
	if grep -q "interrupted\|no record names it\|does not exist" "$work/lint"; then
		echo "$1 round $2: lint after --fix:"; cat "$work/lint"; fail=1
	fi
	while read -r sum file; do
		file=${file#./}
		if [ "$file" = "${changing:-}" ] && [ -f "$work/mem/$file" ]; then
			continue # the file the command rewrites: old text or new, it is live
		fi
		if [ -f "$work/mem/$file" ] && [ "$(sha256sum <"$work/mem/$file" | cut -d' ' -f1)" = "$sum" ]; then
			continue
		fi
		if grep "\"file\":\"$file\"" "$work/mem/.archive/ARCHIVE.log" 2>/dev/null | grep -q "\"sha256\":\"$sum\""; then
			continue
		fi
		echo "$1 round $2: $file is neither live nor archived with a record"; fail=1
	done <"$work/model"
}

run() { # $1: name; the rest: the command
	name=$1; shift
	n=0
	while [ "$n" -lt "$rounds" ]; do
		n=$((n + 1))
		setup
		[ "$name" = "restore --last-dream" ] && "$bin" memory dream --memory-dir "$work/mem" >/dev/null
		"$@" >/dev/null 2>&1 &
		pid=$!
		sleep "0.0$(awk "BEGIN{srand($n$$); printf \"%02d\", rand()*60}")"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		if ! "$@" >"$work/rerun" 2>&1 && ! grep -q "not found" "$work/rerun"; then
			echo "$name round $n: the rerun failed:"; cat "$work/rerun"; fail=1
		fi
		check "$name" "$n"
	done
	echo "$name: $rounds kills checked"
}

run "dream" "$bin" memory dream --memory-dir "$work/mem"
run "forget --archive" "$bin" memory forget --archive "fact 2" --memory-dir "$work/mem"
run "restore --last-dream" "$bin" memory restore --last-dream --memory-dir "$work/mem"
changing=tabs-1.md run "memory add" "$bin" memory add --memory-dir "$work/mem" --name "tabs 1" --type project --description changed --body "a new text"
if STRATA_KILL_ROUNDS=$rounds go test -count=1 -run 'TestSyncKilled|TestCompactKilled' -v ./internal/cli >"$work/gotest" 2>&1; then
	grep 'rounds' "$work/gotest"
else
	cat "$work/gotest"; fail=1
fi
[ "$fail" = 0 ] && echo "crash loop: every check passed"
exit "$fail"
