#!/bin/sh
# SPDX-License-Identifier: MIT
# The CLI's documented exit codes: 0 help/version, 2 usage errors, typo hints.
set -u
ECP=${ECP:?ECP must point at the ecp binary}
fail=0
check() { # expected-status description command...
	want=$1; shift; what=$1; shift
	out=$("$@" 2>&1); got=$?
	if [ "$got" -ne "$want" ]; then
		echo "FAIL: $what: exit $got, want $want"; echo "$out" | sed 's/^/  | /'; fail=1
	else
		echo "ok: $what"
	fi
}
check 0 "--help" "$ECP" --help
check 0 "--version" "$ECP" --version
check 2 "no command" "$ECP"
check 2 "unknown option" "$ECP" --bogus
check 2 "typo" "$ECP" reprot
"$ECP" reprot 2>&1 | grep -q "Did you mean 'report'" || { echo "FAIL: typo does not name report"; fail=1; }
"$ECP" --version | grep -Eq '^ecp [0-9]+\.[0-9]+\.[0-9]+$' || { echo "FAIL: version line"; fail=1; }
for c in record info report scan whatif compare viz export help; do
	check 0 "$c --help" "$ECP" "$c" --help
	"$ECP" "$c" --help | grep -q "usage: ecp" || { echo "FAIL: $c --help has no usage line"; fail=1; }
done
# --help text is printed as is (fputs): a percent sign must appear once.
for c in record info report scan whatif compare viz export help; do
	if "$ECP" "$c" --help | grep -q '%%'; then echo "FAIL: $c --help prints '%%'"; fail=1; fi
done
"$ECP" whatif --help | grep -q 'parse=20% ' || { echo "FAIL: whatif --help does not show parse=20%"; fail=1; }
check 2 "help of unknown command" "$ECP" help frob
# sampling (issue 18): bad values are usage errors, named
check 2 "record --functions bogus" "$ECP" record --functions bogus -- true
"$ECP" record --functions bogus -- true 2>&1 | grep -q "instrument, sample or both" ||
	{ echo "FAIL: --functions error does not list the modes"; fail=1; }
check 2 "record --sample-freq 0" "$ECP" record --sample-freq 0 -- true
check 2 "record --sample-freq 60000" "$ECP" record --sample-freq 60000 -- true
check 2 "report --by bogus" "$ECP" report --by bogus
check 2 "report --functions-from bogus" "$ECP" report --functions-from bogus
# Every option each analysis command lists in its --help, before and after a
# trace that does not exist: an error with a documented status, never a
# signal (`info --allow-loss` once read a format it had not been given and
# crashed).  record is left out: it runs what it is given.
tried=0
for c in info report scan whatif compare viz export; do
	for o in $("$ECP" "$c" --help | sed -n 's/^  *\(--[a-z][a-z-]*\).*/\1/p'); do
		for args in "$o /nonexistent-trace" "/nonexistent-trace $o"; do
			# shellcheck disable=SC2086 # the option and the path are two words
			"$ECP" "$c" $args >/dev/null 2>&1
			got=$?
			tried=$((tried + 1))
			if [ "$got" -ge 128 ] || [ "$got" -eq 0 ]; then
				echo "FAIL: ecp $c $args: exit $got"; fail=1
			fi
		done
	done
done
if [ "$tried" -lt 60 ]; then
	echo "FAIL: only $tried option cases ran (the --help option lists were not read)"; fail=1
else
	echo "ok: $tried option cases on a missing trace"
fi
# Where the answer goes (cli/output.c, cli/main.c): a write that fails is
# exit 1, never 0; a FIFO named with -o is written where it is (a device
# or FIFO was replaced by a regular file: as root, `-o /dev/null` replaced
# the system's /dev/null); a directory is refused.  Only FIFOs are made
# here, so a regression cannot replace a node of the machine's.
src=${ECP_SOURCE_ROOT:?ECP_SOURCE_ROOT must point at the source tree}/traces/samples/fig1
work=$(mktemp -d "${TMPDIR:-/tmp}/ecp-cli-out.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/fig1"
if [ -c /dev/full ]; then
	for c in "report -P 2" "scan -P 1-2" "info" "export --format folded -o -" "report --help"; do
		# shellcheck disable=SC2086 # the command and its options are words
		"$ECP" $c "$work/fig1" >/dev/full 2>"$work/err"
		got=$?
		if [ "$got" -ne 1 ]; then
			echo "FAIL: ecp $c > /dev/full: exit $got, want 1"; fail=1
		elif ! grep -q "error" "$work/err"; then
			echo "FAIL: ecp $c > /dev/full: no error message"; fail=1
		else
			echo "ok: ecp $c > /dev/full: exit 1"
		fi
	done
fi
mkfifo "$work/fifo"
timeout 10 cat "$work/fifo" >"$work/from-fifo" &
reader=$!
check 0 "export -o FIFO" "$ECP" export "$work/fig1" --format folded -o "$work/fifo"
wait "$reader"
if [ ! -p "$work/fifo" ]; then
	echo "FAIL: export -o FIFO replaced the FIFO"; fail=1
elif ! grep -q '^main' "$work/from-fifo"; then
	echo "FAIL: export -o FIFO: the reader got no folded stacks"; fail=1
fi
check 1 "export -o DIRECTORY" "$ECP" export "$work/fig1" --format folded -o "$work"
exit $fail
