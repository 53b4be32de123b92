#!/bin/sh
# tests/sdk/check.sh [--broken] - type-check harmony-parse's chat,
# chat-completion, chat-stream, responses and responses-stream output
# against the TypeScript types of the openai npm package (the same types as
# the Python SDK's), and its anthropic and anthropic-stream output against
# those of @anthropic-ai/sdk.
#
# Every JSON object harmony-parse writes for the inputs below becomes an
# object literal assigned to its SDK type (a Chat choice, a chunk, a
# chat.completion, a Response, the ResponseStreamEvent named by the SSE
# `event:` line, an Anthropic Message, the RawMessageStreamEvent named by
# its `event:` line) and `tsc --noEmit --strict` checks them, excess
# fields included.  The packages (versions pinned in npm.sh) are installed
# with npm into tests/sdk/.cache on first use.
#
# --broken renames one field in the output first: the check must fail.
# Exit status: 0 types check, 1 type errors, 2 not built, 77 skipped (no
# node/npm, or the packages could not be installed).
set -eu
cd "$(dirname "$0")/../.."
. tests/sdk/npm.sh
work=$cache/work
bin=${BIN:-bin}/harmony-parse
broken=0
[ "${1-}" = --broken ] && broken=1

[ -x "$bin" ] || { echo "check.sh: $bin missing: run make first" >&2; exit 2; }
sdk_install
tsc=$cache/node_modules/.bin/tsc
[ -x "$tsc" ] || skip "no tsc in $cache after npm install"

rm -rf "$work"
mkdir -p "$work"
cp "$sdk/wire.ts" "$work/"
cat >"$work/tsconfig.json" <<'JSON'
{
	"compilerOptions": {
		"strict": true,
		"noEmit": true,
		"target": "es2022",
		"module": "nodenext",
		"moduleResolution": "nodenext",
		"skipLibCheck": true,
		"types": []
	},
	"include": ["*.ts"]
}
JSON

# One .ts file per input and shape.  $1: output, $2: shape, $3: .ts file.
to_ts() {
	awk -v shape="$2" '
	BEGIN {
		print "import type { ChatCompletion, ChatCompletionChunk } from \"openai/resources/chat/completions\";"
		print "import type { Response, ResponseStreamEvent } from \"openai/resources/responses/responses\";"
		print "import type { Message, RawMessageStreamEvent } from \"@anthropic-ai/sdk/resources/messages/messages\";"
		print "import type { Wire } from \"./wire.js\";"
		n = 0
	}
	function out(type, json) {
		printf "export const v%d: %s = %s;\n", n++, type, json
	}
	shape == "chat" && /^\{/ { out("ChatCompletion.Choice", $0); next }
	shape == "chat-completion" && /^\{/ { out("Wire<ChatCompletion>", $0); next }
	shape == "responses" && /^\{/ { out("Wire<Response>", $0); next }
	shape == "chat-stream" && /^data: \{/ { out("ChatCompletionChunk", substr($0, 7)); next }
	shape == "chat-stream" && /^data: \[DONE\]$/ { done = 1; next }
	shape == "responses-stream" && /^event: / { ev = substr($0, 8); next }
	shape == "responses-stream" && /^data: \{/ {
		# The event line names the type the data must have.
		out("Wire<Extract<ResponseStreamEvent, { type: \"" ev "\" }>>", substr($0, 7))
		ev = ""
		next
	}
	shape == "anthropic" && /^\{/ { out("Message", $0); next }
	shape == "anthropic-stream" && /^event: / { ev = substr($0, 8); next }
	shape == "anthropic-stream" && /^data: \{/ {
		out("Extract<RawMessageStreamEvent, { type: \"" ev "\" }>", substr($0, 7))
		ev = ""
		next
	}
	# Carried record fields: an SSE comment, which clients skip.
	shape ~ /stream/ && /^: \{/ { next }
	/^$/ { next }
	{ printf "check.sh: %s: unexpected line: %s\n", shape, $0 > "/dev/stderr"; bad = 1 }
	END {
		if (shape == "chat-stream" && !done) {
			print "check.sh: chat-stream without data: [DONE]" > "/dev/stderr"
			bad = 1
		}
		if (!n) {
			print "check.sh: " shape ": no output" > "/dev/stderr"
			bad = 1
		}
		exit bad
	}' "$1" >"$3"
}

n=0
inputs="fixtures/parse/*.ids fixtures/parse/f*.in $sdk/inputs/*.txt fixtures/parse/collide.ndjson"
[ "$broken" -eq 1 ] && inputs=fixtures/parse/call.ids
for in in $inputs; do
	# empty input is no record: the JSON shapes write nothing for it
	[ -s "$in" ] || continue
	case $in in
	*.txt) args="--from text" ;;
	*.in) args=$(cat "${in%.in}.args") ;;
	*) args= ;;
	esac
	base=$(basename "$in")
	base=${base%.*}
	shapes="chat chat-completion chat-stream responses responses-stream anthropic anthropic-stream"
	# Records carry their fields into the whole objects, beside the API's
	# (the bare chat choice and the streams keep exactly the API's shape).
	case $in in *.ndjson) shapes="chat chat-stream responses-stream anthropic-stream" ;; esac
	for shape in $shapes; do
		# shellcheck disable=SC2086
		"$bin" -q $args --to "$shape" "$in" >"$work/out" || {
			echo "check.sh: harmony-parse failed on $in --to $shape" >&2
			exit 1
		}
		to_ts "$work/out" "$shape" "$work/$base.$shape.ts"
		n=$((n + 1))
	done
done
if [ "$broken" -eq 1 ]; then
	# A misspelt field must be caught, in each SDK's types.
	sed -i 's/"call_id":/"callid":/' "$work/call.responses.ts"
	grep -q '"callid":' "$work/call.responses.ts" || { echo "check.sh: --broken found nothing to break" >&2; exit 2; }
	sed -i 's/"stop_sequence":/"stopsequence":/' "$work/call.anthropic.ts"
	grep -q '"stopsequence":' "$work/call.anthropic.ts" || { echo "check.sh: --broken found nothing to break" >&2; exit 2; }
fi
if ! (cd "$work" && "$tsc" -p .) >"$work/tsc.log" 2>&1; then
	cat "$work/tsc.log"
	echo "sdk check: type errors in harmony-parse output ($n outputs, $stamp)"
	exit 1
fi
echo "sdk check: $n outputs match the types of $stamp"
