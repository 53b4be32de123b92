#!/usr/bin/python3
"""tests/grammar/lark_check.py - harmony-tools grammar --to=lark read by lark.

    /usr/bin/python3 tests/grammar/lark_check.py OUTDIR/lark.ndjson

Each case (tests/grammar/cases.py) names a grammar, a completion's text
and whether it must be accepted.  llguidance writes a special token bare
(<|channel|>: that token, by id); python3-lark has no such thing, so
here each is read as its text in quotes.  The whole text is parsed with
Earley: accepted or not, as XGrammar decides token by token.  Prints a
line per case and "lark: N cases, N failed"; exit 77 without lark.
"""
import json
import re
import sys

try:
    import lark
except ImportError:
    print('lark check skipped: python3-lark is not installed')
    sys.exit(77)

SPECIAL = re.compile(r'(?<!["\w])<\|[a-z_0-9]+\|>')


def as_text(grammar):
    """Special tokens as quoted literals, outside string literals and regexes only."""
    out = []
    for line in grammar.split('\n'):
        if line.startswith('//'):
            out.append(line)
            continue
        parts = re.split(r'("(?:[^"\\]|\\.)*"|/(?:[^/\\]|\\.)+/)', line)
        for i in range(0, len(parts), 2):
            parts[i] = SPECIAL.sub(lambda m: '"' + m.group(0) + '"', parts[i])
        out.append(''.join(parts))
    return '\n'.join(out)


parsers = {}
n = failed = 0
for line in open(sys.argv[1]):
    c = json.loads(line)
    n += 1
    why = None
    if c['grammar'] not in parsers:
        try:
            parsers[c['grammar']] = lark.Lark(as_text(open(c['grammar']).read()), start='start',
                                              parser='earley', lexer='dynamic')
        except Exception as e:  # the grammar is refused: every case of it fails
            parsers[c['grammar']] = e
    p = parsers[c['grammar']]
    if isinstance(p, Exception):
        why = f'grammar refused: {type(p).__name__}: {str(p).splitlines()[0]}'
    else:
        try:
            p.parse(c['text'])
            ok = True
        except lark.exceptions.LarkError:
            ok = False
        if ok != c['accept']:
            why = 'accepted, expected rejected' if ok else 'rejected, expected accepted'
    if why:
        failed += 1
    print(f"{'FAIL' if why else 'ok'} lark {c['name']}{': ' + why if why else ''}")
print(f'lark: {n} cases, {failed} failed')
sys.exit(1 if failed else 0)
