#!/usr/bin/env bats
# html.bats - the HTML pages of harmony-tokens inspect, harmony-render and
# harmony-parse (--to html), opened in headless Chromium (tests/lib/browser):
# the DOM read back against what the tools say (token counts, messages,
# recoveries), hover, keyboard and search, no console error, a screenshot
# that is not blank, and a 200,000-token prompt that stays small and
# scrolls to its end.  Without node or chromium (tools/install-deps test
# installs both) the browser tests skip, saying why.

load helpers

setup() {
	hm_setup
	D=$BATS_TEST_TMPDIR
}

# Skip unless a browser can run here.
need_browser() {
	lite_skip "the browser tests"
	command -v node >/dev/null 2>&1 || skip "no node (tools/install-deps test installs nodejs)"
	[ -x "${CHROMIUM:-/usr/bin/chromium}" ] ||
		skip "no chromium (tools/install-deps test installs it)"
}

# tests/lib/browser PAGE STEP...: output in $output, one line a step;
# a browser that cannot start (status 3) skips the test with its reason.
browse() {
	run "$ROOT/tests/lib/browser" "$@"
	if [ "$status" -eq 3 ]; then
		skip "the browser could not run: $(printf '%s' "$output" | tail -n 3 | tr '\n' ' ')"
	fi
	[ "$status" -eq 0 ] || { echo "browser: status $status"; echo "$output"; return 1; }
}

# Line N (from 1) of $output.
line() {
	printf '%s\n' "$output" | sed -n "$1p"
}

MSGS_JS='JSON.stringify([...document.querySelectorAll(".msg:not(.out)")].map(e => [e.dataset.role, e.dataset.name ?? null, e.dataset.channel ?? null, e.dataset.recipient ?? null, e.dataset.ctype ?? null]))'
MSGS_JQ='map([.role, .name, .channel, .recipient, .content_type])'

@test "pages: one self-contained file, nothing fetched" {
	harmony-tokens inspect --to html fixtures/demo/prompt.txt >"$D/i.html"
	harmony-render --to html fixtures/demo/chat.json >"$D/r.html"
	harmony-parse --to html fixtures/demo/completion.ids >"$D/p.html"
	for f in i r p; do
		head -n 1 "$D/$f.html" | grep -qx '<!DOCTYPE html>'
		grep -q '<meta charset="utf-8">' "$D/$f.html"
		grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$D/$f.html"
		tail -n 1 "$D/$f.html" | grep -qx '</html>'
		# no src or href at all: nothing to load from anywhere
		run grep -E -c '(src|href)=' "$D/$f.html"
		[ "$output" = 0 ]
	done
}

@test "harmony-tokens inspect --to html: the boxes and messages are the prompt's" {
	need_browser
	harmony-tokens inspect --to html fixtures/demo/prompt.txt >"$D/i.html"
	n=$(harmony-tokens count fixtures/demo/prompt.txt)
	want=$(harmony-parse --role none fixtures/demo/prompt.txt | jq -s -c "$MSGS_JQ")
	browse "$D/i.html" \
	    --eval 'document.querySelectorAll(".hv .tk").length' \
	    --eval 'Number(document.querySelector("section.rec").dataset.n)' \
	    --eval "$MSGS_JS" \
	    --eval 'document.getElementById("hm-total").textContent' \
	    --screenshot "$D/i.png"
	[ "$(line 1)" = "$n" ]
	[ "$(line 2)" = "$n" ]
	[ "$(line 3)" = "$(jq -R <<<"$want")" ]
	[ "$(line 4)" = "\"total: $n tokens, 4 messages\"" ]
	# a screenshot with something on it (browser exits 1 on a blank one)
	[ "$(line 5 | jq .colors)" -gt 10 ]
	[ "$(line 6)" = "" ]
}

