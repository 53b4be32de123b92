#!/usr/bin/env python3
"""bench/gen_log.py - a seeded serving log of gpt-oss completions.

Usage: gen_log.py [--records N] [--seed S] [--shape SHAPE] [--variety] [--short]
(--help describes each option)

Writes N NDJSON records to stdout, each shaped like what a server logs:
{"id","model","created","usage":{...},"output_ids":[...]}.  Completions
are Harmony token streams: analysis, sometimes a tool call, then final;
about 2.6 % are cut off (no terminator).  The same seed gives the same
bytes on any machine.

SHAPE:
  ids    the records above (default)
  flat   the same tokens, one line of space separated ids per record
  array  the same tokens, one JSON array per record
  text   records holding the completion as Harmony text in "text"

--variety mixes in what real logs hold and the fast reader must treat
exactly as the general one: Python's ", " and ": " separators, floats,
escapes, non-ASCII, nested values, several id arrays in one record,
numbers in forms the JSON reader rewrites, and broken records.
"""

import argparse
import json
import random

# Token ids of o200k_harmony (from harmony-tokens encode).
START, END, MESSAGE, CHANNEL, CONSTRAIN, RETURN, CALL = (
    200006, 200007, 200008, 200005, 200003, 200002, 200012)
ANALYSIS, FINAL, ASSISTANT, JSON_ = 35644, 17196, 173781, 4108
COMMENTARY = [12606, 815]
WORDS = [290, 261, 328, 326, 316, 382, 306, 484, 480, 395, 581, 1825, 10648,
         6052, 11122, 5030, 23864, 1432, 1534, 813, 1309, 2371, 13, 11, 12650,
         9741, 12088, 18210, 46726, 13873, 9024, 668, 2411, 3392, 623, 2421,
         1114, 4584, 1238, 2086, 1562]
RECIPIENTS = {
    "functions.get_weather": [316, 28, 44580, 775, 170154],
    "functions.lookup": [316, 28, 44580, 76043],
    "browser.search": [316, 28, 46071, 16718],
    "python": [316, 28, 29010],
}
ARGS = [10848, 17500, 7534, 72782, 18583]
TEXT = {
    START: "<|start|>", END: "<|end|>", MESSAGE: "<|message|>",
    CHANNEL: "<|channel|>", CONSTRAIN: "<|constrain|>", RETURN: "<|return|>",
    CALL: "<|call|>",
}


def words(rng, n):
    return [rng.choice(WORDS) for _ in range(n)]


