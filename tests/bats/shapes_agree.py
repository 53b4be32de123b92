#!/usr/bin/env python3
"""shapes_agree.py FXDIR NAME... - every output shape of harmony-parse
agrees with its messages on each fixture FXDIR/NAME.in (read with the
options in FXDIR/NAME.args):

- each analysis text is in the chat reasoning_content, never in content,
  and never a line of `--channels final --to text`;
- chat and responses call the same functions as the messages' recipients
  (`ns:tool` and the built-in python, browser and container tools are routed
  by shape, so left out);
- chat-stream's deltas add up to the chat message, responses-stream's last
  event holds the responses output;
- stats counts the messages.

One process for all of it: the checks are the same as one jq call per
question, without a jq start-up each.  Prints what differs; exits 1 then.
"""
import json
import re
import subprocess
import sys


def run(args):
    r = subprocess.run(["harmony-parse", "-q"] + args, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("harmony-parse %s: exit %d: %s" % (
            " ".join(args), r.returncode, r.stderr.decode(errors="replace")))
    return r.stdout.decode()


def values(text):
    """Every JSON value of a stream of JSON texts, as jq reads them."""
    dec, i, out = json.JSONDecoder(), 0, []
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i == len(text):
            return out
        v, i = dec.raw_decode(text, i)
        out.append(v)


def sse_data(text):
    return [json.loads(l[6:]) for l in text.split("\n")
            if l.startswith("data: ") and l[6:] != "[DONE]"]


def compact(v):
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def check(fx, name):
    args = open("%s/%s.args" % (fx, name)).read().split()
    path = "%s/%s.in" % (fx, name)
    msgs = values(run(args + [path]))
    chat = values(run(args + ["--to", "chat", path]))
    errs = []
    analysis = [m["content"] for m in msgs
                if m.get("channel") == "analysis" and m.get("content")]
    final_text = run(args + ["--channels", "final", "--to", "text", path]).split("\n")
    for a in analysis:
        if not any(a in (c["message"].get("reasoning_content") or "") for c in chat):
            errs.append("chat reasoning lacks: %r" % a)
        if any(a in (c["message"].get("content") or "") for c in chat):
            errs.append("chat content has reasoning: %r" % a)
        if a in final_text:
            errs.append("--channels final shows reasoning: %r" % a)
    want = []
    for m in msgs:
        r = m.get("recipient")
        if m.get("role") != "assistant" or r is None or r == "assistant":
            continue
        if ":" in r or re.match(r"(python|browser|container)([.]|$)", r):
            continue
        want.append(r[len("functions."):] if r.startswith("functions.") else r)
    got = [t["function"]["name"] for c in chat
           for t in c["message"].get("tool_calls") or []
           if ":" not in t["function"]["name"]]
    if got != want:
        errs.append("chat calls %s, want %s" % (got, want))
    resp = values(run(args + ["--to", "responses", path]))
    got = [o["name"] for r in resp for o in r["output"] if o.get("type") == "function_call"]
    if got != want:
        errs.append("responses calls %s, want %s" % (got, want))
    chunks = sse_data(run(args + ["--to", "chat-stream", path]))
    for part in ("reasoning_content", "content"):
        streamed = "".join(c["choices"][0]["delta"].get(part) or "" for c in chunks)
        whole = "".join(c["message"].get(part) or "" for c in chat)
        if streamed != whole:
            errs.append("chat-stream %s differs: %r, not %r" % (part, streamed, whole))
    events = sse_data(run(args + ["--to", "responses-stream", path]))
    done = [compact(e["response"]["output"]) for e in events
            if e.get("type") == "response.completed"]
    if done != [compact(r["output"]) for r in resp]:
        errs.append("responses-stream differs")
    stats = values(run(args + ["--to", "stats", path]))
    if [s["messages"] for s in stats] != [len(msgs)]:
        errs.append("stats messages %s, not %d" % ([s["messages"] for s in stats], len(msgs)))
    return ["%s: %s" % (name, e) for e in errs]


def main():
    fx, names = sys.argv[1], sys.argv[2:]
    if not names:
        print("shapes_agree.py: no fixture named", file=sys.stderr)
        return 2
    errs = []
    for n in names:
        errs += check(fx, n)
    for e in errs:
        print(e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