@test "inspect --to html: special tokens and whitespace are set apart, not by colour alone" {
	need_browser
	printf '<|start|>user<|message|>a b\tc\n<|end|>' | harmony-tokens inspect --to html >"$D/w.html"
	browse "$D/w.html" \
	    --eval '[...document.querySelectorAll(".tk.sp")].map(e => e.textContent).join(" ")' \
	    --eval 'getComputedStyle(document.querySelector(".tk.sp")).borderTopStyle' \
	    --eval 'getComputedStyle(document.querySelector(".tk.sp")).fontWeight' \
	    --eval 'getComputedStyle(document.querySelector(".tk:not(.sp)")).borderTopStyle' \
	    --eval '[...document.querySelectorAll(".tk .ws")].map(e => e.textContent).join("")'
	[ "$(line 1)" = '"<|start|> <|message|> <|end|>"' ]
	[ "$(line 2)" = '"double"' ]
	[ "$(line 3)" = '"700"' ]
	[ "$(line 4)" = '"solid"' ]
	# space, tab and newline drawn (middle dot, arrow, return arrow)
	[ "$(line 5)" = '"·→↵"' ]
}

@test "inspect --to html: hover and keyboard show a token's index and id" {
	need_browser
	harmony-tokens inspect --to html fixtures/demo/prompt.txt >"$D/i.html"
	id5=$(harmony-tokens encode fixtures/demo/prompt.txt | awk '{ print $6 }')
	id6=$(harmony-tokens encode fixtures/demo/prompt.txt | awk '{ print $7 }')
	browse "$D/i.html" \
	    --hover '.tk[data-i="5"]' \
	    --eval 'document.getElementById("hm-tip").textContent' \
	    --key Tab --key Tab --key Tab --key Tab \
	    --eval 'document.activeElement.dataset.i' \
	    --key ArrowRight --key ArrowRight --key ArrowRight --key ArrowRight \
	    --key ArrowRight --key ArrowRight --key ArrowRight --key ArrowLeft \
	    --eval 'document.getElementById("hm-tip").textContent' \
	    --key ArrowDown \
	    --eval 'document.activeElement.dataset.i' \
	    --key End \
	    --eval 'document.activeElement.dataset.i'
	[[ "$(line 1)" == "\"token 5  id $id5  "* ]]
	[[ "$(line 1)" == *"message 1 (system)\"" ]]
	[ "$(line 2)" = '"0"' ]
	# seven steps right, one back: token 6
	[[ "$(line 3)" == "\"token 6  id $id6  "* ]]
	# down: the next message's first token; End: the last token
	first2=$(harmony-tokens inspect --to html fixtures/demo/prompt.txt |
	    grep -o '"m":\[\[[0-9]*,[0-9]*' | sed 's/.*,//')
	[ "$(line 4)" = "\"$first2\"" ]
	n=$(harmony-tokens count fixtures/demo/prompt.txt)
	[ "$(line 5)" = "\"$((n - 1))\"" ]
}

@test "inspect --to html: search finds a token by id and by text" {
	need_browser
	harmony-tokens inspect --to html fixtures/demo/prompt.txt >"$D/i.html"
	browse "$D/i.html" \
	    --click '#hm-q' --type 'arithmetic' --key Enter \
	    --eval 'document.activeElement.dataset.i + " " + document.activeElement.textContent' \
	    --eval 'document.getElementById("hm-qn").textContent' \
	    --eval 'document.querySelectorAll(".tk.hit").length' \
	    --eval 'document.getElementById("hm-q").value = ""' \
	    --click '#hm-q' --type '200007' --key Enter \
	    --eval 'document.getElementById("hm-qn").textContent' \
	    --eval 'document.activeElement.dataset.id' \
	    --eval 'document.getElementById("hm-q").value = ""' \
	    --click '#hm-q' --type 'What is 2' --key Enter \
	    --eval '[...document.querySelectorAll(".tk.hit")].map(e => e.dataset.i).join(" ")'
	# " arithmetic" is one token, the 68th
	want=$(harmony-tokens inspect fixtures/demo/prompt.txt | awk '/" arithmetic"$/ { print $1 }')
	[ -n "$want" ]
	[ "$(line 1)" = "\"$want ·arithmetic\"" ]
	[ "$(line 2)" = '"match 1 of 1"' ]
	[ "$(line 3)" = 1 ]
	# <|end|> (200007) ends three of the four messages
	[ "$(line 5)" = '"match 1 of 3"' ]
	[ "$(line 6)" = '"200007"' ]
	# text across tokens: each token it covers is marked
	[ "$(line 8)" = '"53 54 55 56"' ]
}

