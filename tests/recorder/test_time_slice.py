#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: `ecp record --time-slice` (recorder/time-slice.h).  SPIN (two
threads, each 250 ms of its own clock) on one CPU:

  default       no slice asked for: time_slice_ns=0 in the meta;
  --time-slice  20ms: the kernel reports the slice (Linux 6.12 or later;
                0 before, where the kernel takes and ignores it), and the
                two threads take turns far less often: fewer context
                switches than at the kernel's own slice (a few ms);
  --cpus 0-1    the slice is for one CPU only: 0, whatever was asked;
  usage         outside 100us-100ms (the kernel's bounds) is refused.

usage: test_time_slice.py SPIN_BINARY"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403

SLICE_NS = 20_000_000


def kernel_has_custom_slices():
    """Linux 6.12 added sched_attr.sched_runtime for fair tasks."""
    m = re.match(r'(\d+)\.(\d+)', os.uname().release)
    return m is not None and (int(m.group(1)), int(m.group(2))) >= (6, 12)


def spin_record(spin, work, name, args):
    trace = os.path.join(work, name)
    shutil.rmtree(trace, ignore_errors=True)
    p = record(['-o', trace, '--no-functions'] + args, [spin], cwd=work)
    check(p.returncode == 0, '%s: exit %d: %s' % (name, p.returncode, p.stderr))
    m = re.search(r'\((\d+) context switches\)', p.stderr)
    check(m is not None, '%s: no context switch count in: %s' % (name, p.stderr))
    meta = read_meta(trace)
    check('time_slice_ns' in meta, '%s: no time_slice_ns in the meta' % name)
    print('%s: time_slice_ns %s, %s context switches'
          % (name, meta['time_slice_ns'], m.group(1)))
    return int(meta['time_slice_ns']), int(m.group(1))


def main():
    if len(sys.argv) != 2:
        fail('usage: test_time_slice.py SPIN_BINARY')
    spin = os.path.abspath(sys.argv[1])
    ecp()
    work = workdir()
    supported = kernel_has_custom_slices()
    print('kernel %s: custom slices %s' % (os.uname().release,
                                           'expected' if supported else 'not expected'))

    slice0, switches0 = spin_record(spin, work, 'default', [])
    check(slice0 == 0, 'default: time_slice_ns %d, want 0' % slice0)

    def long_slice():
        got, switches = spin_record(spin, work, 'slice', ['--time-slice', '20ms'])
        check(got == (SLICE_NS if supported else 0),
              'slice: time_slice_ns %d, want %d' % (got, SLICE_NS if supported else 0))
        if supported:
            # 500 ms of two spinning threads: turns of ~20 ms against the
            # kernel's few ms; other processes' wake-ups on the CPU add to
            # both counts alike
            check(switches * 2 < switches0,
                  'slice: %d context switches, not under half the %d at the '
                  "kernel's own slice" % (switches, switches0))
    # the switch counts can be upset by a burst of other work on the CPU
    # during one recording, which neither recording can tell
    retry('slice', long_slice)

    if len(os.sched_getaffinity(0)) >= 2:
        cpus = sorted(os.sched_getaffinity(0))[:2]
        got, _ = spin_record(spin, work, 'cpus',
                             ['--cpus', '%d,%d' % (cpus[0], cpus[1]),
                              '--time-slice', '20ms'])
        check(got == 0, 'cpus: time_slice_ns %d, want 0 on --cpus' % got)

    for bad in ('50us', '101ms', '1s', 'x'):
        p = record(['-o', os.path.join(work, 'bad'), '--time-slice', bad], [spin],
                   cwd=work)
        check(p.returncode == 2 and "bad --time-slice '%s'" % bad in p.stderr,
              '--time-slice %s: exit %d: %s' % (bad, p.returncode, p.stderr))
    print('4 bad values refused')
    shutil.rmtree(work, ignore_errors=True)
    print('PASS')


if __name__ == '__main__':
    main()
