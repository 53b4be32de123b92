#!/usr/bin/env bats
# multihost.bats - the multi-host recipes of docs/guide.md ("Several
# hosts"), read from that file and run as they stand over three ssh hosts
# made on this machine (tests/lib/netns-hosts: network namespaces, an sshd
# each), against one harmony-parse on the whole log; then with a host's
# binary taken away, a host's sshd stopped, and a host gone mid-run: with
# --retries the output stays whole, without it the recipe exits 1 and the
# coverage check (--expect-lines) names what is missing.
#
# Needs root and network namespaces (CI runs as root); elsewhere every test
# is counted as skipped, with the reason.  The hosts are made once for the
# file and removed in teardown_file, passed or failed.

load helpers
bats_require_minimum_version 1.5.0

NETNS=$ROOT/tests/lib/netns-hosts

# Why the hosts cannot be made here; nothing when they can.
why_skip() {
	local c
	[ "$(id -u)" -eq 0 ] || { echo "needs root (network namespaces, sshd)"; return; }
	for c in ip parallel ssh ssh-keygen rsync unshare timeout python3; do
		command -v "$c" >/dev/null ||
		    { echo "no $c (tools/install-deps test installs it)"; return; }
	done
	[ -x /usr/sbin/sshd ] || { echo "no /usr/sbin/sshd (openssh-server)"; return; }
	# a network and a mount namespace can be made (not in every container)
	unshare --net --mount true 2>/dev/null ||
	    { echo "cannot make network namespaces here (unshare --net fails)"; return; }
}

setup_file() {
	SKIP_WHY=$(why_skip)
	export SKIP_WHY
	[ -z "$SKIP_WHY" ] || return 0
	export HOSTS=$BATS_FILE_TMPDIR/hosts W=$BATS_FILE_TMPDIR/w
	mkdir -p "$W/home" "$W/logs"
	if ! "$NETNS" up "$HOSTS" 3 "$BIN"; then
		"$NETNS" down "$HOSTS"
		return 1
	fi
	# 3,000 records, about 1 MB: ten parts of 100k
	python3 "$ROOT/bench/gen_log.py" --records 3000 --seed 25 --short >"$W/log"
	split -l 1000 -d --additional-suffix=.ndjson "$W/log" "$W/logs/part-"
	"$BIN/harmony-parse" -q --to stats --summary "$W/log" >"$W/summary.one"
	"$BIN/harmony-parse" -q --to chat "$W/log" >"$W/choices.one"
}

teardown_file() {
	[ -z "${HOSTS-}" ] || "$NETNS" down "$HOSTS"
}

setup() {
	hm_setup
}

