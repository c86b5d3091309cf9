#!/bin/sh
# SPDX-License-Identifier: MIT
# Bounded decoding (issue 33): truncated CTF metadata makes babeltrace2 spin
# forever.  A copy of a committed sample, listed by no manifest (as traces
# recorded before manifests are) and its metadata truncated, must be
# refused within the decoding time limit (ECP_DECODE_TIMEOUT_S=2 here) with
# a message that says so, leaving no decoding process and no temporary
# directory behind; and a SIGTERM meanwhile ends ecp the same way.
set -u
: "${ECP:?}" "${SAMPLE:?}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecp-decode-timeout.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

cp -r "$SAMPLE" "$tmp/t" || fail "cannot copy $SAMPLE"
rm -f "$tmp/t/ecp-record.streams" "$tmp/t"/ecp-model*.cache
truncate -s 2000 "$tmp/t/main/ust/uid/0/64-bit/metadata" || fail "truncate"
mkdir "$tmp/private"
start=$(date +%s)
out=$(TMPDIR="$tmp/private" ECP_DECODE_TIMEOUT_S=2 timeout 60 "$ECP" info "$tmp/t" 2>&1)
rc=$?
took=$(($(date +%s) - start))
echo "exit $rc after ${took}s: $out"
[ $rc -eq 1 ] || fail "exit $rc, want 1"
case $out in *"did not finish in 2 s"*) ;; *) fail "the message does not name the time limit";; esac
[ "$took" -lt 30 ] || fail "took ${took}s for a 2 s limit"
[ -z "$(ls -A "$tmp/private")" ] || fail "left in TMPDIR: $(ls -A "$tmp/private")"
if pgrep -f "ecp info $tmp/t" >/dev/null; then fail "a decoding process was left running"; fi

# SIGTERM while it decodes (no limit reached): ecp ends by that signal, its
# decoding child and its temporary directory with it.
TMPDIR="$tmp/private" "$ECP" info "$tmp/t" >/dev/null 2>&1 &
pid=$!
sleep 1
kill -TERM $pid
wait $pid
rc=$?
echo "SIGTERM while decoding: exit $rc"
[ $rc -eq 143 ] || fail "exit $rc after SIGTERM, want 143 (killed by it)"
sleep 0.2
[ -z "$(ls -A "$tmp/private")" ] || fail "left in TMPDIR after SIGTERM: $(ls -A "$tmp/private")"
if pgrep -f "ecp info $tmp/t" >/dev/null; then fail "the decoding child outlived ecp"; fi
echo PASS