@test "harmony-render --to html: the rendered prompt's tokens and messages" {
	need_browser
	harmony-render --to html fixtures/demo/chat.json >"$D/r.html"
	n=$(harmony-render fixtures/demo/chat.json | wc -w)
	want=$(harmony-render fixtures/demo/chat.json | harmony-parse --role none 2>/dev/null |
	    jq -s -c "$MSGS_JQ")
	browse "$D/r.html" \
	    --eval 'document.querySelectorAll(".hv .tk").length' \
	    --eval "$MSGS_JS" \
	    --eval '[...document.querySelectorAll(".msg.out .mh")].map(e => e.textContent).join()' \
	    --screenshot "$D/r.png"
	[ "$(line 1)" = "$n" ]
	[ "$(line 2)" = "$(jq -R <<<"$want")" ]
	# the prompt ends in <|start|>assistant, for the model to go on
	[[ "$(line 3)" == '"a header not finished · 2 tokens'* ]]
	[ "$(line 4 | jq .colors)" -gt 10 ]
}

@test "harmony-parse --to html: each recovery marked at its token with its F-code" {
	need_browser
	printf '<|start|>assistant<|channel|>final<|message|>Hi<|end|>junk<|start|>assistant to=functions.f<|channel|>analysis<|message|>{"a":1}<|call|><|channel|>final<|message|>cut' |
	    harmony-tokens encode >"$D/c.ids"
	harmony-parse --to html "$D/c.ids" >"$D/c.html" 2>/dev/null
	want=$(harmony-parse --to events "$D/c.ids" 2>/dev/null | n=$(wc -w <"$D/c.ids") jq -r -s \
	    '[.[] | select(.type == "warning") | "\(.code)@\(if .at >= (env.n | tonumber) then (env.n | tonumber) - 1 else .at end)"] | join(" ")')
	[ "$want" = "F18@7 F4@8 F2@23 F10@26" ]
	browse "$D/c.html" \
	    --eval '[...document.querySelectorAll("mark.rtag")].map(e => e.dataset.code + "@" + e.dataset.i).join(" ")' \
	    --eval '[...document.querySelectorAll("mark.rtag")].every(e => e.nextElementSibling.matches(".tk.rec[data-i=\"" + e.dataset.i + "\"]"))' \
	    --eval '[...document.querySelectorAll(".recs li")].map(e => e.textContent).join("|")' \
	    --hover '.tk[data-i="23"]' \
	    --eval 'document.getElementById("hm-tip").textContent' \
	    --click '.recs li:nth-child(4) button' \
	    --eval 'document.activeElement.dataset.i' \
	    --screenshot "$D/c.png"
	[ "$(line 1)" = "\"$want\"" ]
	[ "$(line 2)" = true ]
	[[ "$(line 3)" == *"F2 at token 23 <|channel|> without <|start|>: assistant assumed|F10 at token 27 stream ended inside a message\"" ]]
	[[ "$(line 4)" == *"F2: <|channel|> without <|start|>: assistant assumed\"" ]]
	[ "$(line 5)" = '"26"' ]
	# the recovery's mark is not colour alone: a bordered tag with its code
	[ "$(line 6 | jq .colors)" -gt 10 ]
}

