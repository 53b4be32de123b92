#!/usr/bin/env python3
"""bench/shapes.py - harmony-parse's output shapes side by side.

Run by `make bench` (through bench/run's "shapes" section) or by hand
once bin/ is built.  bench/gen_log.py writes, with seed 2, a log of
BENCH_SHAPES_RECORDS (default 20000) records (cached in bench/cache/shapes/);
each shape is timed as `harmony-parse -q --to SHAPE LOG > FILE`, the best
of BENCH_RUNS (default 3) whole-process CPU times (user + system; the
shapes taking turns), in M tokens per CPU second.

The shapes of issue 15 (anthropic, anthropic-stream, answer, metrics) each
have the target "at least as fast as the Chat shape on the same
completions": anthropic against chat-completion (both a whole object with
the record's fields, ids and usage), anthropic-stream against chat-stream
(an event per token), answer and metrics against chat; every ratio to
chat is shown too.  Every run must exit 0 and write output: otherwise the exit status
is 1.

CPU time on a shared machine moves by a few per cent from run to run, more
than some of these shapes differ.  So when valgrind is installed, each
shape also runs once under callgrind on a log of BENCH_SHAPES_COUNT_RECORDS
(default 2000) records, and the target is judged on those instruction
counts, which repeat exactly; without valgrind it is judged on CPU time.
"""

import hashlib
import os
import resource
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
CACHE = os.path.join(BENCH, "cache", "shapes")
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, "bin")
PARSE = os.path.join(BIN, "harmony-parse")


def env_int(name, default):
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


RUNS = env_int("BENCH_RUNS", 3)
RECORDS = env_int("BENCH_SHAPES_RECORDS", 20000)
COUNT_RECORDS = env_int("BENCH_SHAPES_COUNT_RECORDS", 2000)
SHAPES = ["chat", "chat-completion", "chat-stream", "anthropic", "anthropic-stream", "answer",
          "metrics"]
# The Chat shape each new one is held against: the whole object for the
# whole Message (both carry the record's fields, ids and usage), the Chat
# stream for the stream (an event per token), the bare choice else.
NEW = {"anthropic": "chat-completion", "anthropic-stream": "chat-stream",
       "answer": "chat", "metrics": "chat"}


def row(measure, value, target="", ok=None, note=""):
    mark = {True: "ok", False: "MISSED", None: ""}[ok]
    print("%-9s %-36s %14s  %-18s %-6s %s"
          % ("shapes", measure, value, target, mark, note), flush=True)


def log_file(records):
    gen = os.path.join(BENCH, "gen_log.py")
    with open(gen, "rb") as f:
        tag = hashlib.sha256(f.read()).hexdigest()[:12] + "-%d" % records
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, "log-%s.ndjson" % tag)
    if not os.path.exists(path):
        with open(path + ".tmp", "wb") as out:
            subprocess.run([sys.executable, gen, "--records", str(records),
                            "--seed", "2"], stdout=out, check=True)
        os.replace(path + ".tmp", path)
    return path


def one_run(shape, log):
    """CPU seconds (user + system) of one run, or None after a loud line
    when it fails.  CPU time, not wall time: on a machine shared with
    other jobs, waiting for a core is not the shape's cost."""
    out = os.path.join(CACHE, "out")
    with open(out, "wb") as f:
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        p = subprocess.run([PARSE, "-q", "--to", shape, log], stdout=f,
                           stderr=subprocess.PIPE)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        dt = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    size = os.path.getsize(out)
    os.remove(out)
    if p.returncode != 0 or size == 0:
        print("%-9s !!! --to %s exited %d: %s" % (
            "shapes", shape, p.returncode,
            p.stderr[-300:].decode("utf-8", "replace")), flush=True)
        return None
    return dt


def instructions(shape, log):
    """Instructions of one run under callgrind, None when it fails."""
    p = subprocess.run(["valgrind", "--tool=callgrind",
                        "--callgrind-out-file=/dev/null", PARSE, "-q", "--to",
                        shape, log], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    for line in p.stderr.decode("utf-8", "replace").splitlines():
        if "Collected :" in line and p.returncode == 0:
            return int(line.split(":")[-1])
    print("%-9s !!! --to %s under callgrind exited %d" % (
        "shapes", shape, p.returncode), flush=True)
    return None


def main():
    if not os.access(PARSE, os.X_OK):
        print("shapes    bin/harmony-parse is not built: skipped")
        return 0
    log = log_file(RECORDS)
    summary = subprocess.run([PARSE, "-q", "--to", "stats", "--summary", log],
                             stdout=subprocess.PIPE, check=True).stdout
    tokens = int(summary.split(b'"tokens":')[1].split(b",")[0])
    # Round robin, so that a burst of load on a shared machine falls on
    # every shape alike; each shape's best run counts.
    best = {}
    for _ in range(RUNS):
        for shape in SHAPES:
            t = one_run(shape, log)
            if t is None:
                return 1
            best[shape] = min(best.get(shape, t), t)
    speed = {shape: tokens / best[shape] / 1e6 for shape in SHAPES}
    counted = shutil.which("valgrind") is not None
    for shape in SHAPES:
        base = NEW.get(shape)
        if base is None:
            row("--to %s" % shape, "%.1f M tok/s" % speed[shape], "", None,
                "%d records, %.1f M tokens" % (RECORDS, tokens / 1e6))
            continue
        ratio = speed[shape] / speed[base]
        note = "%.2fx %s" % (ratio, base)
        if base != "chat":
            note += ", %.2fx chat" % (speed[shape] / speed["chat"])
        row("--to %s" % shape, "%.1f M tok/s" % speed[shape], ">= " + base,
            None if counted else ratio >= 1.0, note + ("" if counted else
                                                       " (CPU time)"))
    if not counted:
        return 0
    small = log_file(COUNT_RECORDS)
    count = {}
    for shape in SHAPES:
        count[shape] = instructions(shape, small)
        if count[shape] is None:
            return 1
    for shape in SHAPES:
        base = NEW.get(shape)
        if base is None:
            row("--to %s, callgrind" % shape, "%.1f M instr" % (count[shape] / 1e6),
                "", None, "%d records" % COUNT_RECORDS)
            continue
        row("--to %s, callgrind" % shape, "%.1f M instr" % (count[shape] / 1e6),
            "<= " + base, count[shape] <= count[base],
            "%+.2f%% against %s" % ((count[shape] / count[base] - 1) * 100, base))
    return 0


if __name__ == "__main__":
    sys.exit(main())
