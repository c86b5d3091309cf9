#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Prediction-vs-measurement study of the example programs (issue 9).

For each program of traces/:
  1. record it once on one core:   ecp record -f -o WORK/NAME.data -- PROGRAM
  2. predict T_P, P = 1..16:       ecp scan  TRACE -P 1-16 --format json
     and each candidate 20% faster: ecp whatif TRACE --faster F=20% --self -P 1-16
  3. measure real runs for P = 1..nproc, pinned with taskset -c 0..P-1, in
     REPS rounds of the baseline and, for every candidate function F, the
     program with ECP_EXAMPLE_FASTER=F=PCT (traces/README.md); T_P is the
     median and the best wall time, a gain the median of the per-round
     differences and the difference of the best runs
  4. print predicted vs measured T_P with % errors, and for every P the
     ranking of the candidates by ECP (TET from scan, and whatif gain) against
     the ranking by measured gain.

A command that fails is reported and its part skipped; measurements still
run.  --json and --markdown save the results (docs/VALIDATION.md is written
from the markdown).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CANDIDATES = {
    "fig1": ["a", "b", "c", "d"],
    "fig4": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
    "watchdog": ["Compute", "Watchdog"],
    "quicksort": ["ParallelQuickSort", "RecursiveQuickSort"],
    "nlargest": ["f", "g"],
    "billing": ["Reader", "Sorter", "Writer"],
    "pipeline": ["produce", "transform", "consume"],
    "omp_quicksort": ["ParallelQuickSort", "RecursiveQuickSort"],
    "omp_dynamic": ["Item"],
    "omp_stencil": ["Row"],
    # OpenMP tasks (issue 37): recursive tasks, depend clauses, a taskloop
    "omp_fib": ["Leaf", "Fib"],
    "omp_wavefront": ["Block"],
    "omp_taskloop": ["Item"],
    # the same, built with clang and LLVM's libomp (issue 37; traces/meson.build)
    "omp_quicksort-clang": ["ParallelQuickSort", "RecursiveQuickSort"],
    "omp_dynamic-clang": ["Item"],
    "omp_stencil-clang": ["Row"],
    "omp_fib-clang": ["Leaf", "Fib"],
    "omp_wavefront-clang": ["Block"],
    "omp_taskloop-clang": ["Item"],
}


def run_ecp(ecp, args):
    """Run ecp; return parsed JSON, or raise RuntimeError with its message."""
    proc = subprocess.run([ecp] + args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("ecp %s failed (exit %d): %s" %
                           (" ".join(args), proc.returncode, proc.stderr.strip()))
    return json.loads(proc.stdout)


AS_CPUS = 0  # --as-cpus of the recordings, and OMP_NUM_THREADS of the runs (0: neither)


def record(ecp, program, args, trace):
    as_cpus = ["--as-cpus", str(AS_CPUS)] if AS_CPUS else []
    proc = subprocess.run([ecp, "record", "-q", "-f", "-o", trace] + as_cpus + ["--", program] +
                          args, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("ecp record %s failed (exit %d): %s" %
                           (program, proc.returncode, proc.stderr.strip()))


NICE = 0  # niceness of the measured runs (--nice)


def raise_priority():
    """In the child (a new session, so a new scheduler autogroup): run at
    niceness NICE, the autogroup too, so that other work on a shared machine
    disturbs the measured run less (CFS weight ~88x at -20).  With autogroups
    enabled a process's own niceness only counts inside its session, hence
    both.  The program's threads still share their CPUs by CFS among
    themselves, which is what is measured."""
    if not NICE:
        return
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(NICE))
    except OSError:
        pass  # no autogroups, or not permitted
    try:
        os.setpriority(os.PRIO_PROCESS, 0, NICE)
    except OSError:
        pass  # not permitted: measured at the inherited niceness


def run_once(cmd, env):
    """One run: (wall s, CPU s of the child: user + sys)."""
    with tempfile.TemporaryFile() as errf:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=errf,
                                start_new_session=NICE != 0, preexec_fn=raise_priority)
        # wait4, not proc.wait(): it also gives this child's CPU time
        _, status, usage = os.wait4(proc.pid, 0)
        t1 = time.perf_counter()
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errf.seek(0)
            err = errf.read().decode(errors="replace")
            raise RuntimeError("%s exited %d: %s" % (" ".join(cmd), proc.returncode,
                                                   err.strip()))
    return t1 - t0, usage.ru_utime + usage.ru_stime


