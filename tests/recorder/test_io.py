#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: threads handing data to each other through the kernel (io-sync.c,
built with _FORTIFY_SOURCE=2).

Modes pipe, socketpair, eventfd, mqueue: a producer/consumer of 16 items
through that channel records every write and read of it (chan_write,
chan_read), and ecp's predicted run time on P = 1..4 processors is within
5% of the oracle (oracle.py) on the durations the same run measured: the
reader's blocked reads are dependencies on the writer, not delays (as
delays, two independent threads would be predicted about 45% faster at
P = 2).

Mode misc: every other wrapped blocking call is in the trace with its
delay kind (EVENTS.md), the clock rwlocks and timed/try joins are
recorded, the datagram socketpair's transfers are channel transfers, and
`ecp record` names, as calls it does not model, each one the program made
(with -q too): sched_yield, flock; the signals it raises and takes with
sigwait/sigwaitinfo are a channel, and so is its pthread_cancel (issue 32).

usage: test_io.py IO_SYNC_BINARY MODE"""
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecptrace import *  # noqa: E402,F403
from oracle import seg, compare, run_time, producer_consumer, measured_segments  # noqa: E402

TOLERANCE = 0.05
KINDS = {'connect': 12, 'poll/__poll_chk': 4, 'ppoll/__ppoll_chk': 14, 'pselect': 15,
         'epoll_pwait/epoll_pwait2': 16, 'wait/waitpid/waitid': 25,
         'sigwait/sigwaitinfo/sigtimedwait': 26, 'flock/fcntl': 27}


def channel(ecp_bin, trace, p, ev):
    d = measured_segments(p.stdout)
    threads = producer_consumer(d, 16)
    check(count(ev, 'ecp:thread_start') == 2, 'threads: %d' % count(ev, 'ecp:thread_start'))
    check(count(ev, 'ecp:chan_write') >= 16, 'chan_write: %d' % count(ev, 'ecp:chan_write'))
    check(count(ev, 'ecp:chan_read') >= 1, 'no chan_read')
    print('%d chan_write, %d chan_read, %d blocking reads'
          % (count(ev, 'ecp:chan_write'), count(ev, 'ecp:chan_read'),
             count(ev, 'ecp:delay_begin')))
    s = subprocess.run([ecp_bin, 'scan', '-P', '1-4', '--format', 'json', trace],
                       capture_output=True, text=True)
    check(s.returncode == 0, 'ecp scan: %s' % s.stderr)
    pred = json.loads(s.stdout)['makespan_ns']
    independent = [[seg(sum(x[0] for x in t))] for t in threads]
    print('independent threads at P=2 would take %.3f ms' % (run_time(independent, 2) / 1e6))
    bad = compare(pred, threads, [1, 2, 3, 4], TOLERANCE, read_meta(trace))
    check(not bad, 'predicted T_P off the oracle by more than 5%%: %s' % bad)


def misc(ecp_bin, trace, p, ev):
    out = program_output(p.stdout)
    for k in ('clockrdlock', 'clockwrlock', 'tryjoin', 'timedjoin', 'clockjoin', 'cancel',
              'flock', 'fcntl'):
        check(out.get(k) == '0', '%s=%s' % (k, out.get(k)))
    check(out.get('sigtimedwait') == 'EAGAIN', 'sigtimedwait=%s' % out.get('sigtimedwait'))
    for k in ('waitpid', 'wait', 'sigwait', 'sigwaitinfo', 'accept4'):
        check(out.get(k) == '1', '%s=%s' % (k, out.get(k)))
    check(out.get('waitid') == '0', 'waitid=%s' % out.get('waitid'))
    # the datagram socketpair's transfers are channel transfers
    # (sendto, sendmsg, writev; not the write to a file that reused the
    # number of a pipe end fclose closed)
    check(out.get('stale_write') == '4', 'stale_write=%s' % out.get('stale_write'))
    # (signals and cancels are channels too, numbered apart: not counted)
    def fd_chan(e):
        return e['chan'] >> 40 != 0x534947 and e['chan'] >> 48 != 0x4341
    fd_writes = sum(1 for e in named(ev, 'ecp:chan_write') if fd_chan(e))
    fd_reads = sum(1 for e in named(ev, 'ecp:chan_read') if fd_chan(e))
    check(fd_writes == 3 and fd_reads >= 3,
          'socketpair transfers: %d writes, %d reads' % (fd_writes, fd_reads))
    kinds = {e['kind'] for e in named(ev, 'ecp:delay_begin')}
    for name, k in KINDS.items():
        check(k in kinds, '%s: no delay of kind %d (kinds %s)' % (name, k, sorted(kinds)))
    check(count(ev, 'ecp:lock_acquired', kind=2) == 2, 'clock rwlocks')
    check(count(ev, 'ecp:thread_join_end', ok=1) == 4, 'joins: %d'
          % count(ev, 'ecp:thread_join_end', ok=1))
    # a signal the program sends itself is a channel of that signal
    # (agent-signal.c): raise writes a unit, the sigwait that takes it reads
    # it, and the wait is no longer named as unmodelled
    sig = 0x5349470000000000 | 10
    check(count(ev, 'ecp:chan_write', chan=sig) == 2 and count(ev, 'ecp:chan_read', chan=sig) == 2,
          'SIGUSR1 channel: %d writes, %d reads' % (count(ev, 'ecp:chan_write', chan=sig),
                                                     count(ev, 'ecp:chan_read', chan=sig)))
    names = {e['name'] for e in named(ev, 'ecp:unmodelled')}
    for name in ('sigwait', 'sigwaitinfo', 'sigtimedwait', 'pthread_cancel'):
        check(name not in names, '%s is still named as unmodelled' % name)
    # the cancelled thread's end reads the cancel its canceller wrote
    cancels = [e for e in named(ev, 'ecp:chan_write') if e['chan'] >> 48 == 0x4341]
    check(len(cancels) == 1 and any(e['chan'] == cancels[0]['chan']
                                    for e in named(ev, 'ecp:chan_read')),
          'cancel channel: %d writes' % len(cancels))
    for name in ('sched_yield', 'flock'):
        check(name in names, 'no unmodelled event for %s: %s' % (name, sorted(names)))
        check('the program called %s, which ecp does not model' % name in p.stderr,
              'ecp record did not name %s: %s' % (name, p.stderr))
    # with -q too: a warning is no summary
    q = record(['-q', '-o', trace + '-q'], [os.path.abspath(sys.argv[1]), 'misc'],
               cwd=os.path.dirname(trace))
    check(q.returncode == 0 and 'the program called sched_yield' in q.stderr,
          'ecp record -q did not name sched_yield: %s' % q.stderr)
    i = subprocess.run([ecp_bin, 'info', '--format', 'json', trace], capture_output=True,
                       text=True)
    # its children (fork + waitpid, system) are followed (issue 32), but
    # this short program's time is mostly start-up the switch records do
    # not all see (three children each starting LTTng-UST in a few ms): the
    # consistency check may refuse the answer, naming the unmodelled calls
    # first
    if i.returncode == 1:
        check(refused(i.stderr) and
              'sched_yield' in i.stderr, 'ecp info: %s' % i.stderr)
        return
    check(i.returncode == 0, 'ecp info: %s' % i.stderr)
    warnings = ' '.join(json.loads(i.stdout)['warnings'])
    check('sched_yield' in warnings, 'model warnings: %s' % warnings)


def main():
    prog = os.path.abspath(sys.argv[1])
    mode = sys.argv[2]
    ecp_bin = ecp()
    work = workdir()
    trace = os.path.join(work, 'trace')
    p = record(['-o', trace], [prog, mode], cwd=work)
    check(p.returncode == 0, 'exit %d: %s' % (p.returncode, p.stderr))
    if 'skip=' in p.stdout:
        skip(p.stdout.strip())
    ev = [e for e in read_trace(os.path.join(trace, 'main')) if e['event'].startswith('ecp:')]
    (misc if mode == 'misc' else channel)(ecp_bin, trace, p, ev)
    shutil.rmtree(work, ignore_errors=True)
    print('ok')


main()
