#!/usr/bin/env node
/*
 * jsonschema_ajv.js - bench/jsonschema's ajv side: the same schemas and
 * calls as build/jsonschema_bench, validated by ajv (npm, draft 2020-12,
 * formats from ajv-formats, asserted as libharmony asserts them in a schema
 * without $schema), each schema compiled once.
 *
 *   node bench/jsonschema_ajv.js MODULES SCHEMAS CALLS
 *
 * MODULES is the node_modules directory holding ajv and ajv-formats.
 * Prints {"calls":..,"valid":..,"seconds":..,"validate_seconds":..}:
 * seconds with JSON.parse of each call, validate_seconds the calls parsed
 * first.
 */
"use strict";
const fs = require("fs");
const path = require("path");

const [modules, spath, cpath] = process.argv.slice(2);
const Ajv2020 = require(path.join(modules, "ajv/dist/2020")).default;
const addFormats = require(path.join(modules, "ajv-formats")).default;
const ajv = new Ajv2020({ strict: false, allErrors: false });
addFormats(ajv);
const validators = fs.readFileSync(spath, "utf8").split("\n").filter(Boolean)
	.map((l) => ajv.compile(JSON.parse(l)));
const calls = fs.readFileSync(cpath, "utf8").split("\n").filter(Boolean).map((l) => {
	const tab = l.indexOf("\t");
	return [Number(l.slice(0, tab)), l.slice(tab + 1)];
});

let valid = 0;
let t0 = process.hrtime.bigint();
for (const [k, text] of calls)
	valid += validators[k](JSON.parse(text)) ? 1 : 0;
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;

const parsed = calls.map(([k, text]) => [k, JSON.parse(text)]);
let again = 0;
t0 = process.hrtime.bigint();
for (const [k, v] of parsed)
	again += validators[k](v) ? 1 : 0;
const vseconds = Number(process.hrtime.bigint() - t0) / 1e9;
if (again !== valid) {
	process.stderr.write(`validation alone: ${again} valid, ${valid} with parsing\n`);
	process.exit(1);
}
process.stdout.write(JSON.stringify({ calls: calls.length, valid, seconds,
	validate_seconds: vseconds }) + "\n");