def can_raise_priority():
    try:
        cur = os.getpriority(os.PRIO_PROCESS, 0)
        if NICE >= cur:
            return True
        pid = os.fork()
        if pid == 0:
            try:
                os.setpriority(os.PRIO_PROCESS, 0, NICE)
                os._exit(0)
            except OSError:
                os._exit(1)
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    except OSError:
        return False


def steal_s(cpus):
    """What the hypervisor has taken from CPUs 0..cpus-1 so far (the steal
    column of /proc/stat, in seconds to a clock tick; None where unreadable).
    A run's wall time holds it, which the recording's scaled times do not."""
    try:
        with open("/proc/stat") as f:
            lines = [l.split() for l in f if l.startswith("cpu") and l[3:4].isdigit()]
        per = {int(l[0][3:]): int(l[8]) for l in lines if len(l) > 8}
        hz = os.sysconf("SC_CLK_TCK")
        return sum(per[c] for c in range(cpus)) / hz
    except (OSError, ValueError, KeyError, IndexError):
        return None


def measure_p(program, args, cpus, reps, variants):
    """Runs pinned to the first CPUS cpus, REPS rounds; each round runs the
    baseline and every variant (a function made faster) back to back, so a
    burst of load from elsewhere hits a whole round rather than one variant.
    Returns {variant: [(wall, cpu, steal), ...]} with variant None =
    baseline (steal: the hypervisor's on the run's CPUs meanwhile, or
    None)."""
    cmd = ["taskset", "-c", "0" if cpus == 1 else "0-%d" % (cpus - 1), program] + args
    base_env = dict(os.environ)
    base_env.pop("ECP_EXAMPLE_FASTER", None)
    if AS_CPUS:
        # the team the recording saw (--as-cpus), on every CPU count, waiting
        # as it waited there: more threads than CPUs, a spinning runtime
        # (libomp spins 200 ms in a barrier by default) measures its spin
        base_env["OMP_NUM_THREADS"] = str(AS_CPUS)
        base_env.setdefault("OMP_WAIT_POLICY", "passive")
    runs = {v: [] for v in [None] + variants}
    for _ in range(reps):
        for v in runs:
            env = dict(base_env)
            if v is not None:
                env["ECP_EXAMPLE_FASTER"] = v
            s0 = steal_s(cpus)
            wall, cpu = run_once(cmd, env)
            s1 = steal_s(cpus)
            runs[v].append((wall, cpu, s1 - s0 if s0 is not None and s1 is not None
                            else None))
    return runs


def pct(a, b):
    return 100.0 * (a - b) / b if b else float("nan")


def ranking(values):
    """Names ordered by value, largest first (None values last)."""
    return sorted(values, key=lambda k: (values[k] is None, -(values[k] or 0.0)))


def fmt(x, spec="%.3f"):
    return "-" if x is None else spec % x


