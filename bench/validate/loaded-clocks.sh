#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 31's acceptance under load: N recordings of tests/model/nine-threads
# (9 threads, instrumented) while a busy loop runs on each CPU; for each, every
# thread's work (`ecp info`) against its own CPU clock as the program printed
# it in the same run, and the consistency check's verdict.  A measurement,
# not a test: it loads the whole machine for a minute or two.
# usage: bench/validate/loaded-clocks.sh BUILD_DIR [N]   (default N = 30)
set -euo pipefail
build=$(cd "${1:?usage: loaded-clocks.sh BUILD_DIR [N]}" && pwd)
n=${2:-30}
ecp=$build/cli/ecp
prog=$build/tests/model/nine-threads
work=$(mktemp -d /tmp/ecp-loaded-XXXXXX)
hogs=()
cleanup() { kill "${hogs[@]}" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	hogs+=($!)
done
for i in $(seq "$n"); do
	"$ecp" record -q -o "$work/t$i" -- "$prog" >"$work/out$i" 2>/dev/null
	"$ecp" info --format json "$work/t$i" >"$work/info$i.json" 2>/dev/null || true
done
python3 - "$work" "$n" <<'PY'
import json, re, sys
work, n = sys.argv[1], int(sys.argv[2])
worst_all, over, warned = [], 0, 0
for i in range(1, n + 1):
    out = open('%s/out%d' % (work, i)).read()
    own = {int(t): int(c) for t, c in re.findall(r'tid=(\d+) cpu_ns=(\d+)', out)}
    try:
        info = json.load(open('%s/info%d.json' % (work, i)))
    except ValueError:
        print('run %2d: ecp info failed' % i); over += 1; continue
    devs = [(100.0 * (t['work_ns'] - own[t['tid']]) / own[t['tid']], t['name'])
            for t in info['thread_list'] if t['tid'] in own]
    worst = max(devs, key=lambda d: abs(d[0]))
    status = info['consistency']['status']
    worst_all.append(abs(worst[0]))
    over += abs(worst[0]) > 2.0
    warned += status != 'ok'
    print('run %2d: %d threads, worst %+.3f%% (%s), consistency %s (%+.2f%%), %s ns/event'
          % (i, len(devs), worst[0], worst[1], status, info['consistency']['gap_pct'],
             info['event_cost_ns']))
worst_all.sort()
print('%d runs with both CPUs busy: worst thread deviation median %.3f%%, max %.3f%%; '
      '%d over 2%%, %d not ok' % (n, worst_all[len(worst_all) // 2], worst_all[-1], over, warned))
PY
