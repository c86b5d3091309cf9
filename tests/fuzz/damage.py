#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The damage campaign (issue 33): committed sample traces, each copy damaged
one way -- a file truncated at a random offset or a packet boundary, a byte
flipped, a file deleted, swapped with the same file of another trace,
replaced by a symlink or a FIFO, a foreign file added, the model cache
flipped -- then `ecp info --format json` on it, as a user runs it.  Every
case must end in one of three ways:

  same     exit 0 and the undamaged trace's answer;
  warned   exit 0, another answer, and a warning saying what is wrong;
  refused  exit 1 with an error message;

never a crash (another exit status, a sanitizer report), a hang (the time
limit), or a different answer without a warning.  The counts are asserted.

usage: damage.py ECP N SEED SAMPLE_DIR...   (N cases, deterministic from SEED)"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

KINDS = ['truncate', 'truncate-page', 'flip', 'delete', 'swap', 'symlink', 'fifo',
         'foreign', 'cache-flip']


def files_of(trace):
    out = []
    for root, _, names in os.walk(trace):
        for n in names:
            out.append(os.path.relpath(os.path.join(root, n), trace))
    return sorted(out)


def answer(ecp, trace, timeout):
    env = dict(os.environ, ECP_DECODE_TIMEOUT_S='10')
    try:
        # a damaged file's bytes may be quoted in a message: not UTF-8
        p = subprocess.run([ecp, 'info', '--format', 'json', trace], capture_output=True,
                           text=True, errors='replace', timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, '', ''
    return p.returncode, p.stdout, p.stderr


def comparable(text):
    """The answer without what names the copy (its path)."""
    d = json.loads(text)
    d.pop('trace', None)
    return d


def damage(rng, kind, trace, others, work):
    files = [f for f in files_of(trace) if not f.startswith('ecp-model')]
    rel = rng.choice(files)
    path = os.path.join(trace, rel)
    if kind in ('truncate', 'truncate-page'):
        size = os.path.getsize(path)
        cut = rng.randrange(size) if size else 0
        if kind == 'truncate-page':
            cut -= cut % 4096
        os.truncate(path, cut)
        return '%s %s at %d of %d' % (kind, rel, cut, size)
    if kind == 'flip':
        size = os.path.getsize(path)
        if not size:
            os.truncate(path, 1)
            return 'grew empty %s' % rel
        at = rng.randrange(size)
        with open(path, 'r+b') as f:
            f.seek(at)
            b = f.read(1)[0]
            f.seek(at)
            f.write(bytes([b ^ (1 << rng.randrange(8))]))
        return 'flip %s at %d' % (rel, at)
    if kind == 'delete':
        os.remove(path)
        return 'delete %s' % rel
    if kind == 'swap':
        donor = [o for o in others if os.path.isfile(os.path.join(o, rel))]
        if not donor:
            os.remove(path)
            return 'swap (no donor): delete %s' % rel
        src = rng.choice(donor)
        shutil.copyfile(os.path.join(src, rel), path)
        return 'swap %s from %s' % (rel, os.path.basename(src))
    if kind == 'symlink':
        keep = os.path.join(work, 'linked-' + os.path.basename(rel))
        shutil.copyfile(path, keep)
        os.remove(path)
        os.symlink(keep, path)
        return 'symlink %s' % rel
    if kind == 'fifo':
        os.remove(path)
        os.mkfifo(path)
        return 'fifo %s' % rel
    if kind == 'foreign':
        d = os.path.dirname(path)
        name = rng.choice(['ecp_7', 'stream_9', 'extra.idx', 'libfoo.so'])
        with open(os.path.join(d, name), 'wb') as f:
            f.write(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9000))))
        return 'foreign %s' % os.path.join(os.path.dirname(rel), name)
    # cache-flip: the cache made by a first answer, then a byte of it
    cache = os.path.join(trace, 'ecp-model.cache')
    if not os.path.exists(cache):
        return 'cache-flip: no cache'
    size = os.path.getsize(cache)
    at = rng.randrange(size)
    with open(cache, 'r+b') as f:
        f.seek(at)
        b = f.read(1)[0]
        f.seek(at)
        f.write(bytes([b ^ 0x20]))
    return 'cache-flip at %d' % at


def main():
    ecp, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    samples = [os.path.abspath(s) for s in sys.argv[4:]]
    rng = random.Random(seed)
    work = tempfile.mkdtemp(prefix='ecp-damage-')
    counts = {'same': 0, 'warned': 0, 'refused': 0, 'crash': 0, 'hang': 0, 'silent': 0}
    bad = []
    try:
        pristine, baseline = {}, {}
        for s in samples:
            d = os.path.join(work, 'pristine-' + os.path.basename(s))
            shutil.copytree(s, d, ignore=shutil.ignore_patterns('ecp-model*'))
            rc, out, err = answer(ecp, d, 120)
            if rc != 0:
                print('FAIL: the undamaged %s: exit %s: %s' % (s, rc, err))
                sys.exit(1)
            pristine[s], baseline[s] = d, comparable(out)
        for case in range(n):
            s = rng.choice(samples)
            kind = KINDS[case % len(KINDS)]
            t = os.path.join(work, 'case')
            shutil.rmtree(t, ignore_errors=True)
            shutil.copytree(pristine[s], t, symlinks=True)
            if kind == 'cache-flip':
                answer(ecp, t, 120)
            others = [pristine[o] for o in samples if o != s]
            what = damage(rng, kind, t, others, work)
            rc, out, err = answer(ecp, t, 60)
            if rc is None:
                verdict = 'hang'
            elif rc == 1 and 'error:' in err:
                verdict = 'refused'
            elif rc != 0 or 'Sanitizer' in err or 'runtime error' in err:
                verdict = 'crash'
            else:
                try:
                    got = comparable(out)
                except ValueError:
                    got = None
                if got == baseline[s]:
                    verdict = 'same'
                elif 'warning:' in err:
                    verdict = 'warned'
                else:
                    verdict = 'silent'
            counts[verdict] += 1
            if verdict in ('crash', 'hang', 'silent'):
                bad.append('%s on %s: %s (exit %s) %s' % (verdict, os.path.basename(s), what,
                                                       rc, err.strip()[-300:]))
            shutil.rmtree(t, ignore_errors=True)
            for f in os.listdir(work):
                if f.startswith('linked-'):
                    os.remove(os.path.join(work, f))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(counts.values())
    print('%d cases on %d traces: %s' % (total, len(samples),
                                         ', '.join('%s %d' % kv for kv in counts.items())))
    for b in bad[:20]:
        print('FAIL: ' + b)
    ok = total == n and not bad
    print('%d passed, %d failed' % (total - len(bad), len(bad)))
    sys.exit(0 if ok else 1)


main()
