#!/usr/bin/env node
// Time npm tiktoken's o200k_base encode_ordinary on a file, and compare its
// ids with ours.
//
//   node bench/tiktoken_bench.js MODULE_DIR RUNS CORPUS [OUR_IDS]
//
// MODULE_DIR is the tiktoken package directory (bench/run installs it under
// bench/cache/node).  Only the encode call is timed: the file is read and
// decoded to a JS string before the clock starts.  OUR_IDS, when given, is
// the output of `harmony-tokens encode --no-special CORPUS` (ids separated by
// whitespace); the result says whether both id sequences are equal and, if
// not, where they first differ.  The last line of stdout is one JSON object
// that bench/run reads.
'use strict';

const fs = require('fs');
const path = require('path');

function parseIds(buf) {
	// A hand loop: 5M ids as text would be slow and large through split().
	const out = new Uint32Array(Math.ceil(buf.length / 2) + 1);
	let n = 0, v = 0, inNum = false, bad = -1;
	for (let i = 0; i < buf.length; i++) {
		const c = buf[i];
		if (c >= 48 && c <= 57) {
			v = v * 10 + (c - 48);
			inNum = true;
		} else if (c === 32 || c === 10 || c === 13 || c === 9) {
			if (inNum)
				out[n++] = v;
			v = 0;
			inNum = false;
		} else if (bad < 0) {
			bad = i;
		}
	}
	if (inNum)
		out[n++] = v;
	return { ids: out.subarray(0, n), bad };
}

function show(bytes) {
	return JSON.stringify(Buffer.from(bytes).toString('utf8'));
}

function main() {
	const [moduleDir, runsArg, corpusPath, idsPath] = process.argv.slice(2);
	if (!corpusPath) {
		process.stderr.write('usage: tiktoken_bench.js MODULE_DIR RUNS ' +
		    'CORPUS [OUR_IDS]\n');
		process.exit(2);
	}
	const tiktoken = require(moduleDir);
	const version = JSON.parse(fs.readFileSync(path.join(moduleDir,
	    'package.json'), 'utf8')).version;
	const raw = fs.readFileSync(corpusPath);
	const text = raw.toString('utf8');
	const enc = tiktoken.get_encoding('o200k_base');

	const runs = Math.max(1, parseInt(runsArg, 10) || 1);
	let best = Infinity, ids = null;
	for (let r = 0; r < runs; r++) {
		ids = null;
		const t0 = process.hrtime.bigint();
		ids = enc.encode_ordinary(text);
		const t1 = process.hrtime.bigint();
		best = Math.min(best, Number(t1 - t0) / 1e9);
	}
	const res = { version, bytes: raw.length, seconds: best, runs,
	    tokens: ids.length };

	if (idsPath) {
		const ours = parseIds(fs.readFileSync(idsPath));
		res.ours_tokens = ours.ids.length;
		if (ours.bad >= 0)
			res.ours_bad_byte = ours.bad;
		let i = 0;
		const n = Math.min(ids.length, ours.ids.length);
		while (i < n && ids[i] === ours.ids[i])
			i++;
		res.equal = ours.bad < 0 && i === ids.length &&
		    i === ours.ids.length;
		if (!res.equal && ours.bad < 0) {
			res.first_diff = i;
			// Where in the corpus: the bytes of the common prefix.
			const off = enc.decode(ids.subarray(0, i)).length;
			res.byte_offset = off;
			res.context = show(raw.subarray(Math.max(0, off - 30),
			    Math.min(raw.length, off + 50)));
			const piece = (arr) => Array.from(arr.subarray(i,
			    Math.min(arr.length, i + 6))).map((t) => {
				let s;
				try {
					s = show(enc.decode(new Uint32Array([t])));
				} catch (e) {
					s = '?';
				}
				return t + ':' + s;
			}).join(' ');
			res.theirs_next = piece(ids);
			res.ours_next = piece(ours.ids);
		}
	}
	enc.free();
	process.stdout.write(JSON.stringify(res) + '\n');
}

main();
