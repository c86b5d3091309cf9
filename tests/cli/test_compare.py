#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: `ecp compare` on copies of a committed sample (no LTTng needed).

- the sample against a copy of itself (before/after): every difference 0,
  every ratio 1.000 (table, JSON and CSV);
- against a copy whose ecp-record.meta says cpus=2 (measured at N = 2):
  N T_N = T_1 + F_N + I_N + R_N in the JSON, inflation 1.0 and 0 extra for
  every function and thread; given the other way round, the sides are
  exchanged and said so, with the same totals;
- both copies on 2 CPUs, a missing directory, a directory that is no trace:
  exit 1 naming it; P=0 and a single trace: usage errors (exit 2).

The copies are made in a temporary directory, without the model cache, so
the committed files are never written (reading a trace writes its cache).
The cpus=2 copy loses its stream manifest: the sample predates the meta's
manifest=1 key, so it is read as a trace recorded before manifests (the
manifest would refuse the meta line added).

usage: test_compare.py   (env: ECP, ECP_SOURCE_ROOT)"""
import collections
import csv
import io
import html.parser
import json
import os
import shutil
import subprocess
import math
import sys
import tempfile

ECP = os.environ["ECP"]
SRC = os.environ["ECP_SOURCE_ROOT"]
SAMPLE = "billing"
failed = False


def half_up(x):
    """ecp's rule for a printed time (common/time-round.h): halves away from
    zero; Python's round() sends them to even."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def check(ok, what, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failed = True
        if detail:
            print("  | " + str(detail).replace("\n", "\n  | "))


def run(*args):
    return subprocess.run([ECP] + list(args), capture_output=True, text=True)