def completion(rng, scale=1):
    """One completion as a list of ids (specials and text)."""
    ids = [CHANNEL, ANALYSIS, MESSAGE]
    ids += words(rng, rng.randint(80, 700) // scale) + [END]
    if rng.random() < 0.3:
        name = rng.choice(sorted(RECIPIENTS))
        ids += [START, ASSISTANT, CHANNEL] + COMMENTARY + RECIPIENTS[name]
        ids += [CONSTRAIN, JSON_, MESSAGE] + ARGS + [CALL]
        return ids
    ids += [START, ASSISTANT, CHANNEL, FINAL, MESSAGE]
    ids += words(rng, rng.randint(10, 200) // scale) + [RETURN]
    if rng.random() < 0.026:
        ids = ids[:rng.randint(5, len(ids) - 1)]
    return ids


# What each ordinary token above decodes to (harmony-tokens decode), so that
# --shape text writes real Harmony text: "<|channel|>commentary to=python
# <|constrain|>json<|message|>..." reads back to the same headers.
TOKEN_TEXT = {
    ANALYSIS: "analysis", FINAL: "final", ASSISTANT: "assistant", JSON_: "json",
    12606: "comment", 815: "ary", 316: " to", 28: "=", 44580: "functions",
    775: ".get", 170154: "_weather", 76043: ".lookup", 46071: "browser",
    16718: ".search", 29010: "python", 10848: '{"', 17500: "city",
    7534: '":"', 72782: "Paris", 18583: '"}', 290: " the", 261: " a",
    328: " of", 326: " and", 382: " is", 306: " in", 484: " that", 480: " it",
    395: " for", 581: " we", 1825: " user", 10648: " wants", 6052: " answer",
    11122: " weather", 5030: " city", 23864: " compute", 1432: " value",
    1534: " result", 813: " so", 1309: " need", 2371: " check", 13: ".",
    11: ",", 12650: " Paris", 9741: " London", 12088: " temperature",
    18210: " degrees", 46726: " sunny", 13873: " rain", 9024: " Let",
    668: " me", 2411: " think", 3392: "\\n", 623: " The", 2421: " call",
    1114: " function", 4584: " tool", 1238: " data", 2086: " number",
    1562: " list",
}


def as_text(ids):
    """The completion as Harmony text: the exact text of its tokens."""
    return "".join(TEXT.get(t) or TOKEN_TEXT[t] for t in ids)


def variety(rng, i, rec, ids):
    """Rewrite a record into one of the shapes real logs hold."""
    k = rng.randint(0, 19)
    if k == 0:
        return json.dumps(rec)                      # ", " and ": "
    if k == 1:
        rec["temperature"] = rng.choice([0.7, 1.0, 0.25, 1e-7, 123456.789])
        return json.dumps(rec, separators=(",", ":"))
    if k == 2:
        rec["prompt"] = "caf\u00e9 \u2603 \"q\" \\ /path\n\ttab \u0001"
        return json.dumps(rec, ensure_ascii=rng.random() < 0.5,
                          separators=(",", ":"))
    if k == 3:
        rec["input_ids"] = words(rng, 20)           # two id arrays
        if rng.random() < 0.5:
            rec = {"input_ids": rec.pop("input_ids"), **rec}
        return json.dumps(rec, separators=(",", ":"))
    if k == 4:
        rec["meta"] = {"a": [1, 2, {"b": None}], "c": True, "d": False,
                       "e": [], "f": {}}
        return json.dumps(rec, indent=None, separators=(", ", ":"))
    if k == 5:
        s = json.dumps(rec, separators=(",", ":"))
        return s.replace('"created":', '"created":  ', 1).replace(
            "{", "{ ", 1) + "  "
    if k == 6:
        s = json.dumps(rec, separators=(",", ":"))
        # forms the JSON reader rewrites: 1.0, 1e3, -0, 2^53+1, \/ escapes
        return s.replace('"created":%d' % rec["created"],
                         '"created":%s' % rng.choice(
                             ["1.0", "1e3", "-0", "9007199254740993",
                              "1.5E+2", "0.1000", "-12", "2147483648"]), 1
                         ).replace('"model":"gpt-oss-120b"',
                                   '"model":"gpt\\/oss\\u0041"', 1)
    if k == 7:
        return rng.choice([
            '{"id":"bad%d","output_ids":[1,2,"x"]}' % i,
            '{"id":"bad%d","output_ids":[1,2.5]}' % i,
            '{"id":"bad%d","output_ids":[4294967296]}' % i,
            '{"id":"bad%d","output_ids":"1 2"}' % i,
            '{"id":"bad%d","model":"m"}' % i,
            '{"id":"bad%d","output_ids":[1,2,]}' % i,
            '{"id":"bad%d","output_ids":[01,2]}' % i,
            '{"id":"bad%d","output_ids":[1,2]} trailing' % i,
            '{"id":"bad%d" "output_ids":[1,2]}' % i,
            '{"id":bad,"output_ids":[1,2]}',
            '{"id":{"n":%d},"output_ids":[1,2,"x"]}' % i,
        ])
    if k == 8:
        rec["tokens"] = ids[:10]                     # priority over output_ids
        return json.dumps(rec, separators=(",", ":"))
    if k == 9:
        s = json.dumps(rec, separators=(",", ":"))
        return s.replace('"output_ids":[', '"output_ids":[ ', 1).replace(
            ",", " , ", 3)
    if k == 10:
        rec["id"] = [i, "x"] if rng.random() < 0.5 else i
        rec["messages"] = "collides with the output"
        return json.dumps(rec, separators=(",", ":"))
    if k == 11:
        # spread over lines, as `jq .` writes it
        return json.dumps(rec, indent=1)
    if k == 12:
        s = json.dumps(rec, separators=(",", ":"))
        return s.replace('"model"', '"model":"dup","model"', 1)
    return json.dumps(rec, separators=(",", ":"))


def parser():
    """The options, each with its --help text."""
    ap = argparse.ArgumentParser(
        description="Write a seeded serving log of gpt-oss completions "
        "(NDJSON, one record a line) to standard output.",
        epilog="The same options and seed give the same bytes on any machine.")
    ap.add_argument("--records", type=int, default=20000, metavar="N",
                    help="how many records (default 20000; 1,000,000 are "
                    "about 2.4 GB)")
    ap.add_argument("--seed", type=int, default=1, metavar="S",
                    help="the random seed (default 1)")
    ap.add_argument("--shape", default="ids",
                    choices=["ids", "flat", "array", "text"],
                    help="ids: records with the completion's token ids in "
                    "output_ids (default); flat: the same ids, one line of "
                    "space separated numbers a record; array: one JSON array "
                    "a record; text: records with the completion as Harmony "
                    "text in \"text\"")
    ap.add_argument("--variety", action="store_true",
                    help="mix in what real logs hold: Python's separators, "
                    "floats, escapes, non-ASCII, nested values, two id arrays, "
                    "numbers the JSON reader rewrites, broken records")
    ap.add_argument("--short", action="store_true",
                    help="completions 20 times shorter (test fixtures)")
    return ap


def main():
    a = parser().parse_args()
    rng = random.Random(a.seed)
    out = []
    for i in range(a.records):
        if len(out) >= 1000:
            print("\n".join(out))
            out = []
        ids = completion(rng, 20 if a.short else 1)
        prompt = rng.randint(20, 2000)
        if a.shape == "flat":
            out.append(" ".join(map(str, ids)))
            continue
        if a.shape == "array":
            out.append(json.dumps(ids, separators=(",", ":")))
            continue
        rec = {"id": "chatcmpl-%06d" % i, "model": "gpt-oss-120b",
               "created": 1732400000 + i,
               "usage": {"prompt_tokens": prompt,
                         "completion_tokens": len(ids)}}
        if a.shape == "text":
            rec["text"] = as_text(ids)
        else:
            rec["output_ids"] = ids
        if a.variety:
            out.append(variety(rng, i, rec, ids))
        else:
            out.append(json.dumps(rec, separators=(",", ":")))
    if out:
        print("\n".join(out))


if __name__ == "__main__":
    main()
