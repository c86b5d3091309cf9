#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e (issue 18): unmodified Debian binaries recorded without recompiling.

`pigz -p 4` and `zstd -T4` (stripped, built without -finstrument-functions)
compress a generated file under `ecp record` (sampling by default).  The
trace must hold samples and every thread the program made; the report must
name functions of libz (pigz's compression library: its exported functions
by name, its static ones as libz.so.1+0x...) and of the program itself
(objects/ keeps their copies); and most of the work must be attributed to
compression code, not to the threads' start routines.

usage: test_debian_sampled.py
env:   ECP
exit:  0 pass, 1 fail, 77 skip (pigz/zstd not installed, no LTTng or perf)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ECP = os.environ.get("ECP")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def check_program(tmp, name, argv, want_threads, library):
    trace = os.path.join(tmp, name + ".data")
    out = os.path.join(tmp, name + ".out")
    with open(out, "wb") as sink:
        r = subprocess.run([ECP, "record", "-q", "-f", "-o", trace, "--"] + argv,
                           stdout=sink, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        fail(f"ecp record {' '.join(argv)} exited with {r.returncode}: {r.stderr}")
    meta = dict(line.rstrip("\n").partition("=")[::2]
                for line in open(os.path.join(trace, "ecp-record.meta")))
    if meta.get("clock") != "perf-switch":
        print("SKIP: perf is refused here")
        sys.exit(77)
    if meta.get("functions_mode") != "sample":
        fail(f"{name}: functions_mode={meta.get('functions_mode')} (an uninstrumented "
             f"program is sampled by default)")
    samples = int(meta.get("samples", "0"))
    if samples < 200:
        fail(f"{name}: only {samples} samples")
    info = json.loads(run([ECP, "info", trace, "--format", "json"]).stdout)
    if info["threads"] < want_threads:
        fail(f"{name}: {info['threads']} threads recorded, want >= {want_threads}")
    r = run([ECP, "report", trace, "-P", "4", "--format", "json", "--top", "0"])
    if r.returncode != 0:
        fail(f"{name}: ecp report exited with {r.returncode}: {r.stderr}")
    doc = json.loads(r.stdout)
    funcs = doc["functions"]
    base = os.path.basename(shutil.which(argv[0]))
    own = [f for f in funcs if os.path.basename(f["object"]) == base and f["samples"]]
    if not own:
        fail(f"{name}: no sampled function of {base} itself")
    sampled_work = sum(f["work_ns"] for f in funcs if f["samples"])
    if sampled_work < 0.8 * doc["work_ns"]:
        fail(f"{name}: sampled functions hold {sampled_work} of {doc['work_ns']} ns of work "
             f"(want >= 80%: the rest went to start routines)")
    lib_named = lib_any = []
    if library:
        lib_any = [f for f in funcs
                   if os.path.basename(f["object"]).startswith(library) and f["samples"]]
        lib_named = [f["name"] for f in lib_any if "+0x" not in f["name"]]
        if not lib_named:
            fail(f"{name}: no named function of {library} among "
                 f"{[f['name'] for f in lib_any][:10]}")
        if not os.path.exists(os.path.join(trace, "objects", os.path.basename(
                lib_any[0]["object"]))):
            fail(f"{name}: the trace keeps no copy of {lib_any[0]['object']}")
    top = max(funcs, key=lambda f: f["work_ns"])
    print(f"{name}: {samples} samples, {info['threads']} threads; {len(own)} functions of "
          f"{base}, {len(lib_any)} of {library or '-'} ({len(lib_named)} named, e.g. "
          f"{', '.join(sorted(lib_named)[:4])}); most work: {top['name']} "
          f"({top['work_ns'] / doc['work_ns']:.0%})")


def main():
    if not ECP:
        fail("ECP must name the ecp binary")
    if not shutil.which("lttng-sessiond"):
        print("SKIP: lttng-sessiond is not installed")
        sys.exit(77)
    missing = [p for p in ("pigz", "zstd") if not shutil.which(p)]
    if missing:
        print(f"SKIP: {' and '.join(missing)} not installed (scripts/install-deps.sh "
              f"installs them)")
        sys.exit(77)
    tmp = tempfile.mkdtemp(prefix="ecp-debian-")
    try:
        # 16 MB of hex text (random bytes, written out: it compresses to
        # about half): about 0.4 s of CPU for pigz, 0.3 s for zstd -12
        data = os.path.join(tmp, "input.txt")
        with open(data, "w") as f:
            for _ in range(64):
                f.write(os.urandom(131072).hex())
        check_program(tmp, "pigz", ["pigz", "-p", "4", "-c", data], 5, "libz.so")
        # Debian's zstd carries libzstd inside the (stripped) program: its
        # functions are zstd+0x...
        check_program(tmp, "zstd", ["zstd", "-T4", "-12", "-c", data], 3, None)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