# A test on the hosts starts here: skipped without them, else in the log's
# directory with no output of an earlier test.
need_hosts() {
	[ -z "$SKIP_WHY" ] || skip "$SKIP_WHY"
	cd "$W" || return 1
	rm -f summary.json choices.ndjson logs/*.summary
}

teardown() {
	local n
	[ -n "${HOSTS-}" ] && [ -d "$HOSTS" ] || return 0
	# the hosts as they were, whatever the test did: binary, sshd
	for n in 1 2 3; do
		if [ -e "$HOSTS/h$n/harmony-parse.away" ]; then
			mv -f "$HOSTS/h$n/harmony-parse.away" "$HOSTS/h$n/bin/harmony-parse"
		fi
		kill -0 "$(cat "$HOSTS/h$n/sshd.pid" 2>/dev/null)" 2>/dev/null ||
		    "$NETNS" start "$HOSTS" "$n"
	done
}

# The sh block of docs/guide.md under "<!-- multihost.bats: NAME -->".
recipe() {
	awk -v name="$1" '
		$0 == "<!-- multihost.bats: " name " -->" { want = 1; next }
		want && $0 == "```sh" { inside = 1; next }
		inside && $0 == "```" { exit }
		inside { print }
	' "$ROOT/docs/guide.md"
}

# Run the script $1 with bash on the hosts' client, as the guide's reader
# would: the variables its blocks use set, the tools on PATH (here
# $BIN; the hosts have their own), parallel's files under a HOME of the
# test's.  60 s at most: a few seconds on a loaded machine.
on_client() {
	"$NETNS" run "$HOSTS" env HOME="$W/home" PATH="$BIN:$PATH" \
	    log=log hosts=2/host1,2/host2,2/host3 block=100k \
	    timeout 60 bash -c "$1"
}

# How many ssh commands host $1 has run so far.
sessions() {
	wc -l <"$HOSTS/h$1/sessions"
}

# $stderr names the shortfall of the summaries: fewer than the 3,000 lines.
names_shortfall() {
	local line got
	line=$(grep -E '^harmony-parse: coverage: the summaries cover [0-9]+ of 3000 lines \([0-9]+ missing\)$' <<<"$stderr") || {
		printf 'no coverage message in:\n%s\n' "$stderr" >&2
		return 1
	}
	got=${line#*cover }
	got=${got%% *}
	[ "$got" -lt 3000 ] && [[ $line == *"($((3000 - got)) missing)" ]]
}

@test "multihost: the guide's blocks are there, each with set -o pipefail" {
	for r in summary records pipepart transfer; do
		recipe "$r" >"$BATS_TEST_TMPDIR/$r"
		[ -s "$BATS_TEST_TMPDIR/$r" ]
		[ "$(head -1 "$BATS_TEST_TMPDIR/$r")" = "set -o pipefail" ]
	done
	grep -q -- '--expect-lines=' "$BATS_TEST_TMPDIR/summary"
	grep -q -- '--retries 3' "$BATS_TEST_TMPDIR/records"
}

@test "multihost: the summary recipe over three ssh hosts: one harmony-parse's summary, byte for byte" {
	need_hosts
	before="$(sessions 1) $(sessions 2) $(sessions 3)"
	run --separate-stderr on_client "$(recipe summary)"
	[ -z "$stderr" ] || echo "$stderr"
	[ "$status" -eq 0 ]
	cmp summary.json summary.one
	jq -e '.records == 3000 and .input_lines == 3000' summary.json
	# every host took parts
	set -- $before
	[ "$(sessions 1)" -gt "$1" ] && [ "$(sessions 2)" -gt "$2" ] && [ "$(sessions 3)" -gt "$3" ]
}

@test "multihost: per-record output over the hosts, in input order, byte for byte" {
	need_hosts
	run --separate-stderr on_client "$(recipe records)"
	[ "$status" -eq 0 ]
	cmp choices.ndjson choices.one
}

@test "multihost: --pipepart over the hosts, byte for byte" {
	need_hosts
	run --separate-stderr on_client "$(recipe pipepart)"
	[ "$status" -eq 0 ]
	cmp summary.json summary.one
}

@test "multihost: the file-transfer form (rsync, --wd ..., --return, --cleanup)" {
	need_hosts
	run --separate-stderr on_client "$(recipe transfer)"
	[ "$status" -eq 0 ]
	cmp summary.json summary.one
	[ "$(ls logs/*.ndjson.summary | wc -l)" -eq 3 ]
	# --cleanup left nothing on the hosts
	[ -z "$(find "$HOSTS"/h*/home -path '*/.parallel/tmp/*' -print -quit)" ]
}

@test "multihost: a host without harmony-parse: --retries runs its parts on the others, the output whole" {
	need_hosts
	mv "$HOSTS/h2/bin/harmony-parse" "$HOSTS/h2/harmony-parse.away"
	before=$(sessions 2)
	run --separate-stderr on_client "$(recipe summary)"
	[ "$status" -eq 0 ]
	cmp summary.json summary.one
	# host2 was asked, and failed
	[ "$(sessions 2)" -gt "$before" ]
	run --separate-stderr on_client "$(recipe records)"
	[ "$status" -eq 0 ]
	cmp choices.ndjson choices.one
}

@test "multihost: a host without harmony-parse and no --retries: the recipe exits 1, the coverage check names the shortfall" {
	need_hosts
	mv "$HOSTS/h2/bin/harmony-parse" "$HOSTS/h2/harmony-parse.away"
	script=$(recipe summary | sed 's/ --retries 3//')
	[ "$script" != "$(recipe summary)" ]
	run --separate-stderr on_client "$script"
	[ "$status" -eq 1 ]
	[[ $stderr == *"harmony-parse: command not found"* ]]
	names_shortfall
	# the summary of what came is still written, and says so
	[ "$(jq .input_lines summary.json)" -lt 3000 ]
	# --pipepart as the guide has it: the same
	run --separate-stderr on_client "$(recipe pipepart)"
	[ "$status" -eq 1 ]
	names_shortfall
}

