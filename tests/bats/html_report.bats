#!/usr/bin/env bats
# html_report.bats - the pages of harmony-tokens diff --to html and
# harmony-parse --to report, opened in headless Chromium (tests/lib/browser):
# the diff page says where each record differs as the text report does and
# folds what both share; the report's charts and tables hold the numbers of
# the --to stats --summary line of the same log, made from the log or merged
# from its parts' summaries; no page has a console error or is blank.
# Where the browser cannot run, the browser tests are skipped, saying why.

load helpers

setup() {
	hm_setup
	T=$BATS_TEST_TMPDIR
	F=fixtures/diff
	HARNESS=$ROOT/tests/lib/browser
}

# Skip, saying why, when the page cannot be opened here.
need_browser() {
	lite_skip "the browser tests"
	[ -x "$HARNESS" ] || skip "tests/lib/browser is missing"
	command -v node >/dev/null || skip "node is not installed (tests/lib/browser runs on it)"
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || skip "chromium is not installed (tools/install-deps installs it)"
}

# browse PAGE STEP...: the harness's lines in $T/dom, one a step; a page
# error fails the test, a browser that would not start skips it.
browse() {
	local st=0
	"$HARNESS" --size 1200x900 "$@" >"$T/dom" 2>"$T/browser.err" || st=$?
	if [ "$st" -eq 3 ]; then
		skip "the browser did not run: $(head -c 300 "$T/browser.err")"
	fi
	if [ "$st" -ne 0 ]; then
		echo "tests/lib/browser exited $st:"
		cat "$T/dom" "$T/browser.err"
		return 1
	fi
	# the screenshot step's line: a picture with more than one colour
	grep -q '"colors":' "$T/dom" || { echo "no screenshot line"; return 1; }
	! grep -q '"colors":1,' "$T/dom"
}

# ---------------------------------------------------------------- report

# The figures a report page shows, as JSON: each table's rows (key: data-n,
# and the cells whose text is not their data-n), each chart's bars (number
# and drawn size), the reasoning ratio.
REPORT_DOM='(() => {
	const o = { tables: {}, charts: {}, badtext: [], ratio: null, svgs: document.querySelectorAll("svg").length };
	for (const t of document.querySelectorAll("table[data-figure]")) {
		const m = {};
		for (const tr of t.querySelectorAll("tr[data-key]")) {
			const td = tr.querySelector("td[data-n]");
			/* the number with thousands separators: 25,423,731 */
			if (td.textContent.trim() !== Number(td.dataset.n).toLocaleString("en-US")) o.badtext.push(tr.dataset.key);
			m[tr.dataset.key] = Number(td.dataset.n);
		}
		o.tables[t.dataset.figure] = m;
	}
	for (const s of document.querySelectorAll("svg[data-chart]"))
		o.charts[s.dataset.chart] = [...s.querySelectorAll("rect[data-n]")].map((r) => {
			const b = r.getBoundingClientRect();
			return [Number(r.dataset.n), b.width, b.height];
		});
	const p = document.querySelector("[data-figure=reasoning_ratio]");
	o.ratio = p ? p.dataset.n : null;
	return o;
})()'

