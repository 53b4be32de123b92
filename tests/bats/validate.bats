#!/usr/bin/env bats
# validate.bats - harmony-tools validate (JSON values against a JSON Schema)
# and calls --check, which uses the same validator.

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	cd "$ROOT" || return 1
	export PATH="${HM_BIN:-$ROOT/bin}:$PATH"
	J=fixtures/jsonschema
}

@test "validate: an OpenAI strict-mode schema (\$defs, anyOf with null), a verdict a value" {
	# formats asserted (the schema has no $schema: 2020-12, where format annotates)
	harmony-tools validate --formats=assert --schema $J/forecast.schema.json $J/forecast.ndjson \
	    >$BATS_TEST_TMPDIR/out 2>$BATS_TEST_TMPDIR/err && st=0 || st=$?
	[ "$st" -eq 1 ]
	[ "$(sed -n 1p $BATS_TEST_TMPDIR/out)" = '{"valid":true}' ]
	[ "$(sed -n 2p $BATS_TEST_TMPDIR/out)" = '{"valid":true}' ]
	[ "$(sed -n 3p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"errors":[{"path":"/unit","keyword":"anyOf","message":"\"kelvin\" matches none of the 2 schemas"},{"path":"/days/0/date","keyword":"format","message":"\"2025-02-30\" is not a valid date"},{"path":"/days/0/hours","keyword":"maximum","message":"24 is greater than 23"},{"path":"/days/1/wind","keyword":"additionalProperties","message":"property \"wind\" is not allowed"}]}' ]
	[ "$(sed -n 4p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"errors":[{"path":"","keyword":"required","message":"missing property \"location\""},{"path":"/country","keyword":"additionalProperties","message":"property \"country\" is not allowed"}]}' ]
	[ "$(sed -n 5p $BATS_TEST_TMPDIR/out)" = '{"valid":false,"error":"not JSON: EOF while parsing an object at line 1 column 20"}' ]
	[ "$(wc -l <$BATS_TEST_TMPDIR/out)" -eq 5 ]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = "harmony-tools: $J/forecast.ndjson:3: /unit: anyOf: \"kelvin\" matches none of the 2 schemas (and 3 more problems)
harmony-tools: $J/forecast.ndjson:4: (root): required: missing property \"location\" (and 1 more problem)
harmony-tools: $J/forecast.ndjson:6: not JSON: EOF while parsing an object at line 1 column 20" ]
}

@test "validate: --schema takes a response format or a request holding one, as harmony-parse --schema does" {
	T=$BATS_TEST_TMPDIR
	harmony-tools validate --schema $J/forecast.schema.json $J/forecast.ndjson >$T/want 2>&1 || true
	# Chat's response_format, the format alone, Responses' text.format: the same verdicts,
	# the schema's own $ref resolved inside the schema
	jq -c '{model: "m", messages: [], response_format: {type: "json_schema", json_schema: {name: "f", strict: true, schema: .}}}' \
	    $J/forecast.schema.json >$T/chat.json
	jq -c .response_format $T/chat.json >$T/format.json
	jq -c '{model: "m", input: "x", text: {format: {type: "json_schema", name: "f", schema: .}}}' \
	    $J/forecast.schema.json >$T/responses.json
	grep -q '"\$ref"' $T/chat.json
	for f in chat format responses; do
		harmony-tools validate --schema $T/$f.json $J/forecast.ndjson >$T/got 2>&1 && st=0 || st=$?
		[ "$st" -eq 1 ]
		diff $T/want $T/got
	done
	# a format without a schema is an error of the schema file
	run harmony-tools validate --schema <(echo '{"type":"json_schema","json_schema":{"name":"x"}}') </dev/null
	[ "$status" -eq 1 ]
	[[ $output == *'holds no `schema`'* ]]
}

