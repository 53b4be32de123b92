#!/usr/bin/env python3
"""One tool-call turn of an agent loop through the tools, as a server
built on them runs it and a client that keeps its history as returned
drives it: the request rendered (harmony-render --from DIALECT), the
model's completion (one of four header forms gpt-oss writes) answered
(harmony-parse --with-tokens --to SHAPE, whole or stream; a stream joined
as a raw client joins its deltas), the returned turn and a tool result
appended, the next request rendered.  Prints one line: "prefix" when the
next prompt extends prompt + completion token for token, else "miss",
and harmony-render's warnings after it.

usage: loop_turn.py BIN DIALECT whole|stream FORM [edit|notokens|dropped]

dropped: the client keeps no reasoning (nor the ids that ride with it);
with LOOP_STORE=DIR both tools get --store=DIR, and the record carries
the prompt's ids."""
import json
import os
import subprocess
import sys

FORMS = {
    # channel first, as gpt-oss writes most calls
    "channel": "<|channel|>commentary to=functions.get_weather <|constrain|>json"
               "<|message|>{\"city\":\"Tokyo\"}",
    # recipient first, <|constrain|>json
    "recipient": " to=functions.get_weather<|channel|>commentary <|constrain|>json"
                 "<|message|>{\"city\":\"Tokyo\"}",
    # recipient first, a bare json
    "bare": " to=functions.get_weather<|channel|>commentary json<|message|>{\"city\":\"Tokyo\"}",
    # channel first, arguments spaced
    "spaced": "<|channel|>commentary to=functions.get_weather <|constrain|>json"
              "<|message|>{\"city\": \"Tokyo\"}",
}
PARAMS = {"type": "object", "properties": {"city": {"type": "string"}}}