# check_report SUMMARY DOM: the page's figures are the summary line's.
check_report() {
	python3 - "$1" "$2" <<'EOF'
import json, sys

s = json.load(open(sys.argv[1]))
d = json.loads(open(sys.argv[2]).readline())
bad = []

def same(what, got, want):
    if got != want:
        bad.append("%s: page %r, summary %r" % (what, got, want))

t = d["tables"]
for k in ("records", "errors", "input_lines", "input_bytes", "tokens", "messages", "warnings", "truncated"):
    same("overview " + k, t["overview"].get(k), s[k])
for k in ("tokens_min", "tokens_p50", "tokens_p90", "tokens_p99", "tokens_max"):
    same(k, t["percentiles"].get(k), s[k])
for k in ("channel_tokens", "channels", "recipients", "tool_calls", "terminators", "recoveries"):
    same(k, t[k], s[k])
same("reasoning", t["reasoning"], {"reasoning_tokens": s["reasoning_tokens"],
                                   "other_tokens": s["tokens"] - s["reasoning_tokens"]})
same("reasoning_ratio", d["ratio"], "%.4f" % s["reasoning_ratio"])
same("truncation", t["truncation"], {"truncated": s["truncated"],
                                     "whole": s["records"] - s["truncated"]})

# the histogram's bins: four to a power of two, each the sum of its buckets
def bin_of(v):
    if v < 4:
        return v
    e = v.bit_length() - 1
    return 4 + (e - 2) * 4 + ((v >> (e - 2)) & 3)

def bin_lo(k):
    return k if k < 4 else (4 + (k - 4) % 4) << ((k - 4) // 4)

def bin_name(k):
    lo, hi = bin_lo(k), bin_lo(k + 1) - 1
    return str(lo) if lo == hi else "%d-%d" % (lo, hi)

bins = {}
for lo, n in s["tokens_hist"].items():
    bins[bin_of(int(lo))] = bins.get(bin_of(int(lo)), 0) + n
want = {bin_name(k): bins.get(k, 0) for k in range(min(bins), max(bins) + 1)}
same("tokens_bins", t["tokens_bins"], want)
same("histogram total", sum(t["tokens_bins"].values()), s["records"])

# each chart draws its table's numbers, in order, a larger one no smaller
for name, bars in d["charts"].items():
    same("chart " + name, [b[0] for b in bars], list(t[name].values()))
    size = [b[2] if name == "tokens_bins" else b[1] for b in bars]
    for i, (n, z) in enumerate(zip([b[0] for b in bars], size)):
        if (n == 0) != (z == 0):
            bad.append("chart %s bar %d: %d drawn %.1f" % (name, i, n, z))
        for m, y in zip([b[0] for b in bars], size):
            if n > m and z < y:
                bad.append("chart %s: %d drawn smaller than %d" % (name, n, m))
for name in ("tokens_bins", "channel_tokens", "channels", "terminators", "truncation", "reasoning"):
    if name not in d["charts"]:
        bad.append("no chart " + name)
if d["badtext"]:
    bad.append("cells whose text is not their number: %r" % d["badtext"])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

@test "report: the charts' and tables' numbers are the summary line's, no console error, not blank" {
	need_browser
	python3 bench/gen_log.py --records 400 --seed 11 >"$T/log"
	harmony-parse -q --to stats --summary "$T/log" >"$T/summary"
	# the log has what every chart shows
	jq -e '.recoveries != {} and .truncated > 0 and .tool_calls != {} and .reasoning_tokens > 0' "$T/summary"
	run harmony-parse -q --to report "$T/log"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/report.html"
	browse "$T/report.html" --eval "$REPORT_DOM" --screenshot "$T/report.png"
	check_report "$T/summary" "$T/dom"
}

@test "report: axes with ticks and units, separators, percentiles drawn, 13 px at phone width, whole names, legends, the records behind the charts" {
	need_browser
	python3 bench/gen_log.py --records 2000 --seed 11 >"$T/log"
	harmony-parse -q --to stats --summary "$T/log" >"$T/summary"
	harmony-parse -q --to report "$T/log" >"$T/report.html"
	# the page at a phone's width
	"$HARNESS" --size 390x800 "$T/report.html" --eval '(() => {
		const o = {};
		/* every chart: its ticks rising from 0, its unit under them */
		o.ticks = [...document.querySelectorAll("svg[data-chart]")].map((s) => {
			const t = [...s.querySelectorAll("text[data-tick]")].map((e) => Number(e.dataset.tick));
			return [s.dataset.chart, t.length >= 2 && t[0] === 0 && t.every((v, i) => !i || v > t[i - 1]),
			    t.length ? [...s.querySelectorAll("text[data-tick]")].pop().textContent : ""];
		});
		o.units = [...document.querySelectorAll("svg[data-chart] g.ticks")].map((g) => g.lastElementChild.textContent);
		o.pct = [...document.querySelectorAll("text[data-pct]")].map((e) => e.textContent);
		/* the smallest text on the page, as drawn (a chart is never scaled down) */
		let min = 99;
		for (const e of document.querySelectorAll("svg text, td, th, p, li, dt, dd, caption")) {
			const f = parseFloat(getComputedStyle(e).fontSize);
			const svg = e.closest("svg");
			const k = svg ? svg.getBoundingClientRect().width / svg.width.baseVal.value : 1;
			min = Math.min(min, f * k);
		}
		o.min = min;
		o.labels = [...document.querySelectorAll("svg[data-chart=recipients] g:not(.ticks) > text:first-of-type")].map((e) => e.textContent);
		o.codes = [...document.querySelectorAll("dl[aria-label=\"failure modes\"] dt")].map((e) => e.textContent);
		o.terms = [...document.querySelectorAll("dl[aria-label=terminators] dt")].map((e) => e.textContent);
		o.longest = [...document.querySelectorAll("[data-top=longest] li")].map((e) => e.textContent);
		o.recovered = [...document.querySelectorAll("[data-top=recovered] li code")].map((e) => JSON.parse(e.textContent));
		o.truncated = [...document.querySelectorAll("[data-top=truncated] li code")].map((e) => JSON.parse(e.textContent));
		o.main = document.querySelectorAll("main").length;
		return JSON.stringify(o);
	})()' >"$T/dom"
	d=$(jq -r . "$T/dom")
	echo "$d" | jq -c .
	# each chart: rising ticks from 0, the last with thousands separators where due
	[ "$(jq '[.ticks[] | select(.[1] | not)] | length' <<<"$d")" -eq 0 ]
	[ "$(jq -r '.ticks[] | select(.[0] == "channel_tokens") | .[2]' <<<"$d")" = 800,000 ]
	[ "$(jq -c .units <<<"$d")" = '["records","tokens","tokens","messages","messages","calls","records","recoveries (warnings)","records"]' ]
	# the percentiles on the chart, their values the summary's
	want=$(jq -r '"p50 = \(.tokens_p50) p90 = \(.tokens_p90) p99 = \(.tokens_p99)"' "$T/summary")
	[ "$(jq -r '.pct | join(" ")' <<<"$d")" = "$want" ]
	[ "$(jq .min <<<"$d")" -ge 12 ]
	# names whole: functions.get_weather, no ellipsis
	[ "$(jq -r '.labels | join(" ")' <<<"$d")" = "$(jq -r '.recipients | keys | join(" ")' "$T/summary")" ]
	# a legend entry for each failure mode the log has, and every terminator
	[ "$(jq -r '.codes | join(" ")' <<<"$d")" = "$(jq -r '.recoveries | keys | sort_by(.[1:] | tonumber) | join(" ")' "$T/summary")" ]
	[ "$(jq -r '.terms | join(" ")' <<<"$d")" = "return call end eos none" ]
	# the records behind the charts: the longest are the log's longest
	want=$(jq -r '"\(.id) \(.output_ids | length)"' "$T/log" | sort -k2,2nr -s | head -n 10 |
	    awk '{ printf "%s\"%s\" (%s tokens)", (NR > 1 ? "|" : ""), $1, $2 }')
	[ "$(jq -r '.longest | join("|")' <<<"$d" | sed 's/,//g')" = "$want" ]
	# the records with recoveries and the truncated ones are the events' own
	harmony-parse --to events "$T/log" 2>/dev/null | jq -r 'select(.type == "warning") | .id' | uniq >"$T/warned"
	# (each has one recovery, F10, so the most are the first ten; the
	# truncated ones are the same records, cut off)
	[ "$(jq -r '.recovered[]' <<<"$d")" = "$(head -n 10 "$T/warned")" ]
	[ "$(jq -r '.truncated[]' <<<"$d")" = "$(head -n 10 "$T/warned")" ]
	[ "$(jq .main <<<"$d")" -eq 1 ]
}

