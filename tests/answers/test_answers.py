#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of `ecp report`, `scan`, `whatif`, `viz` and `export` on a
deterministic synthetic recording (make-sample.c documents the program and the
values expected by hand in the paper's model)."""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

ECP = os.environ["ECP"]
MAKE_SAMPLE = sys.argv[1]
MS = 1_000_000
SERIAL, PARALLEL = "0x1000", "0x2000"
failures = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def ecp(*args, expect=0):
    r = subprocess.run([ECP, *args], capture_output=True, text=True)
    if r.returncode != expect:
        print(f"  command: ecp {' '.join(args)}\n  exit {r.returncode}, want {expect}")
        print("  stdout: " + r.stdout[-2000:])
        print("  stderr: " + r.stderr[-2000:])
    check(r.returncode == expect, f"ecp {' '.join(args[:3])}... exits {expect}")
    return r


def near(a, b, tol=2):
    """Integer ns results may differ from the hand values by rounding only."""
    return abs(a - b) <= tol


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "sample.data")
    subprocess.run([MAKE_SAMPLE, trace], check=True)

    # --- report: contract keys, sort order, the values by hand --------------
    rep = {}
    for p in (1, 2, 3):
        r = ecp("report", trace, "-P", str(p), "--format", "json")
        rep[p] = json.loads(r.stdout)
    j = rep[2]
    for key in ("trace", "processors", "makespan_ns", "work_ns", "span_ns", "speedup",
                "idle_ns", "functions"):
        check(key in j, f"report JSON has '{key}'")
    for f in j["functions"]:
        for key in ("name", "calls", "tet_ns", "tetid_ns", "work_ns", "span_ns", "idle_ns"):
            check(key in f, f"report function has '{key}'")
        check(all(isinstance(f[k], int) for k in ("tet_ns", "tetid_ns", "work_ns", "span_ns",
                                                    "idle_ns")), "times are integer ns")
    tets = [f["tet_ns"] for f in j["functions"]]
    check(tets == sorted(tets, reverse=True), "functions sorted by tet_ns descending")
    check(j["processors"] == 2, "processors echoed")
    check(near(rep[1]["makespan_ns"], 83 * MS), f"T1 = 83 ms ({rep[1]['makespan_ns']})")
    check(near(rep[2]["makespan_ns"], 58 * MS), f"T2 = 58 ms ({rep[2]['makespan_ns']})")
    check(near(rep[3]["makespan_ns"], 53 * MS), f"T3 = 53 ms ({rep[3]['makespan_ns']})")
    check(near(j["work_ns"], 83 * MS) and near(j["span_ns"], 53 * MS), "work 83 ms, span 53 ms")
    # I_2 = 2*T2 - T1 = 33 ms of idle processor time
    check(near(j["idle_ns"], 33 * MS, 10), f"I_2 = 33 ms ({j['idle_ns']})")

    def tet(report, name):
        return next(f["tet_ns"] for f in report["functions"] if f["name"] == name)

    check(near(tet(rep[1], PARALLEL), 55 * MS), "TET(parallel_work) at P=1 is its work")
    check(near(tet(rep[2], PARALLEL), 30 * MS), "TET(parallel_work) at P=2 = 30 ms")
    check(near(tet(rep[3], PARALLEL), 25 * MS), "TET(parallel_work) at P=3 = 25 ms")
    for p in (1, 2, 3):
        check(near(tet(rep[p], SERIAL), 28 * MS), f"TET(serial_setup) at P={p} = 28 ms")
    check(rep[2]["functions"][0]["name"] == PARALLEL, "P=2 ranks parallel_work first")
    check(rep[3]["functions"][0]["name"] == SERIAL, "P=3 ranks serial_setup first")
    # TET at P = 1 equals the ordinary profile (work) for every function
    check(all(near(f["tet_ns"], f["work_ns"]) for f in rep[1]["functions"]),
          "TET at P=1 equals work for every function")

    # --- CSV and table -------------------------------------------------------
    r = ecp("report", trace, "-P", "2", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    check(rows and rows[0]["name"] == PARALLEL and near(int(rows[0]["tet_ns"]), 30 * MS),
          "CSV has a header row and the same first row")
    r = ecp("report", trace, "-P", "2")
    check("T2 58.0 ms" in r.stdout or "T2 58 ms" in r.stdout, "table header states T2")
    check(max(len(line) for line in r.stdout.splitlines()) <= 80, "table fits 80 columns")
    # The closing reading: what to optimise at P=2, its weight TET/work =
    # 30/55, and where the answer changes (the scan's crossover at 3).
    for col in ("TET ", "TETID ", "calls ", "%T_P ", "idle "):
        check("\n  " + col in r.stdout, f"the table explains the column {col.strip()}")
    reading = r.stdout[r.stdout.find("Reading at P = 2:"):]
    check(reading.startswith("Reading at P = 2:"), "the report ends with a reading at P")
    check(f"Optimise {PARALLEL}: the largest TET at 2 processors" in reading,
          "the reading names the function to optimise at P=2")
    check("Its weight is 0.55: 1 ms saved in its own code saves 0.55 ms" in reading,
          "the reading gives its weight (30 ms TET / 55 ms work)")
    check(f"at P = 1-2, optimise {PARALLEL}" in reading and
          f"at P = 3-16, optimise {SERIAL}" in reading,
          "the reading says where the answer changes with P (crossover at 3)")
    r3 = ecp("report", trace, "-P", "2", "--sort", "calls")
    check(f"Optimise {PARALLEL}:" in r3.stdout, "the reading follows TET whatever --sort")
    r = ecp("report", trace, "-P", "2", "--sort", "work", "--format", "json")
    works = [f["work_ns"] for f in json.loads(r.stdout)["functions"]]
    check(works == sorted(works, reverse=True), "--sort work orders by work")

    # --- scan: arrays aligned, crossover at 3 --------------------------------
    r = ecp("scan", trace, "-P", "1-4", "--format", "json")
    s = json.loads(r.stdout)
    for key in ("trace", "processors", "makespan_ns", "work_ns", "span_ns", "functions",
                "crossovers"):
        check(key in s, f"scan JSON has '{key}'")
    check(s["processors"] == [1, 2, 3, 4], "scan processors")
    check(all(near(a, b * MS) for a, b in zip(s["makespan_ns"], [83, 58, 53, 53])),
          f"scan makespans 83/58/53/53 ms ({s['makespan_ns']})")
    for f in s["functions"]:
        check(all(len(f[k]) == 4 for k in ("calls", "tet_ns", "tetid_ns")),
              f"scan arrays of {f['name']} aligned with processors")
    check(s["crossovers"] == [{"processors": 3, "before": PARALLEL, "after": SERIAL}],
          f"one crossover at P=3 ({s['crossovers']})")
    for p_i, p in enumerate(s["processors"]):
        r2 = json.loads(ecp("report", trace, "-P", str(p), "--format", "json").stdout)
        by_name = {f["name"]: f for f in r2["functions"]}
        check(all(by_name[f["name"]]["tet_ns"] == f["tet_ns"][p_i] for f in s["functions"]),
              f"scan and report agree at P={p}")
    r = ecp("scan", trace, "-P", "1-4")
    check("from 3 processors on, 0x1000 matters more than 0x2000." in r.stdout,
          "the crossover is written as a sentence")

    # --- the second scheduler model: labelled, never the default -----------
    check("makespan_linux_ns" not in s and "sched_model" not in json.loads(
        ecp("report", trace, "-P", "2", "--format", "json").stdout), "ideal model by default")
    r = ecp("scan", trace, "-P", "1-3", "--sched", "linux", "--format", "json")
    check("Linux-like model's T_1" not in r.stderr,
          "no word of switches counted twice where the model's T1 is the work")
    sl = json.loads(r.stdout)
    lin = sl.get("makespan_linux_ns", [])
    check(len(lin) == 3, "scan --sched linux adds an aligned makespan_linux_ns")
    check(len(lin) == 3 and abs(lin[0] - 83 * MS) < 0.01 * 83 * MS,
          f"Linux model T1 within 1% of the work ({lin[:1]})")
    check(len(lin) == 3 and lin[2] >= 53 * MS, "Linux model respects the span law")
    check(sl["makespan_ns"] == s["makespan_ns"][:3], "ideal T_P unchanged beside it")
    r = ecp("whatif", trace, "--faster", "0x2000=10", "-P", "2", "--sched", "linux",
            "--format", "json")
    check("Linux-like model's T_1" not in r.stderr,
          "whatif --sched linux says nothing of switches either")
    wl = json.loads(r.stdout)
    check(wl.get("sched_model") == "linux", "whatif labels the Linux model")
    ecp("scan", trace, "-P", "2", "--sched", "cfs", expect=2)

    # --- whatif: against the simulator and against TET x PCT -----------------
    r = ecp("whatif", trace, "--faster", "0x2000=10%", "-P", "1-3", "--format", "json")
    w = json.loads(r.stdout)
    for key in ("trace", "processors", "baseline_ns", "whatif_ns", "changes"):
        check(key in w, f"whatif JSON has '{key}'")
    check(w["changes"] == [{"name": PARALLEL, "found": PARALLEL, "faster_pct": 10,
                            "scope": "inclusive"}],
          "changes echoed, with what each name found and the default scope")
    check(all(near(a, b * MS) for a, b in zip(w["baseline_ns"], [83, 58, 53])),
          "whatif baseline equals the report's T_P")
    # by hand: workers 9, 18, 22.5 ms -> T1 77.5, T2 55, T3 50.5
    check(all(near(a, b) for a, b in zip(w["whatif_ns"], [77_500_000, 55_000_000, 50_500_000])),
          f"whatif run times by hand ({w['whatif_ns']})")
    for i, p in enumerate(w["processors"]):
        gain = w["baseline_ns"][i] - w["whatif_ns"][i]
        check(near(gain, tet(rep[p], PARALLEL) // 10, 5),
              f"small what-if gain = TET x PCT at P={p} ({gain})")
    r = ecp("whatif", trace, "--faster", "0x1000=20", "--faster", "0x2000=20", "-P", "2",
            "--format", "csv")
    check(r.stdout.startswith("processors,baseline_ns,whatif_ns,gain_ns"), "whatif CSV header")

    # --- golden outputs: the exact text of each format ----------------------
    golden_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
    update = os.environ.get("ECP_UPDATE_GOLDEN") == "1"
    for gname, args in [
        ("report-P2.txt", ["report", trace, "-P", "2"]),
        ("report-P2.csv", ["report", trace, "-P", "2", "--format", "csv"]),
        ("report-P2.json", ["report", trace, "-P", "2", "--format", "json"]),
        ("scan-P1-4.txt", ["scan", trace, "-P", "1-4"]),
        ("scan-P1-4.json", ["scan", trace, "-P", "1-4", "--format", "json"]),
        ("whatif-P1-3.txt", ["whatif", trace, "--faster", "0x2000=10%", "-P", "1-3"]),
        ("whatif-P1-3.json", ["whatif", trace, "--faster", "0x2000=10%", "-P", "1-3",
                              "--format", "json"]),
        # every command and format (issue 38: the layout moves must change
        # none of them)
        ("info.txt", ["info", trace]),
        ("info.json", ["info", trace, "--format", "json"]),
        ("scan-P1-4.csv", ["scan", trace, "-P", "1-4", "--format", "csv"]),
        ("whatif-P1-3.csv", ["whatif", trace, "--faster", "0x2000=10%", "-P", "1-3",
                             "--format", "csv"]),
        ("export-P2.csv", ["export", trace, "-P", "2", "--format", "csv", "-o", "-"]),
        ("export-P2.folded", ["export", trace, "-P", "2", "--format", "folded", "-o", "-"]),
        ("export-P2.perfetto.json", ["export", trace, "-P", "2", "--format", "perfetto",
                                     "-o", "-"]),
        ("compare-self-P1-3.txt", ["compare", trace, trace, "-P", "1-3"]),
        ("compare-self-P1-3.json", ["compare", trace, trace, "-P", "1-3", "--format", "json"]),
        ("compare-self-P1-3.csv", ["compare", trace, trace, "-P", "1-3", "--format", "csv"]),
        ("viz-P2-range1-4.html", ["viz", trace, "-P", "2", "--range", "1-4",
                                  "--measured", "1=0.000002,2=0.0000015", "-o", "-"]),
        ("compare-self-P1-3.html", ["compare", trace, trace, "-P", "1-3", "--html", "-"]),
    ]:
        got = ecp(*args).stdout.replace(trace, "SAMPLE")
        path = os.path.join(golden_dir, gname)
        if update:
            os.makedirs(golden_dir, exist_ok=True)
            open(path, "w").write(got)
        want = open(path).read() if os.path.exists(path) else None
        check(got == want, f"golden {gname}")
        if got != want and want is not None:
            import difflib
            print("".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                               "want", "got")))

    # --- the consistency check (issue 31) --------------------------------------
    # Every JSON answer carries it; the synthetic recording has no program
    # CPU time in its meta, so the check is skipped and says so.
    answers = {
        "info": ["info", trace, "--format", "json"],
        "report": ["report", trace, "-P", "2", "--format", "json"],
        "scan": ["scan", trace, "-P", "1-2", "--format", "json"],
        "whatif": ["whatif", trace, "--faster", "0x2000=10", "-P", "1-2", "--format", "json"],
    }
    # ... and the model's warnings, the same list in every answer
    warnings = {name: json.loads(ecp(*args).stdout).get("warnings")
                for name, args in answers.items()}
    check(all(isinstance(w, list) and w == warnings["info"] for w in warnings.values()),
          f"every JSON answer carries the model's warnings: {warnings}")
    for name, args in answers.items():
        c = json.loads(ecp(*args).stdout).get("consistency")
        check(c is not None and c["status"] == "unknown" and c["checked"] is False,
              f"{name} JSON has consistency, unknown without program_cpu_ns ({c})")
        if c:
            for key in ("work_ns", "program_cpu_ns", "overhead_ns", "outside_cpu_ns",
                        "outside_threads", "gap_ns", "gap_pct", "threads"):
                check(key in c, f"{name} consistency has '{key}'")
    r = ecp("report", trace, "-P", "2")
    check("not checked" in r.stderr, "the table says the check was skipped")
    # The same recording with the program's CPU time in its meta: within the
    # bound (1.2 % over the work), a warning (17 %), fatal (work 8 %).
    import shutil
    for cpu_ns, status, code in ((84_000_000, "ok", 0), (100_000_000, "warning", 0),
                                 (1_000_000_000, "fatal", 1)):
        t = os.path.join(tmp, f"cpu{cpu_ns}.data")
        shutil.copytree(trace, t)
        with open(os.path.join(t, "ecp-record.meta"), "a") as meta:
            meta.write(f"program_cpu_ns={cpu_ns}\n")
        r = ecp("report", t, "-P", "2", "--format", "json", expect=code)
        if code == 0:
            c = json.loads(r.stdout)["consistency"]
            check(c["status"] == status and c["checked"] and c["program_cpu_ns"] == cpu_ns
                  and c["gap_ns"] == 83 * MS - cpu_ns,
                  f"program CPU {cpu_ns} ns: {status} ({c})")
        r = ecp("info", t, expect=code)
        if status == "warning":
            check("warning: the answers may be off: the model's work 83 ms is 17 ms below "
                  "the program's CPU time 100 ms" in r.stderr, f"the warning names the figures "
                  f"({r.stderr.strip()})")
            # the HTML report says what stderr says, figures and all
            f = os.path.join(tmp, "warned.html")
            ecp("viz", t, "-P", "2", "-o", f)
            body = open(f).read()
            check('class="warnings"' in body and "the answers may be off: the model&#39;s "
                  "work 83 ms is 17 ms below the program&#39;s CPU time 100 ms" in body,
                  "the HTML report shows the consistency check's warning")
        if status == "fatal":
            check(t in r.stderr and "83 ms" in r.stderr and "1.000 s" in r.stderr,
                  f"fatal names the trace and the figures ({r.stderr.strip()})")
            for cmd in (["report", t, "-P", "2"], ["scan", t, "-P", "1-2"],
                        ["whatif", t, "--faster", "0x2000=10", "-P", "1"],
                        ["viz", t, "-P", "2", "-o", os.path.join(tmp, "f.html")],
                        ["export", t, "-P", "2", "--format", "folded", "-o", "-"]):
                ecp(*cmd, expect=1)
    # The committed samples (traces/samples) are real recordings with the
    # program's CPU time: their models hold it within the bound, except
    # quicksort's (4.4 %: the main thread's first stay on the CPU, which no
    # switch record of that recording bounds -- see simulator/model/consistency.h).
    samples = os.path.join(os.environ.get("ECP_SOURCE_ROOT", "."), "traces", "samples")
    for name in ("fig1", "fig4", "watchdog", "quicksort", "nlargest", "billing", "pipeline"):
        src = os.path.join(samples, name)
        if not os.path.isdir(src):
            continue
        t = os.path.join(tmp, "sample-" + name)
        shutil.copytree(src, t, ignore=shutil.ignore_patterns("ecp-model*.cache*"))
        c = json.loads(ecp("info", t, "--format", "json", "--allow-inconsistent").stdout)[
            "consistency"]
        want = ("ok", "warning") if name == "quicksort" else ("ok",)
        check(c["checked"] and c["status"] in want and abs(c["gap_pct"]) < 5,
              f"sample {name}: {c['status']}, gap {c['gap_pct']:.1f}%")
        # and every committed sample's answers, byte for byte (issue 38: a
        # change that should print nothing new leaves them identical)
        for gname, args in [
            (f"samples/{name}-info.json", ["info", t, "--format", "json"]),
            (f"samples/{name}-report-P4.txt", ["report", t, "-P", "4"]),
            (f"samples/{name}-scan-P1-4.csv", ["scan", t, "-P", "1-4", "--format", "csv"]),
        ]:
            got = ecp(*args, "--allow-inconsistent").stdout.replace(t, "SAMPLE")
            path = os.path.join(golden_dir, gname)
            if update:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").write(got)
            want_text = open(path).read() if os.path.exists(path) else None
            check(got == want_text, f"golden {gname}")

    # --- errors --------------------------------------------------------------
    r = ecp("whatif", trace, "--faster", "0x2001=10", "-P", "2", expect=1)
    check("0x2000" in r.stderr, "unknown function names near matches")
    ecp("report", trace, "-P", "0", expect=2)
    ecp("scan", trace, "-P", "4-1", expect=2)
    ecp("scan", trace, "-P", "1,,2", expect=2)
    ecp("whatif", trace, "-P", "2", expect=2)
    ecp("whatif", trace, "--faster", "x=150", expect=2)
    ecp("report", os.path.join(tmp, "missing.data"), expect=1)

    # --- viz and export -------------------------------------------------------
    html = os.path.join(tmp, "r.html")
    ecp("viz", trace, "-P", "2", "--range", "1-4", "-o", html)
    body = open(html, encoding="utf-8").read()
    check(body.lstrip().lower().startswith("<!doctype html"), "viz writes an HTML document")
    import re
    loads = re.findall(r'(?:src|href)\s*=\s*["\']?\s*(?:https?:)?//', body, re.I)
    loads += re.findall(r'url\(\s*["\']?\s*(?:https?:)?//', body, re.I)
    loads += re.findall(r'@import', body, re.I)
    check(not loads, f"the report loads nothing from the network ({loads[:3]})")
    pf = os.path.join(tmp, "p.json")
    ecp("export", trace, "-P", "2", "--format", "perfetto", "-o", pf)
    events = json.load(open(pf))["traceEvents"]
    slices = [e for e in events if e.get("ph") == "X"]
    check(len(slices) == 4, f"a slice per call: 4 ({len(slices)})")
    check(any(e.get("ph") == "s" for e in events), "dependency flows exported")
    folded = ecp("export", trace, "-P", "2", "--format", "folded", "-o", "-").stdout
    total = sum(int(line.rsplit(" ", 1)[1]) for line in folded.splitlines())
    check(near(total, sum(f["tet_ns"] for f in rep[2]["functions"]), 10),
          "folded stacks sum to the total TET")
    seg = ecp("export", trace, "-P", "2", "--format", "csv", "-o", "-").stdout
    check(len(list(csv.DictReader(io.StringIO(seg)))) > 4, "segment CSV lists the segments")
    # output is not written through a planted symlink
    victim = os.path.join(tmp, "victim")
    open(victim, "w").write("keep")
    link = os.path.join(tmp, "out.json")
    os.symlink(victim, link)
    ecp("export", trace, "-P", "2", "--format", "perfetto", "-o", link)
    check(open(victim).read() == "keep", "a symlink at the output path is not followed")

print("failures: %d" % len(failures))
sys.exit(1 if failures else 0)