def answer(*args):
    p = run(*args)
    if p.returncode != 0:
        print(f"ecp {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
        sys.exit(1)
    return p


def copy_sample(work, name, cpus=None):
    d = os.path.join(work, name)
    shutil.copytree(os.path.join(SRC, "traces", "samples", SAMPLE), d)
    cache = os.path.join(d, "ecp-model.cache")
    if os.path.exists(cache):
        os.remove(cache)
    if cpus:
        # the edited meta fails its manifest: as a trace recorded before
        # manifests, without the list and without manifest=1
        meta = os.path.join(d, "ecp-record.meta")
        lines = open(meta).read().splitlines(True)
        with open(meta, "w") as f:
            f.write("".join(x for x in lines if not x.startswith("manifest=")))
            f.write(f"cpus={cpus}\n")
        os.remove(os.path.join(d, "ecp-record.streams"))
    return d


def check_before_after(base, other):
    j = json.loads(answer("compare", base, other, "-P", "1-4", "--format", "json").stdout)
    check(j["mode"] == "before_after" and not j["swapped"] and j["same_program"],
          "a copy of itself: before/after, same program", j["mode"])
    check(j["processors"] == [1, 2, 3, 4], "the P asked", j["processors"])
    check(j["makespan_base_ns"] == j["makespan_other_ns"]
          and all(d == 0 for d in j["makespan_diff_ns"]), "T_P equal at every P")
    fns = j["functions"]
    check(len(fns) > 3, f"{len(fns)} functions compared")
    check(all(f["diff_ns"] == 0 and f["ratio"] == 1 for f in fns),
          "every difference 0, every ratio 1", fns[:3])
    check(all(f["tet_base_ns"] == f["tet_other_ns"] and set(f["tet_diff_ns"]) == {0}
              for f in fns), "TET equal at every P")
    check(j["base"]["consistency"]["status"] in ("ok", "warning"),
          "each side carries its consistency check")

    t = answer("compare", base, other, "-P", "1-4").stdout
    rows = [l.split() for l in t.splitlines()]
    ratios = [r[-1] for r in rows if len(r) >= 5 and r[-2] == "ns" and r[-3] == "0"]
    check(len(ratios) >= 4 + len(fns[:20]) and set(ratios) == {"1.000"},
          "the table shows 0 ns and ratio 1.000 on every row", t)

    c = list(csv.DictReader(io.StringIO(
        answer("compare", base, other, "-P", "1,2", "--format", "csv").stdout)))
    check(c and all(r["difference"] == "0" for r in c)
          and {r["kind"] for r in c} == {"makespan_ns", "work_ns", "tet_ns"},
          "CSV parses, every difference 0", c[:2])


def check_measured(base, two):
    p = answer("compare", base, two, "--format", "json")
    j = json.loads(p.stdout)
    check(j["mode"] == "measured" and j["processors"] == 2 and not j["swapped"],
          "cpus=2: measured at N = 2", j["mode"])
    t = j["totals"]
    n = j["processors"]
    check(n * t["tn_ns"] == t["t1_ns"] + t["fn_ns"] + t["in_ns"] + t["rn_ns"],
          "N T_N = T_1 + F_N + I_N + R_N exactly", t)
    check(t["fn_ns"] == 0 and t["wn_ns"] == t["t1_ns"],
          "the same segments: no work inflation", t)
    check(t["rn_known"] and t["rn_ns"] > 0, "the recorder's time is known", t)
    g = j["gap"]
    check(g["gap_cpu_ns"] == g["inflation_cpu_ns"] + g["unforeseen_idle_cpu_ns"]
          + g["recorder_cpu_ns"] == n * (t["tn_ns"] - t["tn_predicted_ns"]),
          "the gap splits three ways exactly", g)
    check(all(f["inflation"] == 1 and f["extra_ns"] == 0 for f in j["functions"])
          and j["functions"], "inflation 1.0 for every function")
    check(all(x["inflation"] == 1 and x["extra_ns"] == 0 for x in j["threads"])
          and len(j["threads"]) == 9, "and for every thread", j["threads"][:2])
    s = j["speedups"]
    check(s["maximal"] == 2 and s["linear"] == 2 and s["sequential_baseline"] == "t1",
          "maximal speedup is N with T_s = T_1", s)
    # the second model: nothing inflated, so the ideal one at every P
    a = j["inflation_aware"]
    # (the copy's hand-offs are the one-CPU recording's: a wait of a few
    # us each, added where they lie on the critical path)
    check(a["residual_ratio"] == 1 and a["work_ns"] == t["t1_ns"] and a["unplaced_ns"] == 0
          and a["handoff_mean_ns"] == (2 * j["handoffs_n"]["total_ns"] + j["handoffs_n"]["count"])
          // (2 * j["handoffs_n"]["count"]),
          "the inflation-aware model without inflation is the ideal one", a)
    check([q["processors"] for q in a["points"]] == list(range(1, 17))
          and all(q["inflation_aware_ns"] == q["ideal_ns"] + q["handoff_ns"]
                  and q["handoff_ns"] == half_up(q["share"] * q["handoffs_on_path"]
                                                 * a["handoff_mean_ns"])
                  for q in a["points"])
          and a["points"][0]["handoff_ns"] == 0
          and a["tn_ns"] == t["tn_predicted_ns"] + a["points"][1]["handoff_ns"]
          and [q["extrapolated"] for q in a["points"]] == [False, False] + [True] * 14,
          "at every P of the default list, beyond N = 2 extrapolated", a["points"][:3])
    check(j["handoffs_n"] == j["handoffs_1"] and j["handoffs_n"]["count"] > 0,
          "the same recording: the same hand-offs", j["handoffs_n"])


    r = answer("compare", two, base, "--format", "json")
    k = json.loads(r.stdout)
    check(k["swapped"] and k["totals"] == t and k["base"]["trace"] == base,
          "given the other way round: exchanged, the same totals", k["totals"])
    check("compared the other way round" in r.stderr, "and said so", r.stderr)

    # --html: the page beside the usual answer, parsed as HTML; a path that
    # cannot be written is an error naming it
    page = os.path.join(os.path.dirname(two), "compare.html")
    h = answer("compare", base, two, "--html", page)
    check("T_1" in h.stdout and "wrote " + page in h.stderr, "--html: the table too", h.stderr)
    with open(page) as f:
        text = f.read()
    tags = collections.Counter()

    class Tags(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags[tag] += 1

    Tags().feed(text)
    check(tags["svg"] == 2 and tags["polyline"] == 3 and tags["circle"] >= 2
          and all(f["name"] in text for f in j["functions"][:5]),
          "--html: two charts, three curves, the marks at N, the functions", tags)
    bad = run("compare", base, two, "--html", "/nonexistent/dir/x.html")
    check(bad.returncode == 1 and "/nonexistent/dir/x.html" in bad.stderr,
          "--html to an unwritable path", bad.stderr)

    top = json.loads(answer("compare", base, two, "--format", "json", "--top", "2").stdout)
    check(len(top["functions"]) == 2 and len(top["threads"]) == 2,
          "--top 2: two functions and two threads")

    tab = answer("compare", base, two).stdout
    check("T_1 + F + I + R" in tab and "Reading:" in tab and "x1.000" in tab,
          "the table has the identity, the speedups and the reading", tab)
    c = list(csv.DictReader(io.StringIO(
        answer("compare", base, two, "--format", "csv").stdout)))
    tot = {r["name"]: int(r["value"]) for r in c if r["kind"] == "total"}
    check(tot.get("t1_ns") == t["t1_ns"] and tot.get("in_ns") == t["in_ns"],
          "CSV parses, with the same totals", tot)
    check(all(r["inflation"] == "1" for r in c if r["kind"] in ("function", "thread")),
          "CSV: inflation 1 on every row")


def check_errors(work, base, two):
    two_b = copy_sample(work, "two-b", cpus=2)
    r = run("compare", two, two_b)
    check(r.returncode == 1 and "both recordings ran on more than one CPU" in r.stderr
          and two in r.stderr, "both on 2 CPUs: exit 1, naming them", r.stderr)
    missing = os.path.join(work, "absent.data")
    r = run("compare", base, missing)
    check(r.returncode == 1 and "absent.data" in r.stderr
          and "no such trace directory" in r.stderr, "a missing directory: exit 1", r.stderr)
    empty = os.path.join(work, "empty")
    os.mkdir(empty)
    r = run("compare", empty, base)
    check(r.returncode == 1 and "trace=" + empty in r.stderr
          and "not a trace" in r.stderr, "a directory that is no trace: exit 1", r.stderr)
    r = run("compare", base, base, "-P", "0")
    check(r.returncode == 2 and "'0'" in r.stderr, "P=0: usage error naming it", r.stderr)
    r = run("compare", base)
    check(r.returncode == 2 and "BASE and OTHER" in r.stderr, "one trace: usage error",
          r.stderr)
    r = run("compare", "--help")
    check(r.returncode == 0 and "usage: ecp compare" in r.stdout, "--help")


def check_runs(base, two, again, same):
    """Several recordings on N CPUs: the median run's answer with each
    inflation's range; here two identical runs, so every range is one
    value.  A one-CPU recording among them is refused, naming it."""
    j = json.loads(answer("compare", base, two, again, "--format", "json").stdout)
    check(j["runs"] == 2 and j["tn_min_ns"] == j["tn_max_ns"] == j["totals"]["tn_ns"],
          "two runs, the same T_N", {k: j[k] for k in ("runs", "tn_min_ns", "tn_max_ns")})
    check(all(f["inflation_min"] == f["inflation_max"] == f["inflation"] == 1
              for f in j["functions"]) and j["functions"]
          and all(x["inflation_min"] == x["inflation_max"] == 1 for x in j["threads"]),
          "every range a single value", j["functions"][:1])
    c = list(csv.reader(io.StringIO(answer("compare", base, two, again,
                                           "--format", "csv").stdout)))
    spreads = [r for r in c if r[0] == "function_spread"]
    check(len(spreads) == len(j["functions"]) and all(r[5] == r[6] for r in spreads)
          and ["total", "runs", "", "", "", "", "2"] in c,
          "CSV: a range row per function, the run count", spreads[:1])
    t = answer("compare", base, two, again).stdout
    check("2 recordings on N CPUs" in t and "over the runs" in t, "the table says so")
    bad = run("compare", base, two, same)
    check(bad.returncode == 1 and "OTHER #2" in bad.stderr and "on one CPU" in bad.stderr,
          "a one-CPU OTHER among several is refused, named", bad.stderr)


def main():
    work = tempfile.mkdtemp(prefix="ecp-compare-")
    try:
        base = copy_sample(work, "base")
        same = copy_sample(work, "same")
        two = copy_sample(work, "two", cpus=2)
        check_before_after(base, same)
        check_measured(base, two)
        check_runs(base, two, copy_sample(work, "two-again", cpus=2), same)
        check_errors(work, base, two)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