@test "diff --to html: the keyboard goes from difference to difference and from message to message" {
	need_browser
	harmony-tokens diff --to html --context=1 $F/places-a.ids $F/places-b.ids >"$T/d.html" || true
	K='var K = (k) => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true })); var W = () => document.activeElement.closest("section").dataset.token + " " + document.activeElement.dataset.i + " " + document.activeElement.matches(".first .tk");'
	browse "$T/d.html" --key Tab --key Tab \
	    --eval 'document.activeElement.dataset.i' \
	    --eval "$K K('d'); W()" \
	    --eval 'K("d"); K("d"); W()' \
	    --eval 'K("D"); W()' \
	    --eval 'K("ArrowDown"); document.activeElement.dataset.id' \
	    --eval '(() => { const b = document.activeElement.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight; })()' \
	    --screenshot "$T/d.png"
	# the sections' first differences, in the page's order: tokens 1 3 4 12 14 8
	[ "$(sed -n 1p "$T/dom")" = '"0"' ]
	[ "$(sed -n 2p "$T/dom")" = '"3 3 true"' ]
	[ "$(sed -n 3p "$T/dom")" = '"12 12 true"' ]
	[ "$(sed -n 4p "$T/dom")" = '"4 4 true"' ]
	# down: the next message's <|start|>
	[ "$(sed -n 5p "$T/dom")" = '"200006"' ]
	[ "$(sed -n 6p "$T/dom")" = true ]
}