def study(opts, name, out):
    program = os.path.join(opts.build, "traces", name)
    args = ["--scale", str(opts.scale), "--quiet"]
    cands = CANDIDATES[name]
    res = {"program": name, "scale": opts.scale, "candidates": cands, "pct": opts.pct,
           "notes": [], "predicted": {}, "measured": {}}
    trace = os.path.join(opts.work, name + ".data")
    plist = "1-%d" % opts.max_p

    # 1-2: record and predict
    try:
        record(opts.ecp, program, args, trace)
        res["trace"] = trace
    except (RuntimeError, OSError) as e:
        res["notes"].append("record: %s" % e)
        trace = None
    if trace:
        try:
            scan = run_ecp(opts.ecp, ["scan", trace, "-P", plist, "--top", "100",
                                      "--format", "json"] +
                           (["--sched", "linux"] if opts.sched_linux else []))
            procs = scan["processors"]
            res["predicted"]["processors"] = procs
            res["predicted"]["makespan_ns"] = scan["makespan_ns"]
            res["predicted"]["work_ns"] = scan.get("work_ns")
            res["predicted"]["span_ns"] = scan.get("span_ns")
            res["predicted"]["crossovers"] = scan.get("crossovers", [])
            if "makespan_linux_ns" in scan:
                res["predicted"]["linux_ns"] = scan["makespan_linux_ns"]
            if opts.task_oracle:
                # the oracle of tests/recorder/task_oracle.py on the same
                # recording: its tasks dealt by the runtime's rules
                sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                "..", "..", "tests", "recorder"))
                from task_oracle import Program
                prog = Program(trace)
                res["predicted"]["oracle_ns"] = [prog.makespan(p) for p in procs]
            tet = {}
            for fn in scan["functions"]:
                if fn["name"] in cands:
                    tet[fn["name"]] = fn["tet_ns"]
            res["predicted"]["tet_ns"] = tet
        except (RuntimeError, OSError, KeyError, ValueError) as e:
            res["notes"].append("scan: %s" % e)
        try:
            gains = {}
            for f in cands:
                # --self: ECP_EXAMPLE_FASTER makes a function's own loop
                # cheaper, not its callees (traces/README.md).
                w = run_ecp(opts.ecp, ["whatif", trace, "--faster", "%s=%d%%" % (f, opts.pct),
                                       "--self", "-P", plist, "--format", "json"])
                gains[f] = [b - a for b, a in zip(w["baseline_ns"], w["whatif_ns"])]
                res["predicted"].setdefault("baseline_ns", w["baseline_ns"])
                res["predicted"].setdefault("processors", w["processors"])
            res["predicted"]["whatif_gain_ns"] = gains
        except (RuntimeError, OSError, KeyError, ValueError) as e:
            res["notes"].append("whatif: %s" % e)

    # 3: measure (or reuse the measurements of an earlier run)
    old = opts.reuse.get(name)
    if old and old["scale"] == opts.scale and old.get("pct", 20) == opts.pct and \
            old["candidates"] == cands:
        res["measured"] = old["measured"]
        res["measured_at"] = old.get("measured_at")
        out.append(res)
        report(res, sys.stdout)
        return res
    res["measured_at"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    res["loadavg_before"] = os.getloadavg()
    res["nice"] = NICE if can_raise_priority() else 0
    meas = res["measured"]
    meas["processors"] = list(range(1, opts.measure_p + 1))
    meas["T"], meas["T_min"], meas["cpu"], meas["wall_runs"] = [], [], [], []
    meas["gain"] = {f: [] for f in cands}
    meas["gain_min"] = {f: [] for f in cands}
    for p in meas["processors"]:
        knob = {f: "%s=%d" % (f, opts.pct) for f in cands}
        runs = measure_p(program, args, p, opts.reps, list(knob.values()))
        base = runs[None]
        walls = [r[0] for r in base]
        meas["T"].append(statistics.median(walls))
        meas["T_min"].append(min(walls))
        meas["cpu"].append(statistics.median(r[1] for r in base))
        meas["wall_runs"].append(walls)
        # the runs the hypervisor took nothing from (to a tick), whose wall
        # time is the program's own
        meas.setdefault("steal_runs", []).append([r[2] for r in base])
        clean = [r[0] for r in base if r[2] == 0]
        meas.setdefault("T_no_steal", []).append(statistics.median(clean) if clean
                                                 else None)
        for f in cands:
            var = runs[knob[f]]
            # gain: median of the per-round differences (paired runs), and
            # the difference of the best runs (least disturbed by other load)
            meas["gain"][f].append(statistics.median(b[0] - v[0] for b, v in zip(base, var)))
            meas["gain_min"][f].append(min(walls) - min(r[0] for r in var))
    res["loadavg_after"] = os.getloadavg()
    out.append(res)
    report(res, sys.stdout)
    return res


def report(res, w):
    name = res["program"]
    pred, meas = res["predicted"], res["measured"]
    w.write("\n== %s (scale %g) ==\n" % (name, res["scale"]))
    for n in res["notes"]:
        w.write("  note: %s\n" % n)
    procs = pred.get("processors") or []
    if pred.get("oracle_ns") and pred.get("makespan_ns"):
        w.write("  against the oracle on the same recording: %s\n" % ", ".join(
            "P=%d %.3f/%.3f s (%+.1f%%)" % (p, t / 1e9, o / 1e9, pct(t / 1e9, o / 1e9))
            for p, t, o in zip(procs, pred["makespan_ns"], pred["oracle_ns"])))
    T = pred.get("makespan_ns") or pred.get("baseline_ns")
    lx = pred.get("linux_ns")
    w.write("  %3s %11s %11s %8s %11s %8s %9s%s\n" % (
        "P", "predicted s", "median s", "error %", "best s", "error %", "cpu s",
        "  linux s  error %  error % (best)" if lx else ""))
    allp = sorted(set(procs) | set(meas["processors"]))
    for p in allp:
        tp = T[procs.index(p)] / 1e9 if T and p in procs else None
        im = meas["processors"].index(p) if p in meas["processors"] else None
        tm = meas["T"][im] if im is not None else None
        tb = meas["T_min"][im] if im is not None else None
        cpu = meas["cpu"][im] if im is not None else None
        err = pct(tp, tm) if tp is not None and tm is not None else None
        errb = pct(tp, tb) if tp is not None and tb is not None else None
        tl = lx[procs.index(p)] / 1e9 if lx and p in procs else None
        linux = ""
        if lx:
            linux = "  %7s  %7s  %14s" % (
                fmt(tl), fmt(pct(tl, tm) if tl is not None and tm is not None else None, "%+.1f"),
                fmt(pct(tl, tb) if tl is not None and tb is not None else None, "%+.1f"))
        w.write("  %3d %11s %11s %8s %11s %8s %9s%s\n" % (
            p, fmt(tp), fmt(tm), fmt(err, "%+.1f"), fmt(tb), fmt(errb, "%+.1f"), fmt(cpu),
            linux))
    if meas.get("T_no_steal"):
        parts = []
        for i, p in enumerate(meas["processors"]):
            tn, st = meas["T_no_steal"][i], meas["steal_runs"][i]
            tp = T[procs.index(p)] / 1e9 if T and p in procs else None
            parts.append("P=%d %s s (%d of %d runs, error %s; steal in the others %s s)" % (
                p, fmt(tn), sum(1 for x in st if x == 0), len(st),
                fmt(pct(tp, tn) if tp is not None and tn is not None else None, "%+.1f%%"),
                ", ".join("%.2f" % x for x in st if x)))
        w.write("  median of the runs the hypervisor took nothing from: %s\n"
                % "; ".join(parts))
    for p in meas["processors"]:
        cv = candidate_values(res, p)
        w.write("  P=%d  %-20s %9s %12s %13s %13s\n" % (
            p, "function", "TET s", "pred gain s", "gain s (med)", "gain s (best)"))
        for f in ranking({f: v[3] for f, v in cv.items()}):
            t, g, m, b = cv[f]
            w.write("       %-20s %9s %12s %13s %13s\n" % (f, fmt(t), fmt(g), fmt(m), fmt(b)))
        w.write("       ranking by TET: %s | by whatif: %s | measured (best runs): %s\n" % tuple(
            " > ".join(ranking({f: v[k] for f, v in cv.items()})) for k in (0, 1, 3)))


def pred_at(res, key, p):
    pred = res["predicted"]
    procs = pred.get("processors") or []
    vals = pred.get(key)
    if not vals or p not in procs:
        return None
    return vals[procs.index(p)]


def candidate_values(res, p):
    """Per candidate at P: TET (s), whatif gain (s), measured gain (s) as the
    median of paired differences and as the difference of the best runs."""
    pred, meas = res["predicted"], res["measured"]
    procs = pred.get("processors") or []
    ip = procs.index(p) if p in procs else None
    im = meas["processors"].index(p) if p in meas["processors"] else None
    tet, wg = pred.get("tet_ns", {}), pred.get("whatif_gain_ns", {})
    out = {}
    for f in res["candidates"]:
        out[f] = (tet[f][ip] / 1e9 if f in tet and ip is not None else None,
                  wg[f][ip] / 1e9 if f in wg and ip is not None else None,
                  meas["gain"][f][im] if im is not None else None,
                  meas["gain_min"][f][im] if im is not None else None)
    return out


def top_of(values, tie=0.03):
    """The largest, with every other within TIE (relative) of it: "b = d"."""
    vals = {k: v for k, v in values.items() if v is not None}
    if not vals:
        return None
    best = max(vals.values())
    return " = ".join(k for k in ranking(vals) if vals[k] >= best - abs(best) * tie)


def markdown(results, w):
    """The tables of docs/VALIDATION.md."""
    w.write("| program | P | predicted T_P (s) | measured median (s) | error | best run (s) |"
            " error | top by TET | top by whatif | top measured (median of pairs) |"
            " top measured (best runs) |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n")
    for res in results:
        for i, p in enumerate(res["measured"]["processors"]):
            tp = pred_at(res, "makespan_ns", p) or pred_at(res, "baseline_ns", p)
            tm = res["measured"]["T"][i]
            tb = res["measured"]["T_min"][i]
            cv = candidate_values(res, p)
            w.write("| %s | %d | %s | %.3f | %s | %.3f | %s | %s | %s | %s | %s |\n" % (
                res["program"], p, fmt(tp / 1e9 if tp else None), tm,
                fmt(pct(tp / 1e9, tm) if tp else None, "%+.1f%%"), tb,
                fmt(pct(tp / 1e9, tb) if tp else None, "%+.1f%%"),
                top_of({f: v[0] for f, v in cv.items()}) or "-",
                top_of({f: v[1] for f, v in cv.items()}) or "-",
                top_of({f: v[2] for f, v in cv.items()}),
                top_of({f: v[3] for f, v in cv.items()})))
    for res in results:
        w.write("\n### %s\n\n" % res["program"])
        for n in res["notes"]:
            w.write("- note: %s\n" % n)
        w.write("\n")
        w.write("| P | function | TET (s) | predicted gain, %d%% faster (s) |"
                " measured gain, median of pairs (s) | measured gain, best runs (s) |\n"
                "|---|---|---|---|---|---|\n" % res.get("pct", 20))
        for p in res["measured"]["processors"]:
            cv = candidate_values(res, p)
            for f in ranking({f: v[3] for f, v in cv.items()}):
                t, g, m, b = cv[f]
                w.write("| %d | `%s` | %s | %s | %s | %s |\n" % (p, f, fmt(t), fmt(g), fmt(m),
                                                              fmt(b)))
        pred = res["predicted"]
        if pred.get("processors") and pred.get("tet_ns"):
            w.write("\nPredicted TET (s) for P = %d..%d:\n\n| function | %s |\n|---|%s\n" % (
                pred["processors"][0], pred["processors"][-1],
                " | ".join(str(p) for p in pred["processors"]),
                "---|" * len(pred["processors"])))
            for f, vals in pred["tet_ns"].items():
                w.write("| `%s` | %s |\n" % (f, " | ".join("%.3f" % (v / 1e9) for v in vals)))
            if pred.get("makespan_ns"):
                w.write("| T_P | %s |\n" % " | ".join("%.3f" % (v / 1e9)
                                                      for v in pred["makespan_ns"]))
            for c in pred.get("crossovers", []):
                w.write("\nCrossover at P = %s: %s -> %s\n" % (c["processors"], c["before"],
                                                             c["after"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build", help="meson build directory (default build)")
    ap.add_argument("--ecp", help="ecp binary (default BUILD/cli/ecp)")
    ap.add_argument("--work", default="/tmp/ecp-validate", help="where traces are recorded")
    ap.add_argument("--programs", default=",".join(CANDIDATES),
                    help="comma-separated programs (default all)")
    ap.add_argument("--scale", type=float, default=1.0, help="--scale passed to the programs")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per measurement (median)")
    ap.add_argument("--max-p", type=int, default=16, help="predict for P = 1..N (default 16)")
    ap.add_argument("--measure-p", type=int, default=len(os.sched_getaffinity(0)),
                    help="measure P = 1..N (default: CPUs available)")
    ap.add_argument("--pct", type=int, default=20, help="speed-up of each candidate, %%")
    ap.add_argument("--nice", type=int, default=-20,
                    help="niceness of the measured runs (default -20 where permitted, so a"
                    " shared machine's other work disturbs them less; 0 to disable)")
    ap.add_argument("--as-cpus", type=int, default=0,
                    help="record with --as-cpus N and run the measured programs with"
                    " OMP_NUM_THREADS=N (the recorded team on every CPU count) and"
                    " OMP_WAIT_POLICY=passive (as ecp record runs them)")
    ap.add_argument("--task-oracle", action="store_true",
                    help="also deal the recording's OpenMP tasks by the oracle of"
                    " tests/recorder/task_oracle.py (predicted.oracle_ns)")
    ap.add_argument("--sched-linux", action="store_true",
                    help="also predict with the Linux-like scheduler model (ecp scan --sched"
                    " linux: predicted.linux_ns) and print it against the measured runs")
    ap.add_argument("--json", help="write all results as JSON here")
    ap.add_argument("--markdown", help="write the tables of docs/VALIDATION.md here")
    ap.add_argument("--from-json", help="no runs: re-print the results of an earlier --json")
    ap.add_argument("--reuse-measurements", metavar="JSON",
                    help="take the measured runs from an earlier --json (same scale and pct)"
                    " and only record and predict again")
    opts = ap.parse_args()
    opts.ecp = opts.ecp or os.path.join(opts.build, "cli", "ecp")
    global NICE, AS_CPUS
    NICE = opts.nice
    AS_CPUS = opts.as_cpus
    if NICE and not can_raise_priority():
        print("note: cannot run at niceness %d here; measuring at the default" % NICE)
    opts.reuse = {}
    if opts.reuse_measurements:
        with open(opts.reuse_measurements) as f:
            opts.reuse = {r["program"]: r for r in json.load(f)["results"]}
    if opts.from_json:
        with open(opts.from_json) as f:
            results = json.load(f)["results"]
        for res in results:
            report(res, sys.stdout)
    else:
        os.makedirs(opts.work, exist_ok=True)
        results = []
        for name in opts.programs.split(","):
            if name not in CANDIDATES:
                ap.error("unknown program %s (known: %s)" % (name, ", ".join(CANDIDATES)))
            study(opts, name, results)
    if opts.markdown:
        with open(opts.markdown, "w") as f:
            markdown(results, f)
    if opts.json and not opts.from_json:
        with open(opts.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                       "loadavg": os.getloadavg(), "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
