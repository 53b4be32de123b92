#!/usr/bin/env python3
"""Feed files to a command through a pipe in pieces, cut at chosen places
(a few at random, one inside a special token's text, one inside a UTF-8
character, one between a CR and its LF), and check that every cutting
gives the output the whole file gives.

usage: dribble.py [--seeds N] FILE... -- CMD ARG...
Exits 1 naming the file and seed of the first difference."""
import random
import subprocess
import sys
import time


def cuts(data, rnd):
    at = set(rnd.randrange(1, len(data)) for _ in range(3))
    marks = [i + 3 for i in range(len(data)) if data[i:i + 2] == b"<|"]
    if marks:
        at.add(rnd.choice(marks))
    multi = [i for i in range(1, len(data)) if 0x80 <= data[i] < 0xC0 and data[i - 1] >= 0xC0]
    if multi:
        at.add(rnd.choice(multi))
    crlf = [i + 1 for i in range(len(data) - 1) if data[i:i + 2] == b"\r\n"]
    if crlf:
        at.add(rnd.choice(crlf))
    return sorted(a for a in at if 0 < a < len(data))


def run(cmd, data, at):
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    prev = 0
    for a in at + [len(data)]:
        p.stdin.write(data[prev:a])
        p.stdin.flush()
        prev = a
        time.sleep(0.003)
    p.stdin.close()
    out = p.stdout.read()
    p.wait()
    return out


def main():
    args = sys.argv[1:]
    seeds = 3
    if args[:1] == ["--seeds"]:
        seeds, args = int(args[1]), args[2:]
    sep = args.index("--")
    files, cmd = args[:sep], args[sep + 1:]
    for f in files:
        data = open(f, "rb").read()
        whole = run(cmd, data, [])
        for seed in range(1, seeds + 1):
            at = cuts(data, random.Random(seed))
            if run(cmd, data, at) != whole:
                print(f"dribble: {f}: seed {seed}, cut at {at}: output differs",
                      file=sys.stderr)
                return 1
    return 0


sys.exit(main())
