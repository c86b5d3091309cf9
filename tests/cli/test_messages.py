#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""e2e: the messages a new user meets when something is wrong name the
problem and the file (issue 16).  Each check asserts the text:

- a regular file given as a trace: "X is a file, not a trace directory";
- `ecp record -- ./nosuch`: names the program and the reason;
- a damaged stream file that babeltrace2 refuses: names the stream file,
  without babeltrace2's component dump and without blaming the metadata;
- a damaged stream file on which babeltrace2 2.0 crashes (SIGSEGV in its
  CTF plugin): exit 1 and a message naming the stream file, not a crash;
- a truncated copy of the program in objects/: a warning naming the copy;
- the folded-calls notice of `ecp report` names the function;
- progress lines (cli/progress.h) never reach a pipe.

The damages are single bytes of the committed fig4 sample's first stream
file, found by mutating it; a babeltrace2 other than 2.0.4 may decode
them differently, so the two damage checks accept any failure that names
the file, and the crash check holds whether or not it crashes.

usage: test_messages.py   (env: ECP, ECP_SOURCE_ROOT)"""
import os
import shutil
import subprocess
import sys
import tempfile

ECP = os.environ["ECP"]
SRC = os.environ["ECP_SOURCE_ROOT"]
STREAM = "main/ust/uid/0/64-bit/ecp_0"
failed = False


def check(ok, what, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failed = True
        if detail:
            print("  | " + detail.replace("\n", "\n  | "))


def run(*args, cwd=None):
    return subprocess.run([ECP] + list(args), capture_output=True, text=True, cwd=cwd)


def sample_copy(work, name, damage=None, listed=False):
    """A private copy of a committed sample, without its model cache (so
    the CTF is decoded), with one byte of its first stream replaced.  Its
    stream manifest goes too unless `listed` (as for a trace recorded before
    manifests): the manifest would refuse the damage before the decoder,
    whose messages are what is checked here."""
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(SRC, "traces", "samples", "fig4"), d)
    cache = os.path.join(d, "ecp-model.cache")
    if os.path.exists(cache):
        os.remove(cache)
    if not listed:
        os.remove(os.path.join(d, "ecp-record.streams"))
    if damage:
        path = os.path.join(d, STREAM)
        b = bytearray(open(path, "rb").read())
        off, val = damage
        b[off] = val
        open(path, "wb").write(bytes(b))
    return d


def main():
    work = tempfile.mkdtemp(prefix="ecp-messages-")
    try:
        # A regular file given as a trace.
        f = os.path.join(work, "notes.txt")
        open(f, "w").write("not a trace\n")
        r = run("report", f)
        check(r.returncode == 1 and "notes.txt is a file, not a trace directory" in r.stderr
              and "no such trace directory" not in r.stderr,
              "a regular file as trace: 'is a file, not a trace directory'", r.stderr)
        r = run("info", os.path.join(work, "absent.data"))
        check(r.returncode == 1 and "no such trace directory" in r.stderr,
              "a missing trace: 'no such trace directory'", r.stderr)

        # A model that does not hold the program's time (its CPU time made
        # ten times what it was): refused by name, with the way out; answered
        # with --allow-inconsistent, with a warning that says so.
        d = sample_copy(work, "inconsistent")
        meta = os.path.join(d, "ecp-record.meta")
        text = open(meta).read()
        edited = text.replace("program_cpu_ns=948514000", "program_cpu_ns=9485140000")
        check(edited != text, "the fig4 sample's meta holds its program CPU time")
        open(meta, "w").write(edited)
        r = run("report", d, "-P", "2")
        check(r.returncode == 1 and "does not hold the program's time" in r.stderr
              and "--allow-inconsistent" in r.stderr,
              "an inconsistent model is refused, naming --allow-inconsistent", r.stderr)
        for cmd in (["report", d, "-P", "2"], ["info", d], ["scan", d, "-P", "1-3"]):
            r = run(*(cmd + ["--allow-inconsistent"]))
            check(r.returncode == 0 and "answered anyway as asked" in r.stderr
                  and r.stdout.strip(),
                  "%s --allow-inconsistent answers with a warning" % cmd[0], r.stderr)

        # A program that does not exist, or cannot be executed.
        r = run("record", "-o", os.path.join(work, "t.data"), "--", "./nosuch", cwd=work)
        check(r.returncode == 2 and
              "cannot run './nosuch': No such file or directory" in r.stderr,
              "record -- ./nosuch names the program and the reason", r.stderr)
        check(not os.path.exists(os.path.join(work, "t.data")), "and leaves no trace behind")
        os.chmod(f, 0o644)
        r = run("record", "-o", os.path.join(work, "t.data"), "--", f)
        check(r.returncode == 2 and f"cannot run '{f}'" in r.stderr and
              "not executable" in r.stderr, "record of a non-executable file says so", r.stderr)

        # A damaged stream that babeltrace2 refuses (an event class id
        # that the metadata does not define).
        d = sample_copy(work, "refused", (2922, 212))
        r = run("info", d)
        stream = os.path.join(d, STREAM)
        check(r.returncode == 1 and f"the stream file {stream} is damaged" in r.stderr,
              "a damaged stream: the message names the stream file", r.stderr)
        check("comp-addr" not in r.stderr and "Component" not in r.stderr,
              "no babeltrace2 component dump in the message", r.stderr)
        check("metadata" not in r.stderr.replace(STREAM, ""),
              "the metadata, which is fine, is not blamed", r.stderr)

        # The same damage in a trace that lists its streams: refused before
        # decoding, naming the file (issue 33).
        d = sample_copy(work, "listed", (2922, 212), listed=True)
        r = run("info", d)
        stream = os.path.join(d, STREAM)
        check(r.returncode == 1 and f"{stream} is not what the recording wrote" in r.stderr,
              "a listed trace: the damaged stream named before decoding", r.stderr)

        # A damaged stream on which babeltrace2 2.0.4 crashes: decoded in a
        # child process, the crash is exit 1 with the file's name.
        d = sample_copy(work, "crash", (1683, 218))
        r = run("info", d)
        stream = os.path.join(d, STREAM)
        check(r.returncode == 1, f"a stream that crashes the decoder: exit 1 ({r.returncode})",
              r.stderr)
        check(stream in r.stderr and "damaged" in r.stderr,
              "and the message names the damaged stream file", r.stderr)
        r2 = run("report", d, "-P", "2")
        check(r2.returncode == 1 and stream in r2.stderr, "every command says the same", r2.stderr)

        # A truncated copy of the program in objects/.
        d = sample_copy(work, "truncated", listed=True)
        obj = os.path.join(d, "objects", "fig4")
        with open(obj, "r+b") as o:
            o.truncate(4000)
        r = run("report", d, "-P", "2", "--top", "3")
        check(r.returncode == 0 and f"symbols could not be read from {obj}" in r.stderr
              and "shown as addresses (fig4+0x...)" in r.stderr,
              "a truncated objects/ copy: a warning naming it", r.stderr)
        check(f"{obj} is 4000 bytes, the recording copied" in r.stderr,
              "and the manifest says it was truncated", r.stderr)
        r = run("report", d, "-P", "2", "--top", "3")
        check(f"symbols could not be read from {obj}" in r.stderr,
              "the warning survives the model cache", r.stderr)

        # The folded-calls notice names the function.
        r = run("report", os.path.join(SRC, "traces", "samples", "quicksort"), "-P", "4")
        check(r.returncode == 0 and
              "calls of 1 function (RecursiveQuickSort) were folded" in r.stdout,
              "the folded-calls notice names the function", r.stdout[-600:])

        # --faster finds a function by a part of its name, says what it
        # found, refuses a name that fits several and lists them (issue 34).
        nl = os.path.join(SRC, "traces", "samples", "nlargest")
        r = run("whatif", nl, "--faster", "sea=20%", "-P", "1-2")
        check(r.returncode == 0 and "what if sea (search_part) were 20% faster" in r.stdout,
              "--faster sea finds search_part and says so", r.stdout[:300] + r.stderr)
        r = run("whatif", nl, "--faster", "e=20%", "-P", "1-2")
        check(r.returncode == 1 and "'e' fits 2 functions" in r.stderr and
              "search_part" in r.stderr and "merge" in r.stderr,
              "--faster e is ambiguous and lists search_part and merge", r.stderr)
        r = run("whatif", nl, "--faster", "*e*=20%", "-P", "1-2", "--format", "json")
        check(r.returncode == 0 and '"found": "2 functions"' in r.stdout,
              "--faster '*e*' makes both faster", r.stdout[-400:] + r.stderr)

        # Progress lines are for terminals: nothing of them in a pipe.
        d = sample_copy(work, "quiet")
        for args in (["info", d], ["scan", d, "-P", "1-64"], ["report", d, "-P", "3"],
                     ["whatif", d, "--faster", "a=10%", "-P", "1-8", "--sched", "linux"]):
            r = run(*args)
            check(r.returncode == 0 and "\r" not in r.stderr and "\033" not in r.stderr,
                  f"ecp {args[0]} in a pipe prints no progress line", repr(r.stderr[-300:]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


sys.exit(main())
