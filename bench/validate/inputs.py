# SPDX-License-Identifier: MIT
"""Inputs the validation scripts give real programs, made fresh under a
temporary directory (random, so no compressor finds an easy pattern)."""
import base64
import os
import shutil
import subprocess


def base64_text(path, size):
    """SIZE bytes (or a little more) of base64 text of random bytes."""
    with open(path, 'wb') as f:
        while f.tell() < size:
            f.write(base64.encodebytes(os.urandom(3 << 20)))
    return path


def esbuild_project(work):
    """200 modules of 300 small functions each and an index importing them
    all: enough for esbuild's parser and linker to spread over its threads.
    Returns the index's path."""
    esb = os.path.join(work, 'esb')
    os.makedirs(esb)
    for i in range(200):
        with open(os.path.join(esb, 'm%d.js' % i), 'w') as f:
            for j in range(300):
                f.write('export function f%d_%d(a,b){let s=0;for(let k=0;k<a;k++){s+=k*b+%d;}'
                        'return s;}\n' % (i, j, j))
    index = os.path.join(esb, 'index.js')
    with open(index, 'w') as f:
        for i in range(200):
            f.write('import * as m%d from "./m%d.js"; console.log(m%d.f%d_0(3,4));\n'
                    % (i, i, i, i))
    return index


JAVA_PARALLEL_STREAM = '''import java.util.stream.LongStream;
public class Par {
    static long work(long x) {
        long h = x;
        for (int i = 0; i < 2000; i++) h = h * 6364136223846793005L + 1442695040888963407L;
        return h & 1;
    }
    public static void main(String[] a) {
        long n = Long.parseLong(a[0]);
        System.out.println(LongStream.range(0, n).parallel().map(Par::work).sum());
    }
}
'''


def java_parallel_stream(work):
    """A Java parallel stream over the common ForkJoin pool (each element a
    chain of multiplications), compiled with javac into WORK/java.  Returns
    that directory, or None when javac is not installed."""
    if not shutil.which('javac'):
        return None
    d = os.path.join(work, 'java')
    os.makedirs(d)
    with open(os.path.join(d, 'Par.java'), 'w') as f:
        f.write(JAVA_PARALLEL_STREAM)
    subprocess.run(['javac', 'Par.java'], cwd=d, check=True)
    return d


def git_objects(work):
    """A clone of the repository these scripts are in, under WORK/repo, and
    the list of its objects for `git pack-objects` (WORK/objects).  Returns
    (repository, list), or None when git or the repository is missing."""
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.path.dirname(os.path.dirname(here))
    if not shutil.which('git') or not os.path.isdir(os.path.join(top, '.git')):
        return None
    repo = os.path.join(work, 'repo')
    subprocess.run(['git', 'clone', '-q', top, repo], check=True)
    objects = os.path.join(work, 'objects')
    with open(objects, 'w') as f:
        subprocess.run(['git', 'rev-list', '--objects', '--all'], cwd=repo, stdout=f,
                       check=True)
    return repo, objects