@test "harmony-parse --to html: a section a record, the record's id in its heading" {
	need_browser
	{
		echo '{"id":"r1","output_ids":[200005,17196,200008,19,200002]}'
		echo '{"id":"r2","output_ids":[200005,35644,200008,2500,200007]}'
		echo '{"id":"r3","text":"<|channel|>final<|message|>Hi<|return|>"}'
		echo 'not json'
	} >"$D/log.ndjson"
	run harmony-parse --to html "$D/log.ndjson"
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" | grep -v '^harmony-parse: ' >"$D/log.html"
	browse "$D/log.html" \
	    --eval '[...document.querySelectorAll("section.rec h2")].map(e => e.textContent).join("|")' \
	    --eval '[...document.querySelectorAll(".hv")].map(e => e.querySelectorAll(".tk").length).join(" ")' \
	    --eval 'document.getElementById("hm-total").textContent'
	[ "$(line 1 | jq -r .)" = 'record 1 (id "r1")|record 2 (id "r2")|record 3 (id "r3")|line 4: not read' ]
	# the text record is shown as the tokens the encoder cuts it into
	[ "$(line 2)" = '"5 5 5"' ]
	[ "$(line 3)" = '"total: 15 tokens, 3 messages in 3 records"' ]
}

@test "inspect --to html --lines and render --to html --lines: a section a line, a bad one saying why" {
	printf '1 2 3\nx\n4\n' >"$D/l.ids"
	run harmony-tokens inspect --lines --from ids --to html "$D/l.ids"
	[ "$status" -eq 1 ]
	[ "$(printf '%s\n' "$output" | grep -o '<h2>[^<]*' | sed 's/<h2>//')" = "$D/l.ids line 1
$D/l.ids line 2: bad token id
$D/l.ids line 3" ]
	# the third section holds the one token 4
	[[ "$output" == *'<section class="rec" data-n="1" '*'{"ids":"4",'* ]]
	run harmony-render --to html --lines fixtures/render/two_chat_requests.json
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '<section class="rec" ')" -eq 2 ]
	[[ "$output" == *'<h2>fixtures/render/two_chat_requests.json line 2</h2>'* ]]
}

@test "--to html refuses --pretty, and an empty input is still a whole page" {
	run harmony-parse --to html --pretty fixtures/demo/completion.ids
	[ "$status" -eq 2 ]
	[[ "$output" == *"--pretty goes with the JSON shapes, not --to=html"* ]]
	run harmony-parse --to html </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == '<!DOCTYPE html>'* ]]
	[[ "$output" == *'</html>' ]]
	run harmony-tokens inspect --to html </dev/null
	[ "$status" -eq 0 ]
	[[ "$output" == *'<h2>-</h2>'* ]]
	[[ "$output" == *'</html>' ]]
	run harmony-tokens count --to html fixtures/demo/prompt.txt
	[ "$status" -eq 2 ]
}

@test "a 200,000-token prompt: under 40 bytes a token, and it scrolls to its last token" {
	"$ROOT/tests/lib/big-prompt" "$D/big.txt"
	n=$(harmony-tokens count "$D/big.txt")
	[ "$n" -ge 200000 ]
	harmony-tokens inspect --to html "$D/big.txt" >"$D/big.html"
	size=$(wc -c <"$D/big.html")
	echo "$n tokens, $size bytes"
	[ "$size" -le $((40 * n)) ]
	need_browser
	last=$((n - 1))
	browse "$D/big.html" \
	    --eval 'Number(document.querySelector("section.rec").dataset.n)' \
	    --eval 'document.querySelectorAll(".tk").length' \
	    --eval 'new Promise(r => { let k = 0; const f = () => { scrollTo(0, document.documentElement.scrollHeight); if (++k < 10) setTimeout(f, 100); else r(); }; f(); })' \
	    --eval "(() => { const e = document.querySelector('.tk[data-i=\"$last\"]'); if (!e) return 'not drawn'; const b = e.getBoundingClientRect(); return b.top >= 0 && b.bottom <= innerHeight ? e.textContent : 'off screen'; })()" \
	    --eval 'document.querySelectorAll(".tk").length' \
	    --screenshot "$D/big.png"
	[ "$(line 1)" = "$n" ]
	# drawn lazily: a few thousand boxes at most, not all of them
	[ "$(line 2)" -gt 100 ]
	[ "$(line 2)" -lt 10000 ]
	[ "$(line 4)" = '"assistant"' ]
	[ "$(line 5)" -lt 10000 ]
	[ "$(line 6 | jq .colors)" -gt 10 ]
}

