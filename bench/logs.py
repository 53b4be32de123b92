#!/usr/bin/env python3
"""bench/logs.py - harmony-parse over a serving log, as issue 10 measures it.

Run by `make bench` (through bench/run's "logs" section) or by hand from
anywhere once bin/ is built.  bench/gen_log.py writes, with seed 1, a log of
BENCH_LOG_RECORDS (default 20000) records {"id","model","created","usage",
"output_ids"} (about 470 tokens each, 2 % cut off), and the same tokens as
flat ids (one line of numbers per record), as JSON arrays (one a line) and
as text records ({"text": "..."}); they are cached in bench/cache/logs/.

Each measure is the best of BENCH_RUNS (default 3) whole-process wall
times of `harmony-parse -q --to stats --summary` on one file:

  records    the NDJSON log                    target >= 1.0 x flat
  flat       the flat ids with --lines         (the reference speed)
  arrays     the JSON arrays
  jq         jq -c '.output_ids|length' on the log   records >= 5 x jq
  text       the text records (MB/s: text has no token ids)
  sse        the first BENCH_SSE_RECORDS (default 2000) records as vLLM
             /v1/completions SSE streams, one token per event (text and
             token_ids), one after the other: MB of input per second,
             target >= 30 MB/s; and the same as llama.cpp /completion
             events (content, tokens, no [DONE]); both must give the
             records' summary but for the text-only counts
  parallel   parallel --pipe --keep-order --block B -j J harmony-parse ...
             | harmony-parse --to stats --merge   (J = the cores, at most 4;
             B = a J-th of the log; skipped when GNU parallel is missing),
             and the same with --pipepart -a LOG, which splits a file
             without piping it through parallel

Correctness, which makes the exit status 1: records, flat and arrays give
the same summary; the parallel summary equals the serial one byte for byte.
The last lines print the figures README.md quotes.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
CACHE = os.path.join(BENCH, "cache", "logs")
BIN = os.environ.get("BENCH_BIN") or os.path.join(ROOT, "bin")
PARSE = os.path.join(BIN, "harmony-parse")


def env_int(name, default):
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


RUNS = env_int("BENCH_RUNS", 3)
RECORDS = env_int("BENCH_LOG_RECORDS", 20000)
failed = False


def row(measure, value, target="", ok=None, note=""):
    mark = {True: "ok", False: "MISSED", None: ""}[ok]
    print("%-9s %-36s %14s  %-10s %-6s %s"
          % ("logs", measure, value, target, mark, note), flush=True)


def loud(text):
    global failed
    failed = True
    print("%-9s !!! %s" % ("logs", text), flush=True)


def generate():
    """The four files, written again when the generator or size changed."""
    gen = os.path.join(BENCH, "gen_log.py")
    with open(gen, "rb") as f:
        tag = hashlib.sha256(f.read()).hexdigest()[:12] + "-%d" % RECORDS
    os.makedirs(CACHE, exist_ok=True)
    files = {}
    for shape in ("ids", "flat", "array", "text"):
        path = os.path.join(CACHE, "%s-%s.txt" % (shape, tag))
        if not os.path.exists(path):
            with open(path + ".tmp", "wb") as out:
                subprocess.run([sys.executable, gen, "--records", str(RECORDS),
                                "--seed", "1", "--shape", shape],
                               stdout=out, check=True)
            os.replace(path + ".tmp", path)
        files[shape] = path
    return files


SSE_RECORDS = env_int("BENCH_SSE_RECORDS", 2000)


def sse_files(flat):
    """The first SSE_RECORDS records of the flat ids as two SSE logs."""
    paths = {k: os.path.join(CACHE, "sse-%s-%d.txt" % (k, SSE_RECORDS))
             for k in ("vllm", "llama")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    import json
    with open(flat) as f:
        recs = [list(map(int, l.split())) for _, l in zip(range(SSE_RECORDS), f)]
    uniq = sorted(set(i for r in recs for i in r))
    out = subprocess.run([os.path.join(BIN, "harmony-tokens"), "decode", "--lines",
                          "--to", "json"], input="\n".join(map(str, uniq)) + "\n",
                         capture_output=True, text=True).stdout.splitlines()
    text = {i: json.dumps(json.loads(t), ensure_ascii=False) for i, t in zip(uniq, out)}
    head = ('data: {"id":"cmpl-%d","object":"text_completion","created":1755784987,'
            '"model":"openai/gpt-oss-20b","choices":[{"index":0,"text":%s,'
            '"logprobs":null,"finish_reason":%s,"stop_reason":null,'
            '"prompt_token_ids":null,"token_ids":[%d]}]}\n\n')
    with open(paths["vllm"] + ".tmp", "w") as f:
        for n, r in enumerate(recs):
            for k, i in enumerate(r):
                f.write(head % (n, text[i], '"length"' if k == len(r) - 1 else "null", i))
            f.write("data: [DONE]\n\n")
    with open(paths["llama"] + ".tmp", "w") as f:
        for n, r in enumerate(recs):
            for k, i in enumerate(r):
                f.write('data: {"index":0,"content":%s,"tokens":[%d],"stop":false,'
                        '"id_slot":0,"tokens_predicted":%d,"tokens_evaluated":72}\n\n'
                        % (text[i], i, k + 1))
            f.write('data: {"index":0,"content":"","tokens":[],"stop":true,'
                    '"stop_type":"limit","tokens_predicted":%d}\n\n' % len(r))
    for p in paths.values():
        os.replace(p + ".tmp", p)
    return paths


def timed(argv, stdin_path=None, shell=False):
    """(best wall seconds, stdout of the last run)."""
    best, out = None, b""
    for _ in range(RUNS):
        fin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        t0 = time.perf_counter()
        p = subprocess.run(argv, stdin=fin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, shell=shell)
        dt = time.perf_counter() - t0
        if stdin_path:
            fin.close()
        if p.returncode not in (0, 1):
            loud("%s exited %d: %s" % (argv if not shell else argv[:80],
                                       p.returncode, p.stderr[-300:]))
            return None, b""
        out = p.stdout
        best = dt if best is None else min(best, dt)
    return best, out


def summary_of(path, *extra):
    return timed([PARSE, "-q", "--to", "stats", "--summary", *extra, path])


def main():
    if not os.access(PARSE, os.X_OK):
        print("logs: build first (make)", file=sys.stderr)
        return 2
    files = generate()
    size = os.path.getsize(files["ids"])
    t_rec, s_rec = summary_of(files["ids"])
    t_flat, s_flat = summary_of(files["flat"], "--lines")
    t_arr, s_arr = summary_of(files["array"])
    if t_rec is None or t_flat is None or t_arr is None:
        return 1
    import json
    tokens = json.loads(s_rec)["tokens"]

    def figures(s):
        """The summary less how much input it read: the three files hold
        the same records in forms of different sizes."""
        d = json.loads(s)
        d.pop("input_lines", None)
        d.pop("input_bytes", None)
        return d
    if figures(s_rec) != figures(s_flat) or figures(s_rec) != figures(s_arr):
        loud("records, flat ids and arrays give different summaries")
    mtok = lambda t: tokens / t / 1e6
    row("records (%d, %.0f MB)" % (RECORDS, size / 1e6),
        "%.1f M tok/s" % mtok(t_rec), ">= 1.0 flat", t_flat / t_rec >= 1.0,
        "%.3f s, %.0f MB/s" % (t_rec, size / t_rec / 1e6))
    row("flat ids, --lines", "%.1f M tok/s" % mtok(t_flat), "", None,
        "%.3f s; records at %.2f x" % (t_flat, t_flat / t_rec))
    row("JSON arrays", "%.1f M tok/s" % mtok(t_arr), ">= 0.8 flat",
        t_flat / t_arr >= 0.8, "%.3f s" % t_arr)
    if shutil.which("jq"):
        t_jq, _ = timed(["jq", "-c", ".output_ids|length", files["ids"]])
        if t_jq:
            row("jq '.output_ids|length'", "%.1f M tok/s" % mtok(t_jq),
                "rec >= 5x", t_jq / t_rec >= 5,
                "%.3f s; records %.1f x faster" % (t_jq, t_jq / t_rec))
    else:
        row("jq", "skipped", note="jq is not installed")
    t_txt, _ = summary_of(files["text"])
    if t_txt:
        tsize = os.path.getsize(files["text"])
        row("text records", "%.0f MB/s" % (tsize / t_txt / 1e6), "", None,
            "%.3f s, %.0f MB" % (t_txt, tsize / 1e6))
    sse = sse_files(files["flat"])
    for name, key in (("vLLM SSE, a token an event", "vllm"),
                      ("llama.cpp SSE, a token an event", "llama")):
        t_sse, s_sse = summary_of(sse[key])
        if not t_sse:
            continue
        ssize = os.path.getsize(sse[key])
        recs = json.loads(s_sse)["records"] if s_sse else 0
        if recs != SSE_RECORDS:
            loud("%s: %d records, not %d" % (name, recs, SSE_RECORDS))
        row("%s (%d)" % (name, SSE_RECORDS), "%.0f MB/s" % (ssize / t_sse / 1e6),
            ">= 30 MB/s", ssize / t_sse / 1e6 >= 30,
            "%.3f s, %.0f MB" % (t_sse, ssize / 1e6))
    if not shutil.which("parallel"):
        row("parallel", "skipped", note="GNU parallel is not installed")
    else:
        jobs = max(1, min(4, os.cpu_count() or 1))
        block = max(1 << 20, size // jobs + 1)
        cmd = ("parallel --pipe --keep-order --block %d -j %d %s -q --to stats "
               "--summary < %s | %s --to stats --merge"
               % (block, jobs, PARSE, files["ids"], PARSE))
        part = ("parallel --pipepart -a %s --keep-order --block %d -j %d %s -q "
                "--to stats --summary | %s --to stats --merge"
                % (files["ids"], block, jobs, PARSE, PARSE))
        for name, c in (("--pipe", cmd), ("--pipepart", part)):
            t_par, s_par = timed(c, shell=True)
            if not t_par:
                continue
            if s_par != s_rec:
                loud("the parallel %s summary differs from the serial one" % name)
            row("parallel %s -j%d, merged" % (name, jobs),
                "%.1f M tok/s" % mtok(t_par), "", None,
                "%.3f s; %.2f x serial; summary %s" % (
                    t_par, t_rec / t_par,
                    "identical" if s_par == s_rec else "DIFFERS"))
    print("logs      README: records %.0f M tokens/s (%.0f MB/s), flat ids "
          "%.0f M tokens/s, jq %.1f x slower than records"
          % (mtok(t_rec), size / t_rec / 1e6, mtok(t_flat),
             (t_jq / t_rec) if shutil.which("jq") and t_jq else 0))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