@test "validate: all valid is exit 0; python3-jsonschema agrees on every verdict" {
	run harmony-tools validate --schema $J/forecast.schema.json < <(head -n 2 $J/forecast.ndjson)
	[ "$status" -eq 0 ]
	[ "$output" = '{"valid":true}
{"valid":true}' ]
	# The same verdicts as Debian's python3-jsonschema (formats asserted).
	want=$(/usr/bin/python3 -c '
import json, sys, warnings
warnings.simplefilter("ignore")
import jsonschema
s = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(s, format_checker=jsonschema.FormatChecker())
for line in open(sys.argv[2]):
    if line.strip():
        try:
            print(v.is_valid(json.loads(line)))
        except ValueError:
            print(False)
' $J/forecast.schema.json $J/forecast.ndjson)
	got=$(harmony-tools validate --schema $J/forecast.schema.json $J/forecast.ndjson 2>/dev/null |
	    jq -r 'if .valid then "True" else "False" end')
	[ "$got" = "$want" ]
}

@test "validate: a schema that cannot be used is an error of the schema file" {
	printf '{"pattern":"(?<=a)b"}' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'"b"'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/s.json:1: pattern \"(?<=a)b\": lookahead and lookbehind are not supported at character 2" ]
	printf '{"$ref":"#/$defs/none"}' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'1'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $BATS_TEST_TMPDIR/s.json:1: \$ref \"#/\$defs/none\" points to nothing in the schema" ]
	printf '{"type":\n' >$BATS_TEST_TMPDIR/s.json
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/s.json <<<'1'
	[ "$status" -eq 1 ]
	[[ $output == "harmony-tools: $BATS_TEST_TMPDIR/s.json:2: the schema is not JSON: "* ]]
	run harmony-tools validate --schema $BATS_TEST_TMPDIR/nope.json <<<'1'
	[ "$status" -eq 3 ]
}

@test "validate: a bad schema is refused against its draft's metaschema, naming the keyword and its place" {
	t=$BATS_TEST_TMPDIR
	check() { # schema, the error after the file name
		printf '%s' "$1" >$t/s.json
		run harmony-tools validate --schema $t/s.json <<<'{}'
		[ "$status" -eq 1 ] || { echo "$1: status $status: $output"; return 1; }
		[ "$output" = "harmony-tools: $t/s.json:1: $2" ] || { echo "$1: $output"; return 1; }
	}
	check '{"type":"strin"}' 'the schema'"'"'s "type" at /type is not valid: anyOf: "strin" matches none of the 2 schemas'
	check '{"type":1}' 'the schema'"'"'s "type" at /type is not valid: anyOf: 1 matches none of the 2 schemas'
	check '{"minimum":"5"}' 'the schema'"'"'s "minimum" at /minimum is not valid: type: expected number, got string'
	check '{"required":"a"}' 'the schema'"'"'s "required" at /required is not valid: type: expected array, got string'
	check '{"minLength":-1}' 'the schema'"'"'s "minLength" at /minLength is not valid: minimum: -1 is less than 0'
	check '{"properties":{"a":{"allOf":[1]}}}' 'the schema'"'"'s "allOf" at /properties/a/allOf/0 is not valid: type: expected object or boolean, got integer'
	# the draft by $schema: unknown and draft-03 are errors
	check '{"$schema":"http://example.com/mine"}' '$schema "http://example.com/mine" is not a draft this validator knows (04, 06, 07, 2019-09, 2020-12) nor a metaschema given to it'
	check '{"$schema":"http://json-schema.org/draft-03/schema#"}' '$schema "http://json-schema.org/draft-03/schema#": draft-03 is not supported (drafts 04, 06, 07, 2019-09 and 2020-12 are)'
	# without $schema, draft-07's list of items is kept (no error, as before)
	printf '{"items":[{"type":"string"}],"additionalItems":false}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'["a"]'
	[ "$status" -eq 0 ]
}

@test "validate: unknown keywords are annotations; --strict makes them errors" {
	t=$BATS_TEST_TMPDIR
	printf '{"properties":{"a":{"minLenght":3}}}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'{"a":"x"}'
	[ "$status" -eq 0 ]
	[ "$output" = '{"valid":true}' ]
	run harmony-tools validate --strict --schema $t/s.json <<<'{"a":"x"}'
	[ "$status" -eq 1 ]
	[ "$output" = "harmony-tools: $t/s.json:1: unknown keyword \"minLenght\" at /properties/a (strict: a keyword the draft does not have is an error)" ]
	# a keyword of another draft is unknown to this one
	printf '{"$schema":"http://json-schema.org/draft-07/schema#","prefixItems":[]}' >$t/s.json
	run harmony-tools validate --strict --schema $t/s.json <<<'1'
	[ "$status" -eq 1 ]
	[[ $output == *'unknown keyword "prefixItems" at (root)'* ]]
}