# Keys the harness cannot press (Page Up/Down, Ctrl+Home/End, letters with
# a meaning) are sent as the key events the page listens to; W names where
# the focus is: "index record-heading top-of-box".
KEYS_JS='var K = (k, c) => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: k, ctrlKey: !!c, bubbles: true, cancelable: true })); var W = () => { const e = document.activeElement; return e.dataset.i + " " + e.closest("section").querySelector("h2").textContent.replace(/ .*/, "") + " " + e.closest("section").querySelector("h2").textContent.replace(/^record ([0-9]+).*/, "$1"); }; var SEEN = () => { const e = document.activeElement.getBoundingClientRect(), b = document.querySelector(".bar").getBoundingClientRect(), t = document.getElementById("hm-tip").getBoundingClientRect(); return e.top >= b.bottom && e.bottom <= t.top; };'

# axe-core run over the page: its violations, "rule nodes", none is the goal
AXE_JS='axe.run(document).then(r => r.violations.map(v => v.id + " " + v.nodes.length + " " + v.nodes[0].target.join(" ")).join("; "))'

# PAGE with axe-core inlined into OUT, or the test skipped saying why
axe_page() {
	run "$ROOT/tests/lib/axe-page" "$1" "$2"
	[ "$status" -ne 77 ] || skip "$(printf '%s' "$output" | head -n 1)"
	[ "$status" -eq 0 ]
}

@test "harmony-parse --to html: a 10,000-record log opens in under 3 s (of the renderer's CPU time) and stays responsive" {
	python3 "$ROOT/bench/gen_log.py" --records 10000 >"$D/log.ndjson"
	harmony-parse --to html "$D/log.ndjson" >"$D/log.html" 2>/dev/null || [ $? -eq 1 ]
	echo "$(wc -c <"$D/log.ndjson") bytes of log, $(wc -c <"$D/log.html") of page"
	need_browser
	# the load: the CPU time of the page's renderer up to its first frame
	# after the load event, under 3 s.  (Its wall time is printed too: on a
	# shared machine it says as much about the other jobs as the page; at a
	# load average of 20 on 2 cores the same page took 3.8 to 10.9 s of
	# wall time for 1.6 to 1.9 s of CPU time.)
	run "$ROOT/tests/lib/page-load" "$D/log.html"
	[ "$status" -ne 3 ] || skip "the browser could not run: $(printf '%s' "$output" | tail -n 3 | tr '\n' ' ')"
	[ "$status" -eq 0 ]
	echo "load: $output; load average $(cut -d ' ' -f 1 /proc/loadavg)"
	[ "$(jq .cpu <<<"$output")" -lt 3000 ]
	[ "$(jq .wall <<<"$output")" -gt 0 ]
	browse "$D/log.html" \
	    --eval 'Math.round(performance.getEntriesByType("navigation")[0].loadEventEnd)' \
	    --eval 'document.querySelectorAll("section.rec").length' \
	    --eval 'document.getElementById("hm-total").textContent' \
	    --eval 'document.querySelectorAll(".tk").length' \
	    --eval 'new Promise(r => { const t = performance.now(); scrollTo(0, document.documentElement.scrollHeight / 2); requestAnimationFrame(() => setTimeout(() => r(Math.round(performance.now() - t)), 0)); })' \
	    --wait 300 \
	    --eval 'document.querySelectorAll(".tk").length' \
	    --eval '(() => { const e = document.elementFromPoint(innerWidth / 2, innerHeight / 2); return !!(e && e.closest("section.rec .hv .msg")); })()'
	echo "$output"
	[ "$(line 2)" = 10000 ]
	want=$(harmony-parse --to stats --summary "$D/log.ndjson" 2>/dev/null | jq -r .tokens)
	[[ "$(line 3)" == "\"total: $want tokens, "*" messages in 10000 records\"" ]]
	# a few records drawn, not all of them
	[ "$(line 4)" -gt 100 ]
	[ "$(line 4)" -lt 20000 ]
	# the middle of the log drawn in a frame, and what is there is a record's boxes
	[ "$(line 5)" -lt 500 ]
	[ "$(line 6)" -lt 20000 ]
	[ "$(line 7)" = true ]
}