@test "report and diff pages: axe-core finds no violation" {
	need_browser
	python3 bench/gen_log.py --records 300 --seed 3 | harmony-parse -q --to report >"$T/r.html"
	harmony-tokens diff --to html --context=1 $F/places-a.ids $F/places-b.ids >"$T/d.html" || true
	for f in r d; do
		run "$ROOT/tests/lib/axe-page" "$T/$f.html" "$T/$f.axe.html"
		[ "$status" -ne 77 ] || skip "$(printf '%s' "$output" | head -n 1)"
		[ "$status" -eq 0 ]
		browse "$T/$f.axe.html" --eval 'axe.run(document).then(r => r.violations.map(v => v.id + " " + v.nodes.length + " " + v.nodes[0].target.join(" ")).join("; "))' --screenshot "$T/$f.png"
		echo "$f: $(head -n 1 "$T/dom")"
		[ "$(head -n 1 "$T/dom")" = '""' ]
	done
}

@test "report --merge: the parts' summaries give the page of the whole log" {
	need_browser
	python3 bench/gen_log.py --records 300 --seed 5 >"$T/log"
	harmony-parse -q --to stats --summary "$T/log" >"$T/summary"
	split -l 70 "$T/log" "$T/part."
	for p in "$T"/part.*; do harmony-parse -q --to stats --summary "$p"; done >"$T/sums"
	[ "$(wc -l <"$T/sums")" -eq 5 ]
	run harmony-parse --merge --to report "$T/sums"
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" >"$T/merged.html"
	browse "$T/merged.html" --eval "$REPORT_DOM" --screenshot "$T/merged.png"
	check_report "$T/summary" "$T/dom"
	# the same page as from the log itself, byte for byte, but for the lists
	# of records (a line each), which a summary line does not hold
	harmony-parse -q --to report "$T/log" | grep -v '^<div class="top"' >"$T/log.html"
	grep -v '^<div class="top"' "$T/merged.html" | cmp - "$T/log.html"
	[ "$(grep -c '^<div class="top" .*: not known (the summaries merged do not name their records)</p></div>$' "$T/merged.html")" -eq 3 ]
}

