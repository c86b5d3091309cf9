#!/bin/bash
# SPDX-License-Identifier: MIT
# Builds the two libFuzzer targets with clang and fuzzes each for half of
# SECONDS (default 60) on a copy of the seed corpus (fuzz/README.md).
#
#     bash fuzz/run.sh [SECONDS]
#
# Exit status: 0 no crash; 1 a crash, a sanitizer report, a timeout (> 10 s
# per input) or a build failure; 77 clang with libFuzzer is not available.
# The build goes to $ECP_FUZZ_BUILD (default build-fuzz-clang in the source
# tree); the corpus copies, logs and crash inputs to a temporary directory,
# kept and named when something crashed.  Nothing is written into the
# sources or the committed corpus.
#
# The targets are compiled directly (a generated build.ninja) rather than
# with a second Meson configuration: the libraries need the fuzzer's
# coverage instrumentation, which Meson's b_sanitize cannot add, and
# clang's warnings on other areas' code must not break the run.
set -u

secs=${1:-60}
case $secs in
'' | *[!0-9]*) echo "usage: bash fuzz/run.sh [SECONDS]" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")/.." && pwd)
out=${ECP_FUZZ_BUILD:-$src/build-fuzz-clang}

cc=""
for c in ${CLANG:-} clang clang-14; do
	if command -v "$c" >/dev/null 2>&1; then
		cc=$c
		break
	fi
done
if [ -z "$cc" ]; then
	echo "fuzz/run.sh: clang not found (install clang and libclang-rt-14-dev); skipped" >&2
	exit 77
fi
mkdir -p "$out/gen" || exit 1
probe="$out/probe.c"
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n; }' >"$probe"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe" -o "$out/probe" 2>"$out/probe.log"; then
	echo "fuzz/run.sh: $cc cannot link a libFuzzer target (install libclang-rt-14-dev):" >&2
	cat "$out/probe.log" >&2
	exit 77
fi
for tool in ninja pkg-config; do
	command -v $tool >/dev/null 2>&1 || { echo "fuzz/run.sh: $tool not found" >&2; exit 1; }
done
pkg_cflags=$(pkg-config --cflags babeltrace2 libelf libdw) || exit 1
pkg_libs=$(pkg-config --libs babeltrace2 libelf libdw) || exit 1

# The one generated header the libraries include (only the cache uses it,
# and the harnesses load without the cache).
cat >"$out/gen/ecp-config.h.new" <<'H'
#define ECP_VERSION "fuzz"
#define ECP_AGENT_INSTALL_DIR "/nonexistent"
#define ECP_AGENT_RELATIVE_DIR "/nonexistent"
#define ECP_AGENT_NAME "libecp-record.so"
H
cmp -s "$out/gen/ecp-config.h.new" "$out/gen/ecp-config.h" ||
	mv "$out/gen/ecp-config.h.new" "$out/gen/ecp-config.h"
rm -f "$out/gen/ecp-config.h.new"