@test "validate: what 2019-09 and 2020-12 add is checked, not passed silently" {
	t=$BATS_TEST_TMPDIR
	printf '{"properties":{"a":true},"unevaluatedProperties":false}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'{"a":1,"b":2}'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"valid":false,"errors":[{"path":"/b","keyword":"unevaluatedProperties","message":"property \"b\" is not allowed"}]}' ]
	# exact numbers
	printf '{"maximum":123456789012345678901234567889}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'123456789012345678901234567890'
	[ "$status" -eq 1 ]
	printf '{"multipleOf":0.01}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'1e308'
	[ "$status" -eq 0 ]
	# format annotates in 2020-12, the draft without $schema, and asserts in
	# draft-07; --formats=assert and --formats=annotate whatever the draft
	printf '{"$schema":"https://json-schema.org/draft/2020-12/schema","format":"date"}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 0 ]
	printf '{"format":"date"}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 0 ]
	[ "$output" = '{"valid":true}' ]
	run harmony-tools validate --formats=draft --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 0 ]
	run harmony-tools validate --formats=assert --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"valid":false,"errors":[{"path":"","keyword":"format","message":"\"2025-02-30\" is not a valid date"}]}' ]
	printf '{"$schema":"http://json-schema.org/draft-07/schema#","format":"date"}' >$t/s.json
	run harmony-tools validate --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 1 ]
	run harmony-tools validate --formats=annotate --schema $t/s.json <<<'"2025-02-30"'
	[ "$status" -eq 0 ]
	run harmony-tools validate --formats=sometimes --schema $t/s.json <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"--formats must be assert, annotate or draft, not 'sometimes'"* ]]
	run harmony-tools calls --formats=assert <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"--formats goes with validate"* ]]
}

@test "validate: --schema-dir reads referenced documents from a directory, never the network" {
	t=$BATS_TEST_TMPDIR
	mkdir -p $t/schemas/sub
	printf '{"type":"integer"}' >$t/schemas/sub/int.json
	printf '{"items":{"$ref":"https://example.com/s/sub/int.json"}}' >$t/s.json
	run harmony-tools validate --schema-dir=https://example.com/s/=$t/schemas --schema $t/s.json <<<'[1,"x"]'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = '{"valid":false,"errors":[{"path":"/1","keyword":"type","message":"expected integer, got string"}]}' ]
	# without the map the reference names nothing
	run harmony-tools validate --schema $t/s.json <<<'[1]'
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == *'"keyword":"$ref","message":"cannot resolve \"https://example.com/s/sub/int.json\""'* ]]
	run harmony-tools validate --schema-dir=nodir --schema $t/s.json <<<'[1]'
	[ "$status" -eq 2 ]
	[[ $output == *"--schema-dir takes URI=DIR"* ]]
	run harmony-tools calls --strict <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"--schema-dir and --strict go with validate"* ]]
}

@test "validate: hostile schemas end in a problem, quickly" {
	run timeout 20 harmony-tools validate --schema <(echo '{"$ref":"#"}') <<<'1'
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == '{"valid":false,"errors":[{"path":"","keyword":"depth",'* ]]
	python3 -c 'print("\"" + "a" * 200000 + "b\"")' >$BATS_TEST_TMPDIR/long
	run timeout 20 harmony-tools validate --schema <(echo '{"pattern":"^(a+)+$"}') $BATS_TEST_TMPDIR/long
	[ "$status" -eq 1 ]
	[[ ${lines[0]} == '{"valid":false,"errors":[{"path":"","keyword":"pattern",'* ]]
}

@test "validate: usage" {
	run harmony-tools validate <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"validate needs --schema"* ]]
	run harmony-tools calls --schema x <<<'1'
	[ "$status" -eq 2 ]
	[[ $output == *"--schema goes with validate"* ]]
}