@test "harmony-parse --to html: past 24 MB the page ends after a whole record, saying how to cut the log, and opens" {
	python3 "$ROOT/bench/gen_log.py" --records 18000 >"$D/log.ndjson"
	run harmony-parse --to html --warnings=all "$D/log.ndjson"
	printf '%s\n' "$output" | grep -v '^harmony-parse: ' >"$D/log.html"
	printf '%s\n' "$output" | grep '^harmony-parse: .*the page is full' >"$D/warn"
	size=$(wc -c <"$D/log.html")
	echo "$size bytes"
	# the note and the warning name the last record on the page
	last=$(grep -o '<h2>The page ends here, after record [0-9]*' "$D/log.html" | grep -o '[0-9]*$')
	[ -n "$last" ]
	[ "$last" -lt 18000 ]
	[ "$(grep -c '<section class="rec" ' "$D/log.html")" -eq "$last" ]
	grep -q "split -l $last LOG part." "$D/log.html"
	[[ "$(cat "$D/warn")" == *"log.ndjson:$((last + 1)): token "*": the page is full (24 MB) after record $last: the records after it are not on it; cut the log (split -l $last) and make a page of each part" ]]
	# a little over the budget (the record that passed it is whole), then the page's end
	[ "$size" -gt $((24 << 20)) ]
	[ "$size" -lt $((25 << 20)) ]
	tail -n 1 "$D/log.html" | grep -qx '</html>'
	# the log cut as told: the first part makes a page of every record in it, no note
	split -l "$last" "$D/log.ndjson" "$D/part."
	harmony-parse --to html "$D/part.aa" 2>/dev/null >"$D/aa.html" || [ $? -eq 1 ]
	! grep -q 'The page ends here' "$D/aa.html"
	[ "$(grep -c '<section class="rec" ' "$D/aa.html")" -eq "$last" ]
	# the page as cut opens in under 3 s of its renderer's CPU time
	need_browser
	run "$ROOT/tests/lib/page-load" "$D/log.html"
	[ "$status" -ne 3 ] || skip "the browser could not run: $(printf '%s' "$output" | tail -n 3 | tr '\n' ' ')"
	[ "$status" -eq 0 ]
	echo "load: $output"
	[ "$(jq .cpu <<<"$output")" -lt 3000 ]
}