@test "multihost: the options the guide says to avoid lose parts; the coverage check names it" {
	need_hosts
	mv "$HOSTS/h2/bin/harmony-parse" "$HOSTS/h2/harmony-parse.away"
	# --pipepart --retries 3, and --pipe --retries 0: whatever parallel
	# does, the recipe never exits 0 with a summary short of the log
	for script in "$(recipe pipepart | sed 's/--pipepart/--pipepart --retries 3/')" \
	    "$(recipe summary | sed 's/--retries 3/--retries 0/')"; do
		[[ $script == *"--retries "[03]* ]]
		rm -f summary.json
		run --separate-stderr on_client "$script"
		if cmp -s summary.json summary.one; then
			[ "$status" -eq 0 ]
		else
			[ "$status" -eq 1 ]
			names_shortfall
		fi
	done
}

@test "multihost: a host whose sshd is down: --retries recovers, without it the shortfall is named" {
	need_hosts
	"$NETNS" stop "$HOSTS" 3
	run --separate-stderr on_client "$(recipe summary)"
	[ "$status" -eq 0 ]
	cmp summary.json summary.one
	run --separate-stderr on_client "$(recipe summary | sed 's/ --retries 3//')"
	[ "$status" -eq 1 ]
	[[ $stderr == *"Connection refused"* ]]
	names_shortfall
}

@test "multihost: a host that dies mid-run: --retries runs its parts again elsewhere, without it the shortfall is named" {
	need_hosts
	# host3's harmony-parse: one that says it has started, then waits
	# until its host goes
	mv "$HOSTS/h3/bin/harmony-parse" "$HOSTS/h3/harmony-parse.away"
	printf '#!/bin/sh\n: >"$HOME/../started"\nexec sleep 60\n' >"$HOSTS/h3/bin/harmony-parse"
	chmod +x "$HOSTS/h3/bin/harmony-parse"
	for script in "$(recipe summary)" "$(recipe summary | sed 's/ --retries 3//')"; do
		rm -f "$HOSTS/h3/started" summary.json
		on_client "$script" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
		pid=$!
		for _ in $(seq 300); do
			[ ! -e "$HOSTS/h3/started" ] || break
			sleep 0.1
		done
		[ -e "$HOSTS/h3/started" ]
		"$NETNS" stop "$HOSTS" 3
		status=0
		wait "$pid" || status=$?
		stderr=$(cat "$BATS_TEST_TMPDIR/err")
		"$NETNS" start "$HOSTS" 3
		if [[ $script == *--retries* ]]; then
			[ "$status" -eq 0 ]
			cmp summary.json summary.one
		else
			[ "$status" -eq 1 ]
			names_shortfall
		fi
	done
}

@test "multihost: a damaged log (cut, NUL'd, BOM'd) gives one machine's counts through the summary recipe" {
	need_hosts
	python3 "$ROOT/tests/lib/damage.py" 35 cut,nul,bom log dmg dmg.man
	bad=$(grep -cE ' (cut|nul)$' dmg.man)
	"$BIN/harmony-parse" -q --to stats --summary dmg >summary.dmg || true
	jq -e --argjson b "$bad" '.records == 3000 - $b and .errors == $b and
	    .record_lines == 3000 and .input_lines == 3000' summary.dmg
	# the guide's block as it stands, on the damaged log
	run --separate-stderr "$NETNS" run "$HOSTS" env HOME="$W/home" PATH="$BIN:$PATH" \
	    log=dmg hosts=2/host1,2/host2,2/host3 block=100k timeout 60 bash -c "$(recipe summary)"
	# the bad records make their parts exit 1: the pipeline says so
	[ "$status" -ne 0 ]
	[[ "$stderr" != *coverage* ]]
	cmp summary.json summary.dmg
}