@test "report: text records have no token figures; a merged part that did not say its input shows none" {
	need_browser
	printf '%s\n' '<|channel|>final<|message|>Hi<|return|>' '<|channel|>analysis<|message|>x' >"$T/text"
	harmony-parse -q --lines --from text --to report "$T/text" >"$T/text.html"
	browse "$T/text.html" --eval '[document.querySelectorAll("[data-figure=tokens_bins],[data-figure=channel_tokens]").length, document.querySelector("tr[data-key=records] td").dataset.n, document.querySelector("tr[data-key=tokens]") === null, document.querySelector("[data-figure=truncation] tr[data-key=truncated] td").dataset.n]' --screenshot "$T/text.png"
	[ "$(head -n 1 "$T/dom")" = '[0,"2",true,"1"]' ]
	# a summary without input_lines, input_bytes (as written before they were counted)
	echo '[200005,17196,200008,19,200002]' | harmony-parse --to stats --summary | jq -c 'del(.input_lines, .input_bytes)' >"$T/old"
	harmony-parse --merge --to report "$T/old" >"$T/old.html"
	browse "$T/old.html" --eval '[document.querySelector("tr[data-key=input_lines]") === null, document.querySelector("tr[data-key=records] td").textContent]' --screenshot "$T/old.png"
	[ "$(head -n 1 "$T/dom")" = '[true,"1"]' ]
}

@test "report: goes with --merge and --summary, not with --pretty; a bad record is on stderr only" {
	run harmony-parse --to report --pretty /dev/null
	[ "$status" -eq 2 ]
	run harmony-parse --to report --summary /dev/null
	[ "$status" -eq 0 ]
	[[ $output == *'<svg'* || $output == *'no records'* ]]
	printf '%s\n' '{"output_ids":[200005,17196,200008,19,200002]}' '{"output_ids":"x"}' >"$T/log"
	harmony-parse --to report "$T/log" >"$T/out" 2>"$T/err" && st=0 || st=$?
	[ "$st" -eq 1 ]
	grep -q 'log:2' "$T/err"
	! grep -q '"error"' "$T/out"
	grep -q '<tr data-key="records"><th scope="row">records</th><td data-n="1">' "$T/out"
	tail -n 1 "$T/out" | grep -qx '</html>'
}

# ---------------------------------------------------------------- diff

# Each record's part of a diff page: its head line, its "in:" lines (their
# text and data), the token index, the folds (open or not, how many tokens
# they hold, how many are on screen), the first differing boxes' tops.
DIFF_DOM='[...document.querySelectorAll("section.diff")].map((s) => {
	const vis = (e) => e.checkVisibility();
	const firsts = [...s.querySelectorAll(".side .first")].map((e) => Math.round(e.getBoundingClientRect().top));
	return {
		kind: s.dataset.kind, token: s.dataset.token === undefined ? null : Number(s.dataset.token),
		head: s.querySelector("h2").textContent,
		ins: [...s.querySelectorAll("p.in")].map((p) => ({ text: p.textContent, side: p.dataset.side,
			part: p.dataset.part, message: Number(p.dataset.message), role: p.dataset.role || null,
			recipient: p.dataset.recipient || null, channel: p.dataset.channel || null,
			unfinished: p.dataset.unfinished === "1" })),
		folds: [...s.querySelectorAll("details.fold.same")].map((d) => [d.open, Number(d.dataset.tokens),
			d.querySelectorAll(".tk").length, [...d.querySelectorAll(".tk")].filter(vis).length]),
		firsts: firsts,
		drift: s.querySelector("p.drift") ? [s.querySelector("p.drift").dataset.drift,
			s.querySelector("p.drift").textContent, s.querySelector("p.drift").dataset.byte === undefined ?
			null : Number(s.querySelector("p.drift").dataset.byte)] : null,
		shown: [...s.querySelectorAll(".tk")].filter(vis).length,
	};
})'

