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
	    --eval 'JSON.parse(document.querySelector("script.hm-data").textContent).n' \
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
	    --key Tab --key Tab --key Tab \
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
	[[ "$output" == *'{"n":1,"ids":"4",'* ]]
	run harmony-render --to html --lines fixtures/render/two_chat_requests.json
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '<section class="rec">')" -eq 2 ]
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
	    --eval 'JSON.parse(document.querySelector("script.hm-data").textContent).n' \
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
