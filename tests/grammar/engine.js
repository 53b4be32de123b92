// tests/grammar/engine.js - harmony-tools grammar's output fed to a real
// constrained-decoding engine: XGrammar (@mlc-ai/web-xgrammar, its
// WebAssembly build) over the o200k_harmony vocabulary, token ids in.
//
//   node tests/grammar/engine.js CACHE VOCAB CASES
//
// CACHE holds node_modules/@mlc-ai/web-xgrammar; VOCAB is
// o200k_base.tiktoken; CASES is NDJSON, one completion a line:
//   {"name":..., "form":"ebnf"|"gbnf"|"structural-tag", "grammar":PATH,
//    "ids":[...], "reject_at":N|null, "stop":ID}
// reject_at null: every id is accepted, then the stop token, and the
// matcher has terminated; N: ids[0..N) are accepted and ids[N] is not.
// Prints a line per case (ok/FAIL) and "engine: N cases, N failed".
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');

// The package says "type": "module" but lib/index.js is a UMD bundle:
// compiled as CommonJS it sets module.exports.
function loadXgrammar(cache) {
  const file = path.join(cache, 'node_modules/@mlc-ai/web-xgrammar/lib/index.js');
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  m._compile(fs.readFileSync(file, 'utf8'), file);
  return m.exports;
}

// GPT-2's byte-to-character table: printable bytes stand for themselves,
// the others are moved to U+0100 on, in byte order.
function byteChars() {
  const keep = [];
  for (let b = 0x21; b <= 0x7e; b++) keep.push(b);
  for (let b = 0xa1; b <= 0xac; b++) keep.push(b);
  for (let b = 0xae; b <= 0xff; b++) keep.push(b);
  const table = new Array(256);
  for (const b of keep) table[b] = String.fromCodePoint(b);
  let next = 0x100;
  for (let b = 0; b < 256; b++) if (table[b] === undefined) table[b] = String.fromCodePoint(next++);
  return table;
}

// o200k_harmony: the tiktoken ranks as byte-level strings, then the
// special tokens (199998 .. 201088) by their text.
function harmonyVocab(tiktoken) {
  const chars = byteChars();
  const vocab = new Array(201089);
  for (const line of fs.readFileSync(tiktoken, 'utf8').split('\n')) {
    if (!line) continue;
    const [b64, rank] = line.split(' ');
    let s = '';
    for (const b of Buffer.from(b64, 'base64')) s += chars[b];
    vocab[Number(rank)] = s;
  }
  const named = {
    199998: '<|startoftext|>', 199999: '<|endoftext|>', 200002: '<|return|>',
    200003: '<|constrain|>', 200005: '<|channel|>', 200006: '<|start|>', 200007: '<|end|>',
    200008: '<|message|>', 200012: '<|call|>',
  };
  for (let id = 199998; id <= 201088; id++) vocab[id] = named[id] || `<|reserved_${id}|>`;
  for (let id = 0; id < vocab.length; id++)
    if (vocab[id] === undefined) throw new Error(`vocabulary: no token ${id}`);
  return vocab;
}

// llama.cpp's GBNF writes a special token bare (<|end|>: the token); the
// EBNF reader here takes it as its text in quotes, outside literals and
// classes.  That is the one difference between the two forms.
function gbnfAsEbnf(text) {
  return text.split('\n').map((line) => {
    if (line.startsWith('#')) return line;
    const parts = line.split(/("(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\])/);
    for (let i = 0; i < parts.length; i += 2)
      parts[i] = parts[i].replace(/<\|[a-z_0-9]+\|>/g, (t) => `"${t}"`);
    return parts.join('');
  }).join('\n');
}

async function main() {
  const [cache, tiktoken, casesFile] = process.argv.slice(2);
  const xg = loadXgrammar(cache);
  // The stop tokens an inference loop stops on for an assistant's action.
  const info = await xg.TokenizerInfo.createTokenizerInfo(harmonyVocab(tiktoken), 'byte_level',
    false, 201089, [200002, 200012]);
  const compiler = await xg.GrammarCompiler.createGrammarCompiler(info);
  const compiled = new Map();
  let n = 0, failed = 0;
  const cases = fs.readFileSync(casesFile, 'utf8').split('\n').filter(Boolean).map(JSON.parse);
  for (const c of cases) {
    n++;
    const key = c.form + ' ' + c.grammar;
    if (!compiled.has(key)) {
      let text = fs.readFileSync(c.grammar, 'utf8');
      if (c.form === 'gbnf') text = gbnfAsEbnf(text);
      let g;
      try {
        g = c.form === 'structural-tag' ? await compiler.compileStructuralTag(text)
          : await compiler.compileGrammar(text, 'root');
      } catch (e) {
        g = new Error(`does not compile (${e && e.message ? e.message : e})`);
      }
      compiled.set(key, g);
    }
    const g = compiled.get(key);
    let why = null;
    if (g instanceof Error) {
      why = g.message;
    } else {
      const m = await xg.GrammarMatcher.createGrammarMatcher(g);
      let i = 0;
      for (; i < c.ids.length; i++) if (!m.acceptToken(c.ids[i])) break;
      if (c.reject_at === null) {
        if (i < c.ids.length) why = `token ${i} (id ${c.ids[i]}) rejected`;
        else if (!m.acceptToken(c.stop)) why = `stop token ${c.stop} rejected`;
        else if (!m.isTerminated()) why = 'not terminated after the stop token';
      } else if (i < c.reject_at) {
        why = `token ${i} (id ${c.ids[i]}) rejected, expected token ${c.reject_at}`;
      } else if (i === c.ids.length || i > c.reject_at) {
        why = `token ${c.reject_at} (id ${c.ids[c.reject_at]}) accepted, expected rejected`;
      }
      m.dispose();
    }
    if (why) failed++;
    console.log(`${why ? 'FAIL' : 'ok'} ${c.form} ${c.name}${why ? ': ' + why : ''}`);
  }
  console.log(`engine: ${n} cases, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

if (require.main === module) {
  main().catch((e) => {
    console.error(`engine: ${e && e.stack ? e.stack : e}`);
    process.exit(2);
  });
} else {
  module.exports = { loadXgrammar, harmonyVocab, gbnfAsEbnf };
}