# check_diff TEXT JSON DOM: the page's records say what the text and JSON reports say.
check_diff() {
	python3 - "$@" <<'EOF'
import json, re, sys

text = open(sys.argv[1]).read().splitlines()
reports = [json.loads(l) for l in open(sys.argv[2]) if json.loads(l)["type"] != "summary"]
page = json.loads(open(sys.argv[3]).readline())
bad = []

# the text report: a head line, then "- ids:" ..., then its "in:" lines
recs = []
for line in text:
    m = re.match(r"^([-+ ]) in:\s+(.*)$", line)
    d = re.match(r"^  drift: (.*)$", line)
    if d:
        recs[-1]["drift"] = d.group(1)
    elif m:
        recs[-1]["ins"].append(("in: " if m.group(1) == " " else m.group(1) + " in: ") + m.group(2))
    elif line.startswith("prefix: "):
        pass
    elif not re.match(r"^[-+] (ids|text):", line):
        recs.append({"head": line, "ins": [], "drift": None})
if len(recs) != len(page) or len(reports) != len(page):
    bad.append("records: text %d, json %d, page %d" % (len(recs), len(reports), len(page)))

def place(p):
    return {k: p[k] for k in ("part", "message", "role", "recipient", "channel", "unfinished")}

for r, j, p in zip(recs, reports, page):
    if p["head"] != r["head"]:
        bad.append("head: page %r, text %r" % (p["head"], r["head"]))
    if [i["text"] for i in p["ins"]] != r["ins"]:
        bad.append("in: page %r, text %r" % ([i["text"] for i in p["ins"]], r["ins"]))
    if p["kind"] != j["type"]:
        bad.append("kind: page %r, json %r" % (p["kind"], j["type"]))
    if j["type"] in ("differ", "length"):
        if p["token"] != j["token"]:
            bad.append("token: page %r, json %r" % (p["token"], j["token"]))
        for i in p["ins"]:
            want = j["a" if i["side"] in ("a", "both") else "b"]["place"]
            if place(i) != place(want):
                bad.append("place: page %r, json %r" % (place(i), want))
            if i["side"] == "both" and j["a"]["place"] != j["b"]["place"]:
                bad.append("one place for two: %r" % j)
        # the drift: named as the text report and the JSON name it
        label = "Retokenized " if j["drift"] == "retokenization" else "Text changed "
        if p["drift"] != [j["drift"], label + (r["drift"] or ""), j.get("text_byte")]:
            bad.append("drift: page %r, text %r, json %r" % (p["drift"], r["drift"], j["drift"]))
        # aligned: both sides' first differing boxes on one row
        if len(p["firsts"]) != 2 or p["firsts"][0] != p["firsts"][1]:
            bad.append("not aligned: %r" % p["firsts"])
    # folded: closed, and not drawn (a fold's boxes are made when it opens)
    for f in p["folds"]:
        if f[0] or f[2] != 0 or f[3] != 0 or f[1] == 0:
            bad.append("fold not folded: %r in %r" % (f, p["head"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
}

@test "diff --to html: each record's head, place and token index are the text and JSON reports'; shared runs folded" {
	need_browser
	run harmony-tokens diff --context=1 $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/text"
	harmony-tokens diff --context=1 --to json $F/places-a.ids $F/places-b.ids >"$T/json" || true
	run harmony-tokens diff --context=1 --to html $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/diff.html"
	browse "$T/diff.html" --eval "$DIFF_DOM" --screenshot "$T/diff.png"
	check_diff "$T/text" "$T/json" "$T/dom"
	# six records, each with what both share before and after folded
	[ "$(head -n 1 "$T/dom" | jq length)" -eq 6 ]
	[ "$(head -n 1 "$T/dom" | jq '[.[].folds | length] | add')" -eq 10 ]
}

@test "diff --to html: a long shared run is folded until opened; the context and the difference are shown" {
	need_browser
	a=($(tail -n 1 $F/turns-next.ids))
	n=${#a[@]}
	[ "$n" -gt 200 ]
	b=("${a[@]}")
	b[80]=$(( (${b[80]} + 1) % 199998 ))
	echo "${a[*]}" >"$T/a"
	echo "${b[*]}" >"$T/b"
	harmony-tokens diff --context=3 "$T/a" "$T/b" >"$T/text" || true
	harmony-tokens diff --context=3 --to json "$T/a" "$T/b" >"$T/json" || true
	harmony-tokens diff --context=3 --to html "$T/a" "$T/b" >"$T/long.html" || true
	browse "$T/long.html" --eval "$DIFF_DOM" --click 'details.fold.same summary' --wait 300 --eval "$DIFF_DOM" --screenshot "$T/long.png"
	head -n 1 "$T/dom" >"$T/closed"
	check_diff "$T/text" "$T/json" "$T/closed"
	# before: 77 tokens folded, 3 of context, 1 a side, then 3 and the rest folded
	[ "$(jq -c '.[0].folds' "$T/closed")" = "[[false,77,0,0],[false,$((n - 84)),0,0]]" ]
	[ "$(jq '.[0].shown' "$T/closed")" -eq 8 ]
	# opened by a click: its 77 boxes on screen, the other still folded
	[ "$(sed -n 2p "$T/dom" | jq -c '.[0].folds')" = "[[true,77,77,77],[false,$((n - 84)),0,0]]" ]
}

@test "diff --to html: two 200,000-token prompts stay under 40 bytes a token; a fold draws its own tokens when opened" {
	"$ROOT/tests/lib/big-prompt" "$T/big.txt"
	harmony-tokens encode "$T/big.txt" >"$T/a.ids"
	python3 -c 'import sys; a = open(sys.argv[1]).read().split(); open(sys.argv[2], "w").write(" ".join(a[:100000] + ["1234"] + a[100000:]) + "\n")' \
	    "$T/a.ids" "$T/b.ids"
	n=$(wc -w <"$T/a.ids")
	[ "$n" -gt 200000 ]
	harmony-tokens diff --to html "$T/a.ids" "$T/b.ids" >"$T/big.html" || true
	size=$(wc -c <"$T/big.html")
	echo "$size bytes, $n tokens"
	[ "$size" -le $((40 * n)) ]
	need_browser
	browse "$T/big.html" --click 'details.fold.same summary' --wait 500 \
	    --eval '(() => { const f = document.querySelector("details.fold.same"), b = [...f.querySelectorAll(".tk")];
		return [b.length, Number(f.dataset.tokens), b.slice(0, 50).map((e) => Number(e.dataset.id)),
			b.map((e) => Number(e.dataset.i)).every((v, k) => v === k)]; })()' \
	    --screenshot "$T/big.png"
	# the first fold: the tokens before the context (about 100,000), each drawn, its own id at its own index
	[ "$(head -n 1 "$T/dom" | jq '.[0]')" -gt 99900 ]
	[ "$(head -n 1 "$T/dom" | jq '.[0] == .[1]')" = true ]
	[ "$(head -n 1 "$T/dom" | jq -c '.[2]')" = "[$(head -c 2000 "$T/a.ids" | tr ' ' '\n' | head -n 50 | paste -sd,)]" ]
	[ "$(head -n 1 "$T/dom" | jq '.[3]')" = true ]
}

@test "diff --to html: --key, records on one side only, --prefix with its closing line" {
	need_browser
	harmony-tokens diff --key=id $F/log-a.ndjson $F/log-b.ndjson >"$T/text" || true
	harmony-tokens diff --key=id --to json $F/log-a.ndjson $F/log-b.ndjson >"$T/json" || true
	run harmony-tokens diff --key=id --to html $F/log-a.ndjson $F/log-b.ndjson
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" >"$T/key.html"
	browse "$T/key.html" --eval "$DIFF_DOM" --screenshot "$T/key.png"
	check_diff "$T/text" "$T/json" "$T/dom"
	[ "$(head -n 1 "$T/dom" | jq -c '[.[].kind]')" = '["differ","only_a","only_b"]' ]
	# --prefix: the closing line ends the page
	harmony-tokens diff --prefix $F/turns-prev.ids $F/turns-next.ids >"$T/text" || true
	harmony-tokens diff --prefix --to json $F/turns-prev.ids $F/turns-next.ids >"$T/json" || true
	harmony-tokens diff --prefix --to html $F/turns-prev.ids $F/turns-next.ids >"$T/prefix.html" || true
	browse "$T/prefix.html" --eval "$DIFF_DOM" --eval 'document.querySelector(".sum.note").textContent' --screenshot "$T/prefix.png"
	head -n 1 "$T/dom" >"$T/first"
	check_diff "$T/text" "$T/json" "$T/first"
	[ "$(sed -n 2p "$T/dom")" = "\"$(tail -n 1 "$T/text")\"" ]
}

@test "diff --to html: the exit status is the other forms': 0 equal, 1 different or bad, 2 usage, 3 unreadable" {
	run harmony-tokens diff --to html $F/recorded.ids $F/recorded.ids
	[ "$status" -eq 0 ]
	[[ $output == *'data-reports="0">No record differs.'* ]]
	[[ $output != *'<section'* ]]
	run harmony-tokens diff --to html $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	[ "$(grep -c '<section class="diff"' <<<"$output")" -eq 6 ]
	# quiet: no page, the status alone
	run harmony-tokens diff -q --to html $F/places-a.ids $F/places-b.ids
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# a bad record: on stderr, the page without it
	printf '1 2 x\n' >"$T/bad"
	harmony-tokens diff --to html "$T/bad" "$T/bad" >"$T/out" 2>"$T/err" && st=0 || st=$?
	[ "$st" -eq 1 ]
	grep -q "$T/bad:1" "$T/err"
	tail -n 1 "$T/out" | grep -qx '</html>'
	run harmony-tokens diff --to html --lines $F/recorded.ids $F/recorded.ids
	[ "$status" -eq 2 ]
	run harmony-tokens diff --to table $F/recorded.ids $F/recorded.ids
	[ "$status" -eq 2 ]
	run harmony-tokens diff --to html "$T/nonexistent" $F/recorded.ids
	[ "$status" -eq 3 ]
}

# ---------------------------------------------------------------- faults

# sweep COMMAND...: every allocation of it failed in turn (tests/faults/sweep,
# as faults.bats does): the undisturbed output or "out of memory" and exit 3.
sweep() {
	local out
	out=$(python3 tests/faults/sweep -- "$@" 2>&1) || { echo "$*: $out"; return 1; }
	case $out in "ok 0 allocations") echo "$*: no allocation"; return 1 ;; esac
}

@test "faults: both pages survive each allocation failing in turn" {
	# the sweep's LD_PRELOAD allocator and AddressSanitizer's do not mix
	[ -z "${HM_SANITIZE:-}" ] || skip "the fault sweeps run in make check, not under the sanitizers"
	[ -f build/tests/failmalloc.so ] || { echo "build/tests/failmalloc.so missing: make unit builds it"; return 1; }
	sweep harmony-tokens diff --to=html fixtures/diff/places-a.ids fixtures/diff/places-b.ids
	sweep harmony-tokens diff --to=html --key id fixtures/diff/log-a.ndjson fixtures/diff/log-b.ndjson
	sweep harmony-tokens diff --to=html --prefix fixtures/diff/turns-prev.ids fixtures/diff/turns-next.ids
	sweep harmony-parse --to report fixtures/diff/log-a.ndjson
	harmony-parse --to stats --summary fixtures/diff/log-a.ndjson >"$T/a"
	harmony-parse --to stats --summary fixtures/diff/log-b.ndjson >"$T/b"
	sweep harmony-parse --merge --to report "$T/a" "$T/b"
}
