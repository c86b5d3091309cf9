#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `meson install` into a staging directory must place bin/ecp, the agent and
# every man page, and the installed ecp must find its agent with no
# environment variable.
set -euo pipefail
build=${1:-build}
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
DESTDIR="$stage" meson install -C "$build" --quiet
prefix=$(meson introspect "$build" --buildoptions | python3 -c \
	'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
root="$stage$prefix"
fail=0
need() { if [ -e "$1" ]; then echo "ok: $1"; else echo "MISSING: $1"; fail=1; fi; }
need "$root/bin/ecp"
agent=$(find "$root" -name 'libecp-record.so' | head -n 1)
if [ -n "$agent" ]; then echo "ok: agent at ${agent#$stage}"; else echo "MISSING: libecp-record.so"; fail=1; fi
for page in ecp ecp-record ecp-info ecp-report ecp-scan ecp-whatif ecp-compare ecp-viz ecp-export; do
	need "$root/share/man/man1/$page.1"
done

# The installed ecp must find its own agent with no environment variable.
if [ $fail -eq 0 ]; then
	if env -u LD_PRELOAD -u LD_LIBRARY_PATH "$root/bin/ecp" record -q -o "$stage/t.data" -- \
		sh -c 'exit 3' >/dev/null 2>"$stage/rec.err"; then st=0; else st=$?; fi
	if [ "$st" -eq 3 ] && [ -f "$stage/t.data/ecp-record.meta" ]; then
		echo "ok: the installed ecp records (program status 3 passed through)"
	else
		echo "FAIL: the installed ecp could not record (exit $st):"; cat "$stage/rec.err"; fail=1
	fi
	if "$root/bin/ecp" reprot >/dev/null 2>"$stage/typo.err"; then st=0; else st=$?; fi
	if [ "$st" -eq 2 ] && grep -q "report" "$stage/typo.err"; then
		echo "ok: 'ecp reprot' exits 2 and names report"
	else
		echo "FAIL: 'ecp reprot' exit $st"; fail=1
	fi
fi
exit $fail