@test "calls --check: the whole schema is checked (enum, anyOf, additionalProperties, \$ref)" {
	jq -c '{name: "forecast", parameters: .}' $J/forecast.schema.json >$BATS_TEST_TMPDIR/tools.json
	out=$(jq -c '{role: "assistant", recipient: "functions.forecast", content: (. | tojson)}' \
	    < <(sed -n 1,4p $J/forecast.ndjson) |
	    harmony-tools calls --check $BATS_TEST_TMPDIR/tools.json 2>$BATS_TEST_TMPDIR/err) && st=0 || st=$?
	[ "$st" -eq 1 ]
	# (a tool's schema has no $schema: 2020-12, where format annotates)
	[ "$(jq -r '.error // "ok"' <<<"$out")" = 'ok
ok
/unit: anyOf: "kelvin" matches none of the 2 schemas; /days/0/hours: maximum: 24 is greater than 23; /days/1/wind: additionalProperties: property "wind" is not allowed
(root): required: missing property "location"; /country: additionalProperties: property "country" is not allowed' ]
	[ "$(cat $BATS_TEST_TMPDIR/err)" = 'harmony-tools: -:3: call_2 functions.forecast: /unit: anyOf: "kelvin" matches none of the 2 schemas; /days/0/hours: maximum: 24 is greater than 23; /days/1/wind: additionalProperties: property "wind" is not allowed
harmony-tools: -:4: call_3 functions.forecast: (root): required: missing property "location"; /country: additionalProperties: property "country" is not allowed' ]
}

@test "multipleOf with a divisor past 19 digits is exact (python's fractions agree), and a hostile pair is a problem, never valid" {
	python3 - "$BATS_TEST_TMPDIR" <<'PY'
import random, sys
from fractions import Fraction
random.seed(39)
d = sys.argv[1]
cases = []
def num(digits, exp):
    return digits + ("e%d" % exp if exp else "")
for i in range(300):
    m = str(random.randint(1, 9)) + "".join(random.choice("0123456789") for _ in range(random.randint(19, 40)))
    m = m.rstrip("0") or "1"
    if len(m) < 20:
        m += "7" * (20 - len(m))
    me = random.randint(-30, 30)
    k = random.randint(1, 10**random.randint(1, 30))
    if random.random() < 0.25:
        k *= 2**random.randint(1, 70) * 5**random.randint(0, 3)
    v = Fraction(int(m)) * Fraction(10)**me * k
    if random.random() < 0.5:
        v += Fraction(random.choice([1, 3, 7]), 10**random.randint(0, 40))
    # v as a decimal text: v = n / 10^s exactly when the denominator allows
    s = 0
    while (v * 10**s).denominator != 1:
        s += 1
    n = v * 10**s
    vt = "%de%d" % (n.numerator, -s) if s else str(n.numerator)
    mt = num(m, me)
    want = (Fraction(vt.split("e")[0]) * Fraction(10)**(int(vt.split("e")[1]) if "e" in vt else 0)) / (Fraction(int(m)) * Fraction(10)**me)
    cases.append((mt, vt, want.denominator == 1))
with open(d + "/cases", "w") as f:
    for mt, vt, ok in cases:
        f.write("%s %s %s\n" % (mt, vt, "true" if ok else "false"))
PY
	n=0 t=0
	while read -r m v want; do
		echo "{\"multipleOf\":$m}" >"$BATS_TEST_TMPDIR/s.json"
		got=$(echo "$v" | harmony-tools validate --schema="$BATS_TEST_TMPDIR/s.json" 2>/dev/null | jq .valid)
		[ "$got" = "$want" ] || { echo "multipleOf $m, $v: $got, want $want"; return 1; }
		n=$((n + 1))
		[ "$want" = true ] && t=$((t + 1))
	done <"$BATS_TEST_TMPDIR/cases"
	[ "$n" -eq 300 ] && [ "$t" -gt 50 ] && [ "$t" -lt 250 ]
	# a divisor of 2,002 digits and a value of 3,000: too much to check, said
	printf '{"multipleOf":1%02000d3}' 0 >"$BATS_TEST_TMPDIR/s.json"
	{ head -c 3000 /dev/zero | tr '\0' 7; echo; } >"$BATS_TEST_TMPDIR/v"
	run harmony-tools validate --schema="$BATS_TEST_TMPDIR/s.json" "$BATS_TEST_TMPDIR/v"
	[ "$status" -eq 1 ]
	[[ $output == *'multipleOf: too many digits to tell whether 7777'* ]]
}

@test "validate: a document --schema-dir gives is checked against its draft's metaschema; a bad one is not used, and the problem says why" {
	mkdir "$BATS_TEST_TMPDIR/d"
	echo '{"$ref":"https://example.com/x.json"}' >"$BATS_TEST_TMPDIR/r.json"
	echo '{"type":"strin"}' >"$BATS_TEST_TMPDIR/d/x.json"
	run harmony-tools validate --schema-dir="https://example.com/=$BATS_TEST_TMPDIR/d" --schema="$BATS_TEST_TMPDIR/r.json" <<<'"a"'
	[ "$status" -eq 1 ]
	[[ $output == *"\$ref: cannot resolve \"https://example.com/x.json\" ($BATS_TEST_TMPDIR/d/x.json: the schema's \"type\" at /type is not valid: anyOf: \"strin\" matches none of the 2 schemas)"* ]]
	echo '{"type":"string"}' >"$BATS_TEST_TMPDIR/d/x.json"
	run harmony-tools validate --schema-dir="https://example.com/=$BATS_TEST_TMPDIR/d" --schema="$BATS_TEST_TMPDIR/r.json" <<<'"a"'
	[ "$status" -eq 0 ]
}