@test "pages of many records: the keyboard reaches every token, message and record after a scroll" {
	python3 "$ROOT/bench/gen_log.py" --records 300 >"$D/log.ndjson"
	harmony-parse --to html "$D/log.ndjson" >"$D/log.html" 2>/dev/null || [ $? -eq 1 ]
	n5=$(sed -n 5p "$D/log.ndjson" | jq '.output_ids | length')
	n6=$(sed -n 6p "$D/log.ndjson" | jq '.output_ids | length')
	need_browser
	# the first record that has a recovery (its id is chatcmpl-INDEX)
	rec=$(harmony-parse --to events "$D/log.ndjson" 2>/dev/null |
	    jq -s -r '[.[] | select(.type == "warning")][0].id | ltrimstr("chatcmpl-") | tonumber')
	browse "$D/log.html" \
	    --eval 'scrollBy(0, 20000); scrollY > 19000' \
	    --wait 300 \
	    --key Tab --key Tab --key Tab --key Tab \
	    --eval "$KEYS_JS"' document.activeElement.matches(".tk") && SEEN()' \
	    --eval 'document.activeElement.closest("section").getBoundingClientRect().top < innerHeight' \
	    --eval 'K("Home", 1); W()' \
	    --eval 'K("PageDown"); K("PageDown"); K("PageDown"); K("PageDown"); W()' \
	    --eval 'K("End"); W() + " " + SEEN()' \
	    --key ArrowRight \
	    --eval 'W() + " " + SEEN()' \
	    --key ArrowLeft --key ArrowUp \
	    --eval 'W() + " " + document.activeElement.closest(".msg").dataset.channel' \
	    --key ArrowDown --key ArrowDown \
	    --eval 'W()' \
	    --eval 'K("PageUp"); W()' \
	    --eval 'K("End", 1); W() + " " + SEEN()' \
	    --eval 'K("Home", 1); K("r"); W() + " " + document.activeElement.matches(".rec")' \
	    --eval 'K("R"); W()'
	echo "$output"
	# Tab after the toolbar: a token on the screen, in a record near it
	[ "$(line 2)" = true ]
	[ "$(line 3)" = true ]
	[ "$(line 4)" = '"0 record 1"' ]
	[ "$(line 5)" = '"0 record 5"' ]
	[ "$(line 6)" = "\"$((n5 - 1)) record 5 true\"" ]
	# past a record's last token: the next record's first
	[ "$(line 7)" = '"0 record 6 true"' ]
	# back, then up a message from the final answer: record 5 starts with analysis
	[ "$(line 8)" = "\"0 record 5 analysis\"" ]
	[ "$(line 9)" = '"0 record 6"' ]
	[ "$(line 10)" = '"0 record 5"' ]
	n300=$(sed -n 300p "$D/log.ndjson" | jq '.output_ids | length')
	[ "$(line 11)" = "\"$((n300 - 1)) record 300 true\"" ]
	# r from the start: the first recovery, in the record the events name
	[ -n "$rec" ]
	[[ "$(line 12)" == *" record $((rec + 1)) true\"" ]]
	# R from the first recovery: there is none before it
	[ "$(line 13)" = "$(line 12 | sed 's/ true"$/"/')" ]
}

@test "pages: axe-core finds no violation on the inspect, render and parse pages" {
	need_browser
	harmony-tokens inspect --to html fixtures/demo/prompt.txt >"$D/i.html"
	harmony-render --to html fixtures/demo/chat.json >"$D/r.html"
	printf '<|start|>assistant<|channel|>final<|message|>Hi<|end|>junk<|start|>assistant to=functions.f<|channel|>analysis<|message|>{"a":1}<|call|><|channel|>final<|message|>cut' |
	    harmony-tokens encode >"$D/c.ids"
	harmony-parse --to html "$D/c.ids" >"$D/p.html" 2>/dev/null || true
	for f in i r p; do
		axe_page "$D/$f.html" "$D/$f.axe.html"
		browse "$D/$f.axe.html" --eval "$AXE_JS"
		echo "$f: $output"
		[ "$output" = '""' ]
	done
}

