#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: `ecp whatif --faster heavy_work=20%` on a program whose loop is in a
callee of heavy_work (whatif-callee.c).  Inclusive scope (the default) must
shorten heavy_work with its callees: at P=1 every weight is 1, so the gain is
exactly 20% of heavy_work's inclusive time (its TETID at P=1, from the same
trace and model), and non-zero at every P.  --self must shorten only its own
time: almost nothing here.  JSON gives changes[].scope; the table says which
scope was used.

usage: test_whatif_scope.py WHATIF_CALLEE_BINARY   (env: ECP)
exit: 0 pass, 1 fail, 77 skip (no LTTng here)"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ECP = os.environ["ECP"]
failed = False


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed |= not ok


def ecp(*args):
    p = subprocess.run([ECP] + list(args), capture_output=True, text=True)
    if p.returncode != 0:
        print(f"ecp {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
        sys.exit(1)
    return p.stdout


def main():
    if not shutil.which("lttng-sessiond"):
        print("SKIP: lttng-sessiond is not installed")
        return 77
    work = tempfile.mkdtemp(prefix="ecp-whatif-")
    try:
        trace = os.path.join(work, "t.data")
        p = subprocess.run([ECP, "record", "-q", "-o", trace, "--", sys.argv[1]],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"ecp record: exit {p.returncode}\n{p.stderr}")
            return 1
        rep = json.loads(ecp("report", trace, "-P", "1", "--format", "json"))
        fn = {f["name"]: f for f in rep["functions"]}
        check("heavy_work" in fn and "burn" in fn, f"functions recorded: {sorted(fn)}")
        incl = fn["heavy_work"]["tetid_ns"]
        self_ns = fn["heavy_work"]["tet_ns"]
        check(self_ns < 0.05 * incl,
              f"the work is in the callee (heavy_work self {self_ns} ns, incl {incl} ns)")

        w = json.loads(ecp("whatif", trace, "--faster", "heavy_work=20%", "-P", "1-3",
                           "--format", "json"))
        gains = [b - a for b, a in zip(w["baseline_ns"], w["whatif_ns"])]
        check(w["changes"] == [{"name": "heavy_work", "found": "heavy_work", "faster_pct": 20,
                                 "scope": "inclusive"}],
              f"changes[] names the inclusive scope: {w['changes']}")
        # Same model, P=1: the gain is 20% of the inclusive time (ns rounding
        # per segment only).
        check(abs(gains[0] - 0.2 * incl) <= 0.001 * incl + 10,
              f"P=1 gain {gains[0]} ns = 20% of heavy_work's inclusive {incl} ns")
        check(all(g > 0.05 * incl for g in gains), f"a gain at every P: {gains}")

        s = json.loads(ecp("whatif", trace, "--faster", "heavy_work=20%", "--self",
                           "-P", "1-3", "--format", "json"))
        sgains = [b - a for b, a in zip(s["baseline_ns"], s["whatif_ns"])]
        check(s["changes"][0]["scope"] == "exclusive", "--self: scope exclusive in JSON")
        check(all(sg < 0.1 * g for sg, g in zip(sgains, gains)),
              f"--self shortens only heavy_work's own time: {sgains} vs {gains}")

        t = ecp("whatif", trace, "--faster", "heavy_work=20%", "-P", "2")
        check("scope: inclusive" in t, "the table says the scope is inclusive")
        t = ecp("whatif", trace, "--faster", "heavy_work=20%", "-P", "2", "--self")
        check("scope: exclusive (--self)" in t, "the table says --self was used")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


sys.exit(main())