# The libraries the harnesses reach, the test helpers that write CTF, and
# the harnesses; all instrumented for coverage and sanitized.
libsrc=$(cd "$src" && ls common/*.c simulator/*/*.c ecp/*.c \
	tests/support/event-seq.c tests/support/ctf-writer.c \
	fuzz/harness-builder.c fuzz/harness-check.c fuzz/harness-ctf.c)
{
	echo "cflags = -std=gnu11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer" \
		"-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined" \
		"-I$src -I$out/gen $pkg_cflags"
	echo "ldflags = -fsanitize=fuzzer,address,undefined $pkg_libs -lm -ldl -lpthread"
	echo "rule cc"
	echo "  command = $cc -MMD -MF \$out.d \$cflags -c \$in -o \$out"
	echo "  depfile = \$out.d"
	echo "  deps = gcc"
	echo "  description = CC \$out"
	echo "rule link"
	echo "  command = $cc \$in -o \$out \$ldflags"
	echo "  description = LINK \$out"
	objs=""
	for f in $libsrc; do
		o="obj/${f%.c}.o"
		echo "build $o: cc $src/$f"
		objs="$objs $o"
	done
	for t in builder ctf; do
		echo "build obj/fuzz/fuzz-$t.o: cc $src/fuzz/fuzz-$t.c"
		echo "build fuzz-$t: link obj/fuzz/fuzz-$t.o$objs"
	done
} >"$out/build.ninja.new"
cmp -s "$out/build.ninja.new" "$out/build.ninja" || mv "$out/build.ninja.new" "$out/build.ninja"
rm -f "$out/build.ninja.new"
if ! ninja -C "$out" -j2 fuzz-builder fuzz-ctf >"$out/build.log" 2>&1; then
	tail -n 50 "$out/build.log" >&2
	echo "fuzz/run.sh: building the fuzz targets failed (log: $out/build.log)" >&2
	exit 1
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ecp-fuzz.XXXXXX") || exit 1
# libbabeltrace2's CTF source leaks small blocks when it gives up on corrupt
# metadata (a babeltrace2 bug, fuzz/README.md): suppressed by the function
# that initializes the source.  Matching it needs the slow unwinder through
# the plugin's frames, six times slower, so fuzz-ctf fuzzes without leak
# detection and then replays its whole final corpus with it.  Leaks in the
# project's own code, even in the sink babeltrace2 calls back, are reported.
cp "$src/tests/fuzz/lsan.supp" "$work/lsan.supp" || exit 1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=suppressions=$work/lsan.supp
export TMPDIR=$work # the ctf harness's recordings

half=$((secs / 2))
[ "$half" -ge 1 ] || half=1
status=0
total_runs=0
for t in builder ctf; do
	case $t in
	builder) maxlen=2048 ;;
	ctf) maxlen=512 ;;
	esac
	leaks=1
	[ $t = ctf ] && leaks=0
	# Without leak detection, LeakSanitizer's check at exit would report
	# babeltrace2's leaks with stacks too short to suppress.
	export ASAN_OPTIONS=abort_on_error=1:detect_leaks=$leaks
	mkdir -p "$work/artifacts"
	cp -r "$src/fuzz/corpus/$t" "$work/corpus-$t" || exit 1
	echo "fuzz/run.sh: fuzz-$t for ${half}s"
	"$out/fuzz-$t" "$work/corpus-$t" -max_total_time="$half" -timeout=10 \
		-rss_limit_mb=2048 -max_len="$maxlen" -print_final_stats=1 \
		-detect_leaks=$leaks -artifact_prefix="$work/artifacts/$t-" >"$work/$t.log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ] && [ $leaks = 0 ]; then
		echo "fuzz/run.sh: fuzz-$t: replaying the corpus with leak detection"
		ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0 \
			"$out/fuzz-$t" "$work/corpus-$t" -runs=0 -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix="$work/artifacts/$t-" >"$work/$t-leaks.log" 2>&1
		rc=$?
		[ "$rc" -eq 0 ] || cat "$work/$t-leaks.log" >>"$work/$t.log"
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log" | tail -n 1)
	echo "fuzz/run.sh: fuzz-$t: ${runs:-?} runs, exit $rc"
	total_runs=$((total_runs + ${runs:-0}))
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -E 'ERROR: |SUMMARY: |runtime error|fuzz: |Test unit written' "$work/$t.log" | head -n 20 >&2
		echo "fuzz/run.sh: fuzz-$t crashed; log $work/$t.log, inputs in $work/artifacts" >&2
	fi
done
echo "fuzz/run.sh: $total_runs runs in total"
if [ "$status" -eq 0 ]; then
	rm -rf "$work"
else
	echo "fuzz/run.sh: replay a crash with $out/fuzz-TARGET INPUT" >&2
fi
exit $status
