#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks that every C and C++ file follows .clang-format (clang-format 14,
# Debian 12's), and names those that do not.  LTTng's tracepoint headers are
# left out: their macro language is not C that clang-format can lay out.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format is not installed" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cc' |
	grep -v -E '^recorder/(agent/ecp-tp|ecp-sched-tp)\.h$')
bad=()
for f in "${files[@]}"; do
	if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		bad+=("$f")
	fi
done
if [ "${#bad[@]}" -ne 0 ]; then
	echo "not formatted (clang-format -i FILE): ${bad[*]}" >&2
	exit 1
fi
echo "format: ${#files[@]} files follow .clang-format"