@test "reading a message: its text view, a special token's meaning, a call, a result and the answer told apart, a missing terminator a marked gap" {
	need_browser
	printf '%s' '<|start|>user<|message|>Weather in Paris?<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"city":"Paris"}<|call|><|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"t":20}<|end|><|start|>assistant<|channel|>final<|message|>It is 20 degrees in Paris.<|return|>' |
	    harmony-tokens inspect --to html >"$D/m.html"
	printf '%s' '<|channel|>analysis<|message|>Thinking<|end|><|start|>assistant<|channel|>final<|message|>Cut sh' |
	    harmony-tokens encode >"$D/cut.ids"
	harmony-parse --to html "$D/cut.ids" >"$D/cut.html" 2>/dev/null || true
	browse "$D/m.html" \
	    --eval '[...document.querySelectorAll(".msg:not(.out)")].map(e => (e.dataset.kind || "-") + ":" + getComputedStyle(e).borderLeftStyle + ":" + (e.querySelector(".kind") ? e.querySelector(".kind").textContent : "")).join(" ")' \
	    --click '.msg[data-kind=final] .tv' \
	    --eval 'document.querySelector(".msg[data-kind=final] pre.txt").textContent' \
	    --eval 'document.querySelector(".msg[data-kind=final] .tv").getAttribute("aria-expanded")' \
	    --hover '.tk[data-id="200012"]' \
	    --eval 'document.getElementById("hm-tip").textContent' \
	    --eval 'document.querySelector(".tk[data-id=\"200008\"]").title' \
	    --eval 'var K = (k) => document.activeElement.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true, cancelable: true })); HM.focus(document.querySelector(".msg[data-kind=call] .tk")); K("t"); document.activeElement.matches("pre.txt") + " " + document.activeElement.textContent' \
	    --key Escape \
	    --eval 'document.activeElement.closest(".msg").dataset.kind + " " + document.activeElement.dataset.i' \
	    --eval 'HM.focus(document.querySelector(".tk[data-id=\"200007\"]")); document.getElementById("hm-tip").textContent'
	echo "$output"
	# a word and a border of its own each, not colour alone
	[ "$(line 1)" = '"-:solid: call:dashed:tool call result:double:tool result final:solid:final answer"' ]
	[ "$(line 2)" = '"It is 20 degrees in Paris."' ]
	[ "$(line 3)" = '"true"' ]
	[[ "$(line 4)" == *'special  <|call|>: ends a tool call: the tool runs next'* ]]
	[ "$(line 5)" = "\"ends the header; the message's content follows\"" ]
	[ "$(line 6)" = '"true {\"city\":\"Paris\"}"' ]
	[[ "$(line 7)" == '"call '* ]]
	[[ "$(line 8)" == *'special  <|end|>: ends a message; another may follow'* ]]
	# the cut-off answer: a marked gap after its last token, with the recovery's F-code
	n=$(wc -w <"$D/cut.ids")
	browse "$D/cut.html" \
	    --eval '[...document.querySelectorAll("mark.gap")].map(e => e.dataset.i + " " + e.dataset.code + " " + e.textContent).join("|")' \
	    --eval 'getComputedStyle(document.querySelector("mark.gap")).borderTopStyle' \
	    --eval 'document.querySelector("mark.gap").previousElementSibling.dataset.i'
	[ "$(line 1)" = "\"$((n - 1)) F10 no terminator · F10\"" ]
	[ "$(line 2)" = '"dashed"' ]
	[ "$(line 3)" = "\"$((n - 1))\"" ]
}

@test "a page of every ordinary token once stays under 40 bytes a token" {
	# the worst case for the page's size: no token's text is shared
	seq 0 199997 | harmony-tokens inspect --from ids --to html >"$D/all.html"
	size=$(wc -c <"$D/all.html")
	echo "$size bytes"
	[ "$size" -le $((40 * 199998)) ]
}

@test "tests/lib/browser: a blank page and a page's errors fail the check" {
	need_browser
	printf '<!DOCTYPE html><html><body></body></html>\n' >"$D/blank.html"
	run "$ROOT/tests/lib/browser" "$D/blank.html" --screenshot "$D/blank.png"
	[ "$status" -ne 3 ] || skip "the browser could not run"
	[ "$status" -eq 1 ]
	[[ "$output" == *'"colors":1'* ]]
	printf '<!DOCTYPE html><html><body><p>x</p><script>console.error("boom"); undefinedThing();</script></body></html>\n' >"$D/err.html"
	run "$ROOT/tests/lib/browser" "$D/err.html" --eval '1 + 1'
	[ "$status" -eq 1 ]
	[[ "$output" == *'error: console.error: boom'* ]]
	[[ "$output" == *'undefinedThing is not defined'* ]]
}