def run(bin_, args, inp):
    if os.environ.get("LOOP_STORE") and args[0] in ("harmony-render", "harmony-parse"):
        args = args + ["--store", os.environ["LOOP_STORE"]]
    p = subprocess.run([bin_ + "/" + args[0]] + args[1:], input=inp,
                       capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def sse(text):
    for block in text.split("\n\n"):
        for line in block.split("\n"):
            if line.startswith("data: ") and line != "data: [DONE]":
                yield json.loads(line[6:])


def join_chat(text):
    msg = {"role": "assistant", "content": None}
    calls = {}
    for ch in sse(text):
        for c in ch["choices"]:
            for k, v in c["delta"].items():
                if k == "tool_calls":
                    for tc in v:
                        cur = calls.setdefault(tc["index"], {"id": None, "type": "function",
                                                             "function": {"name": "", "arguments": ""}})
                        cur["id"] = tc.get("id") or cur["id"]
                        f = tc.get("function", {})
                        cur["function"]["name"] += f.get("name") or ""
                        cur["function"]["arguments"] += f.get("arguments") or ""
                elif k in ("content", "reasoning_content"):
                    msg[k] = (msg.get(k) or "") + v
                elif k != "role":
                    msg[k] = v
    if calls:
        msg["tool_calls"] = [calls[i] for i in sorted(calls)]
    return msg


def join_responses(text):
    return [ev["item"] for ev in sse(text) if ev["type"] == "response.output_item.done"]


def join_anthropic(text):
    blocks = {}
    for ev in sse(text):
        if ev["type"] == "content_block_start":
            blocks[ev["index"]] = dict(ev["content_block"])
            if blocks[ev["index"]]["type"] == "tool_use":
                blocks[ev["index"]]["input"] = ""
        elif ev["type"] == "content_block_delta":
            b, d = blocks[ev["index"]], ev["delta"]
            if d["type"] == "text_delta":
                b["text"] += d["text"]
            elif d["type"] == "thinking_delta":
                b["thinking"] += d["thinking"]
            elif d["type"] == "signature_delta":
                b["signature"] = d["signature"]
            elif d["type"] == "input_json_delta":
                b["input"] += d["partial_json"]
    out = [blocks[i] for i in sorted(blocks)]
    for b in out:
        if b["type"] == "tool_use":
            b["input"] = json.loads(b["input"] or "{}")
    return out


def main():
    bin_, dialect, mode, form = sys.argv[1:5]
    how = sys.argv[5] if len(sys.argv) > 5 else ""
    text = ("<|channel|>analysis<|message|>The user wants the weather.<|end|>"
            "<|start|>assistant" + FORMS[form] + "<|call|>")
    rc, out, err = run(bin_, ["harmony-tokens", "encode"], text)
    completion = [int(x) for x in out.split()]
    user = {"role": "user", "content": "Weather in Tokyo?"}
    if dialect == "chat":
        req = {"model": "gpt-oss", "messages": [user], "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": PARAMS}}]}
        shape = "chat-completion"
    elif dialect == "responses":
        req = {"model": "gpt-oss", "input": [user], "tools": [
            {"type": "function", "name": "get_weather", "parameters": PARAMS}]}
        shape = "responses"
    else:
        req = {"model": "gpt-oss", "max_tokens": 100, "messages": [user], "tools": [
            {"name": "get_weather", "input_schema": PARAMS}]}
        shape = "anthropic"
    rc, prompt, err = run(bin_, ["harmony-render", "--from", dialect], json.dumps(req))
    if rc:
        sys.exit("loop_turn: render: " + err)
    rec = json.dumps({"id": "req-1", "prompt_token_ids": [int(x) for x in prompt.split()],
                      "output_ids": completion}) + "\n"
    args = ["harmony-parse"] + ([] if how == "notokens" else ["--with-tokens"])
    args += ["--to", shape + ("-stream" if mode == "stream" else "")]
    if shape == "chat-completion" and mode == "stream":
        args[-1] = "chat-stream"
    rc, out, err = run(bin_, args, rec)
    if rc:
        sys.exit("loop_turn: parse: " + err)
    if dialect == "chat":
        msg = join_chat(out) if mode == "stream" else json.loads(out)["choices"][0]["message"]
        if how == "edit":
            msg["reasoning_content"] = "The user wants rain."
        if how == "dropped":
            msg.pop("reasoning_content", None)
            msg.pop("harmony_tokens", None)
        req["messages"] += [msg, {"role": "tool", "tool_call_id": msg["tool_calls"][0]["id"],
                                  "content": "sunny"}]
    elif dialect == "responses":
        items = join_responses(out) if mode == "stream" else json.loads(out)["output"]
        call = [i for i in items if i["type"] == "function_call"][0]
        if how == "edit":
            call["arguments"] = "{\"city\":\"Kyoto\"}"
        if how == "dropped":
            items = [i for i in items if i["type"] != "reasoning"]
        req["input"] += items + [{"type": "function_call_output", "call_id": call["call_id"],
                                  "output": "sunny"}]
    else:
        content = join_anthropic(out) if mode == "stream" else json.loads(out)["content"]
        use = [b for b in content if b["type"] == "tool_use"][0]
        if how == "edit":
            use["input"] = {"city": "Kyoto"}
        if how == "dropped":
            content = [b for b in content if not b["type"].endswith("thinking")]
        req["messages"] += [{"role": "assistant", "content": content},
                            {"role": "user", "content": [{"type": "tool_result",
                                                          "tool_use_id": use["id"],
                                                          "content": "sunny"}]}]
    rc, nxt, err = run(bin_, ["harmony-render", "--from", dialect], json.dumps(req))
    if rc:
        sys.exit("loop_turn: next render: " + err)
    if how == "edit":
        # rendered as without the carried ids: strip them and compare
        strip = json.loads(json.dumps(req))
        for m in strip.get("messages", []):
            m.pop("harmony_tokens", None)
            if isinstance(m.get("content"), list):
                m["content"] = [b for b in m["content"] if b.get("type") != "redacted_thinking"]
                for b in m["content"]:
                    if b.get("type") == "thinking":
                        b["signature"] = ""
        strip_items = [i for i in strip.get("input", []) if not (
            i.get("type") == "reasoning" and not i.get("content") and not i.get("summary"))]
        for i in strip_items:
            i.pop("encrypted_content", None)
        if "input" in strip:
            strip["input"] = strip_items
        rc, plain, _ = run(bin_, ["harmony-render", "--from", dialect], json.dumps(strip))
        print("as-without" if plain == nxt else "differs-from-without")
    before = [int(x) for x in prompt.split()] + completion
    after = [int(x) for x in nxt.split()]
    print("prefix" if after[:len(before)] == before and len(after) > len(before) else "miss")
    sys.stdout.write(err)


main()
