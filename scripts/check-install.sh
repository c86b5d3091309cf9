#!/usr/bin/env bash
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
for page in ecp ecp-record ecp-info ecp-report ecp-scan ecp-whatif ecp-viz ecp-export; do
	need "$root/share/man/man1/$page.1"
done
exit $fail
