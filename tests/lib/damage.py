#!/usr/bin/env python3
"""Damage a clean log (one record a line) the way logs are damaged, at
seeded random places, for tests/bats/damage.bats.

usage: damage.py SEED KINDS CLEAN DAMAGED MANIFEST

KINDS, comma separated: cut (a line cut short, its newline kept: a writer
killed mid-line), nul (a raw NUL byte inside a JSON string, or inside a
number where a line has no string), bom (a UTF-8 byte order mark before
the first line), dup (a member the reader does not read, "model", given
twice), dupkey (the member it reads, the ids or the text, given twice).  Each kind but bom damages 1 to 4 distinct lines (a line is
damaged once).  MANIFEST gets one line per damaged line: "LINE KIND";
cut, nul and dupkey lines must come out as error lines in their place, dup lines
as the clean record, every other line as from the clean log."""
import random
import sys


def main():
    seed, kinds, clean, damaged, manifest = sys.argv[1:6]
    rnd = random.Random(int(seed))
    kinds = kinds.split(",")
    with open(clean, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    # the lines that hold a record (not an SSE stream's blank, [DONE] lines)
    free = [i for i, s in enumerate(lines)
            if (s and s[:1] in b"{[") or s.startswith(b"data: {")]
    rnd.shuffle(free)
    marks = []
    for kind in kinds:
        if kind == "bom":
            continue
        for _ in range(rnd.randint(1, 4)):
            if not free:
                break
            i = free.pop()
            s = lines[i]
            if kind == "cut":
                # anywhere past the first byte and before the last
                lines[i] = s[:rnd.randrange(1, len(s) - 1)]
            elif kind == "nul":
                q = s.find(b'"id":"')
                if q >= 0:
                    at = q + 6 + rnd.randrange(0, s.index(b'"', q + 6) - q - 6)
                else:
                    digits = [k for k in range(1, len(s) - 1)
                              if s[k - 1:k].isdigit() and s[k:k + 1].isdigit()]
                    at = rnd.choice(digits)
                lines[i] = s[:at] + b"\0" + s[at:]
            elif kind == "dupkey":
                # the member read (the ids, or the text) given twice
                m = [s.find(k) for k in (b'"output_ids":', b'"text":')]
                m = [q for q in m if q >= 0]
                if not m:
                    free.append(i)
                    continue
                q = m[0]
                end = s.index(b':', q)
                val = b'"x",' if s[end + 1:end + 2] == b'"' else b'[1],'
                lines[i] = s[:q] + s[q:end] + b':' + val + s[q:]
            elif kind == "dup":
                q = s.find(b'"model":')
                if q < 0:
                    free.append(i)
                    continue
                lines[i] = s[:q] + b'"model":"dup",' + s[q:]
            else:
                sys.exit("unknown kind " + kind)
            marks.append((i + 1, kind))
    out = b"\n".join(lines) + b"\n"
    if "bom" in kinds:
        out = b"\xef\xbb\xbf" + out
    with open(damaged, "wb") as f:
        f.write(out)
    with open(manifest, "w") as f:
        for line, kind in sorted(marks):
            f.write("%d %s\n" % (line, kind))


main()
