#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a recording adds to programs that start many others: each program
below recorded on one CPU, its T1 (the model's work) and the CPU time the
recording saw (`ecp info --format json`), against the same program's CPU
time unrecorded (user + sys, pinned to the same CPU), run pair by pair so
that the machine's drifting speed hits both alike; with OLD_ECP=path the
same for another build, in turn.

  usage: bench/recorder/children.py BUILD_DIR [PAIRS]

Programs: a shell loop of 40 /bin/true; Python starting /bin/true 30 times
with subprocess.run (vfork, then every descriptor closed in the child);
`make -j2` compiling 8 small C files with gcc (its driver, cc1, as,
collect2, ld as children); `xargs -P2 -n1 gzip -k -f` over 8 files of
512 KiB; a Python multiprocessing.Pool(2) hashing in 16 tasks (its workers
are fork copies that do not exec)."""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile


POOL = '''import multiprocessing as mp, hashlib
def work(i):
    h = b'x'
    for _ in range(30000):
        h = hashlib.sha256(h).digest()
    return h[0]
if __name__ == '__main__':
    with mp.Pool(2) as p:
        print(sum(p.map(work, range(16))))
'''


def programs(work):
    src = os.path.join(work, 'src')
    os.makedirs(src)
    with open(os.path.join(src, 'Makefile'), 'w') as f:
        objs = ' '.join('f%d.o' % i for i in range(8))
        f.write('all: prog\nprog: %s\n\tgcc -o $@ $^\n%%.o: %%.c\n\tgcc -O2 -c $<\n' % objs)
    for i in range(8):
        with open(os.path.join(src, 'f%d.c' % i), 'w') as f:
            body = ''.join('int g%d_%d(int x) { return x * %d + %d; }\n' % (i, k, k, i)
                           for k in range(200))
            f.write(body + ('int main(void) { return 0; }\n' if i == 0 else ''))
    data = os.path.join(work, 'data')
    os.makedirs(data)
    for i in range(8):
        with open(os.path.join(data, 'd%d' % i), 'wb') as f:
            f.write(os.urandom(256 * 1024) + bytes(256 * 1024))
    return [
        ('sh loop, 40 /bin/true', ['sh', '-c', 'for i in $(seq 40); do /bin/true; done'], work),
        ('python subprocess x30', ['/usr/bin/python3', '-c', 'import subprocess\n'
                                   'for i in range(30): subprocess.run(["/bin/true"])'], work),
        ('make -j2, 8 files', ['sh', '-c', 'make -s -B -j2 >/dev/null'], src),
        ('python Pool(2), 16 tasks', ['/usr/bin/python3', '-c', POOL], work),
        ('xargs -P2 gzip, 8 files', ['sh', '-c', 'ls d? | xargs -P2 -n1 gzip -k -f'], data),
    ]


def unrecorded_cpu(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(['taskset', '-c', '0'] + cmd, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def recorded(ecp, cmd, cwd, trace):
    subprocess.run([ecp, 'record', '-q', '-f', '-o', trace, '--'] + cmd, cwd=cwd,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run([ecp, 'info', '--format', 'json', trace], capture_output=True,
                         text=True).stdout
    d = json.loads(out)
    return d['work_ns'] / 1e9, d['consistency'].get('program_cpu_ns', 0) / 1e9


def main():
    build = os.path.abspath(sys.argv[1])
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    builds = [('this build', os.path.join(build, 'cli', 'ecp'))]
    if os.environ.get('OLD_ECP'):
        builds.append(('OLD_ECP', os.environ['OLD_ECP']))
    work = tempfile.mkdtemp(prefix='ecp-children-')
    try:
        for name, cmd, cwd in programs(work):
            rows = {b: [] for b, _ in builds}
            for _ in range(pairs):
                for b, ecp in builds:
                    cpu = unrecorded_cpu(cmd, cwd)
                    t1, prog_cpu = recorded(ecp, cmd, cwd, os.path.join(work, 'trace'))
                    rows[b].append((t1 / cpu, prog_cpu / cpu, cpu, t1))
            for b, _ in builds:
                r = rows[b]
                print('%-26s %-10s T1/CPU %s  recorded CPU/CPU %s  (CPU unrecorded %.3f s, '
                      'T1 %.3f s, medians of %d pairs)' % (
                          name, b,
                          '%.2f [%.2f-%.2f]' % (statistics.median(x[0] for x in r),
                                                min(x[0] for x in r), max(x[0] for x in r)),
                          '%.2f [%.2f-%.2f]' % (statistics.median(x[1] for x in r),
                                                min(x[1] for x in r), max(x[1] for x in r)),
                          statistics.median(x[2] for x in r), statistics.median(x[3] for x in r),
                          len(r)))
    finally:
        shutil.rmtree(work, ignore_errors=True)


main()
