// bench/grammar_compile.js - XGrammar compiling harmony-tools grammar's
// output over the o200k_harmony vocabulary (bench/run's grammar section).
//
//   node bench/grammar_compile.js CACHE VOCAB FORM:FILE...
//
// Prints one line a grammar: "FORM ms" (its compile time, once: a large
// grammar takes a minute in the WebAssembly build), or "FORM error: ..."
// when XGrammar refuses it.
'use strict';
const fs = require('fs');
const path = require('path');
const { loadXgrammar, harmonyVocab, gbnfAsEbnf } = require(path.join(__dirname, '../tests/grammar/engine.js'));

(async () => {
  const [cache, vocab, ...grammars] = process.argv.slice(2);
  const xg = loadXgrammar(cache);
  const info = await xg.TokenizerInfo.createTokenizerInfo(harmonyVocab(vocab), 'byte_level',
    false, 201089, [200002, 200012]);
  // no cache: each compile is a compile
  const compiler = await xg.GrammarCompiler.createGrammarCompiler(info, false);
  for (const g of grammars) {
    const form = g.slice(0, g.indexOf(':'));
    let text = fs.readFileSync(g.slice(form.length + 1), 'utf8');
    if (form === 'gbnf') text = gbnfAsEbnf(text);
    let best = Infinity;
    try {
      for (let i = 0; i < 1; i++) {
        const t0 = process.hrtime.bigint();
        const c = form === 'structural-tag' ? await compiler.compileStructuralTag(text)
          : await compiler.compileGrammar(text, 'root');
        best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
        c.dispose();
      }
      console.log(`${form} ${best.toFixed(1)}`);
    } catch (e) {
      console.log(`${form} error: ${e && e.message ? e.message : e}`);
    }
  }
})().catch((e) => {
  console.error(e && e.stack ? e.stack : e);
  process.exit(2);
});
