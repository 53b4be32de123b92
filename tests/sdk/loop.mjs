// loop.mjs BIN DIR - the agent loop through the real SDKs, over HTTP on
// the loopback, against a server made of the tools (run by loop.sh).
//
// The server renders each request (harmony-render --from DIALECT), takes
// the model's completion for the turn from a script, and answers with
// harmony-parse --with-tokens --to SHAPE (its stream when asked), the
// record's id the request's number.  The clients (openai: Chat
// Completions and Responses; @anthropic-ai/sdk: Messages) each run a
// 4-turn tool loop: two tool calls, a final answer, a new question; the
// model writes each call in one of four header forms (channel first;
// recipient first with <|constrain|>json; recipient first with a bare
// json; channel first with spaced arguments).  Whole, stream joined raw
// (the chunks as they come), and stream through the SDK's helper.  The
// history goes back exactly as the SDK returned it; then once more with
// the reasoning dropped by the client (whole; the server's --store finds
// the turn by its call id), and for Responses through previous_response_id
// (the server's store holds the history; the client sends only new items).  Checked: every
// tool-call turn's next prompt extends its prompt + completion
// (harmony-tokens diff --prefix), every call arrives as a call with its
// arguments, no SDK error, no warning of harmony-render's.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const [bin, dir] = process.argv.slice(2);
const store = path.join(dir, 'store');
// HM_LOOP_PLAIN=1: without the turn's ids and the store, as before them (the check must fail)
const carry = process.env.HM_LOOP_PLAIN ? [] : ['--with-tokens'];
const keep = process.env.HM_LOOP_PLAIN ? [] : ['--store', store];
const limit = setTimeout(() => {
	console.error('loop.mjs: no result after 240 s: stopped');
	process.exit(1);
}, 240000);

function tool(name, args, input) {
	const r = spawnSync(path.join(bin, name), args, { input, encoding: 'utf8' });
	if (r.status !== 0)
		throw new Error(`${name} ${args.join(' ')}: ${r.error ?? `exit ${r.status}`}: ${r.stderr}`);
	return r;
}

const CALL = {
	channel: (a) => `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${a}`,
	recipient: (a) => ` to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>${a}`,
	bare: (a) => ` to=functions.get_weather<|channel|>commentary json<|message|>${a}`,
	spaced: (a) => `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>${a.replace(':', ': ')}`,
};
const CITIES = ['Tokyo', 'Paris'];

function completion(form, turn) {
	let text;
	if (turn < 2) {
		text = `<|channel|>analysis<|message|>The user wants the weather; look up ${CITIES[turn]}.<|end|>` +
			`<|start|>assistant${CALL[form](JSON.stringify({ city: CITIES[turn] }))}<|call|>`;
	} else if (turn === 2) {
		text = '<|channel|>analysis<|message|>Both known.<|end|><|start|>assistant<|channel|>final' +
			'<|message|>Tokyo is sunny; Paris is rainy.<|return|>';
	} else {
		text = '<|channel|>final<|message|>You are welcome.<|return|>';
	}
	return tool('harmony-tokens', ['encode'], text).stdout.trim().split(/\s+/).map(Number);
}

const ROUTES = {
	'/v1/chat/completions': ['chat', 'chat-completion', 'chat-stream'],
	'/v1/responses': ['responses', 'responses', 'responses-stream'],
	'/v1/messages': ['anthropic', 'anthropic', 'anthropic-stream'],
};
const turns = new Map(); // model -> [{prompt, completion}]
const warnings = [];
let requests = 0;

const server = http.createServer((req, res) => {
	let body = '';
	req.setEncoding('utf8');
	req.on('data', (c) => { body += c; });
	req.on('end', () => {
		try {
			const route = ROUTES[req.url.split('?')[0]];
			const r = JSON.parse(body);
			const [dialect, whole, stream] = route;
			const rendered = tool('harmony-render', ['--from', dialect, ...keep], body);
			if (rendered.stderr) warnings.push(`${r.model}: ${rendered.stderr.trim()}`);
			const log = turns.get(r.model) ?? [];
			turns.set(r.model, log);
			const prompt = rendered.stdout.trim().split(/\s+/).map(Number);
			const ids = completion(r.model.split('.')[0], log.length);
			log.push({ prompt, completion: ids });
			// the prompt's ids ride in the record: the store keeps the whole response
			const rec = JSON.stringify({ id: `req-${++requests}`, prompt_token_ids: prompt, output_ids: ids }) + '\n';
			const out = tool('harmony-parse', [...carry, ...keep, '--to', r.stream ? stream : whole], rec).stdout;
			res.writeHead(200, { 'content-type': r.stream ? 'text/event-stream' : 'application/json' });
			res.end(out);
		} catch (e) {
			res.writeHead(500, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: String(e.message || e) } }));
		}
	});
});

const PARAMS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
const QUESTION = 'Weather in Tokyo and Paris?';

// A raw client: the chunks joined as they come (strings appended).
async function chatRaw(openai, body) {
	const msg = { role: 'assistant', content: null };
	const calls = [];
	for await (const chunk of await openai.chat.completions.create({ ...body, stream: true })) {
		for (const [k, v] of Object.entries(chunk.choices[0]?.delta ?? {})) {
			if (k === 'tool_calls') {
				for (const t of v) {
					const c = calls[t.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
					if (t.id) c.id = t.id;
					if (t.function?.name) c.function.name = t.function.name;
					c.function.arguments += t.function?.arguments ?? '';
				}
			} else if (typeof v === 'string' && k !== 'role') {
				msg[k] = (msg[k] ?? '') + v;
			}
		}
	}
	if (calls.length) msg.tool_calls = calls;
	return msg;
}

async function chatTurn(openai, mode, body) {
	if (mode === 'dropped') {
		// a client that keeps no reasoning (nor anything it does not know)
		const m = (await openai.chat.completions.create(body)).choices[0].message;
		delete m.reasoning_content;
		delete m.harmony_tokens;
		return m;
	}
	if (mode === 'whole') return (await openai.chat.completions.create(body)).choices[0].message;
	if (mode === 'raw') return chatRaw(openai, body);
	return (await openai.chat.completions.stream(body).finalChatCompletion()).choices[0].message;
}

async function responsesTurn(openai, mode, body) {
	if (mode === 'dropped')
		return (await openai.responses.create(body)).output.filter((i) => i.type !== 'reasoning');
	if (mode === 'whole') return (await openai.responses.create(body)).output;
	if (mode === 'helper') return (await openai.responses.stream(body).finalResponse()).output;
	const items = [];
	for await (const ev of await openai.responses.create({ ...body, stream: true }))
		if (ev.type === 'response.output_item.done') items.push(ev.item);
	return items;
}

async function anthropicTurn(anthropic, mode, body) {
	if (mode === 'dropped')
		return (await anthropic.messages.create(body)).content.filter((b) => !b.type.endsWith('thinking'));
	if (mode === 'whole') return (await anthropic.messages.create(body)).content;
	if (mode === 'helper') return (await anthropic.messages.stream(body).finalMessage()).content;
	const blocks = [];
	for await (const ev of await anthropic.messages.create({ ...body, stream: true })) {
		if (ev.type === 'content_block_start') {
			blocks[ev.index] = { ...ev.content_block };
			if (ev.content_block.type === 'tool_use') blocks[ev.index].input = '';
		} else if (ev.type === 'content_block_delta') {
			const b = blocks[ev.index], d = ev.delta;
			if (d.type === 'text_delta') b.text += d.text;
			else if (d.type === 'thinking_delta') b.thinking += d.thinking;
			else if (d.type === 'signature_delta') b.signature = d.signature;
			else if (d.type === 'input_json_delta') b.input += d.partial_json;
		} else if (ev.type === 'content_block_stop') {
			const b = blocks[ev.index];
			if (b.type === 'tool_use') b.input = JSON.parse(b.input || '{}');
		}
	}
	return blocks;
}

// One 4-turn loop; returns the calls the client saw, in order.
async function loop(clients, dialect, mode, model) {
	const seen = [];
	const result = (city) => `${city}: ${city === 'Tokyo' ? 'sunny' : 'rainy'}`;
	if (dialect === 'chat') {
		const tools = [{ type: 'function', function: { name: 'get_weather', parameters: PARAMS } }];
		const messages = [{ role: 'user', content: QUESTION }];
		for (let t = 0; t < 4; t++) {
			if (t === 3) messages.push({ role: 'user', content: 'Thanks!' });
			const msg = await chatTurn(clients.openai, mode, { model, messages, tools });
			messages.push(msg);
			for (const c of msg.tool_calls ?? []) {
				seen.push([c.function.name, JSON.parse(c.function.arguments), c.id]);
				messages.push({ role: 'tool', tool_call_id: c.id, content: result(JSON.parse(c.function.arguments).city) });
			}
		}
	} else if (dialect === 'responses') {
		const tools = [{ type: 'function', name: 'get_weather', parameters: PARAMS, strict: false }];
		let input = [{ role: 'user', content: QUESTION }], prev = null;
		for (let t = 0; t < 4; t++) {
			if (t === 3) input.push({ role: 'user', content: 'Thanks!' });
			let output;
			if (mode === 'previous') {
				// the API's stateful loop: only the new items, the rest by id
				const r = await clients.openai.responses.create({ model, input, tools, store: true,
					...(prev ? { previous_response_id: prev } : {}) });
				prev = r.id;
				output = r.output;
				input = [];
			} else {
				output = await responsesTurn(clients.openai, mode, { model, input, tools, include: ['reasoning.encrypted_content'] });
				input.push(...output);
			}
			for (const it of output.filter((i) => i.type === 'function_call')) {
				seen.push([it.name, JSON.parse(it.arguments), it.call_id]);
				input.push({ type: 'function_call_output', call_id: it.call_id, output: result(JSON.parse(it.arguments).city) });
			}
		}
	} else {
		const tools = [{ name: 'get_weather', input_schema: PARAMS }];
		const messages = [{ role: 'user', content: QUESTION }];
		for (let t = 0; t < 4; t++) {
			if (t === 3) messages.push({ role: 'user', content: 'Thanks!' });
			const content = await anthropicTurn(clients.anthropic, mode, { model, max_tokens: 1024, messages, tools });
			messages.push({ role: 'assistant', content });
			const uses = content.filter((b) => b.type === 'tool_use');
			for (const u of uses) seen.push([u.name, u.input, u.id]);
			if (uses.length)
				messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: result(u.input.city) })) });
		}
	}
	return seen;
}

// Whether the next prompt extends prompt + completion: harmony-tokens diff --prefix.
function extends_(model, t) {
	const log = turns.get(model);
	const a = path.join(dir, 'a.ids'), b = path.join(dir, 'b.ids');
	fs.writeFileSync(a, [...log[t].prompt, ...log[t].completion].join(' ') + '\n');
	fs.writeFileSync(b, log[t + 1].prompt.join(' ') + '\n');
	const r = spawnSync(path.join(bin, 'harmony-tokens'), ['diff', '--prefix', a, b], { encoding: 'utf8' });
	return [r.status === 0, (r.stdout + r.stderr).trim()];
}

async function main() {
	await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
	const base = `http://127.0.0.1:${server.address().port}`;
	const clients = {
		anthropic: new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0, timeout: 20000 }),
		openai: new OpenAI({ apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0, timeout: 20000 }),
	};
	let exact = 0, total = 0;
	const ids = new Set();
	const misses = [], errors = [];
	const counts = {};
	for (const dialect of ['chat', 'responses', 'anthropic']) {
		for (const mode of ['whole', 'raw', 'helper', 'dropped', ...(dialect === 'responses' ? ['previous'] : [])]) {
			for (const form of Object.keys(CALL)) {
				const model = `${form}.${dialect}.${mode}`;
				let seen;
				try {
					seen = await loop(clients, dialect, mode, model);
				} catch (e) {
					// an SDK error: its loop's turns count as missed
					errors.push(`${model}: ${e.message || e}`);
					total += 2;
					continue;
				}
				assert.deepEqual(seen.map(([n, a]) => [n, a]),
					CITIES.map((city) => ['get_weather', { city }]), `${model}: the calls as called`);
				for (const [, , id] of seen) {
					assert.ok(!ids.has(id), `${model}: call id ${id} given twice`);
					ids.add(id);
				}
				assert.equal(turns.get(model).length, 4, `${model}: 4 turns`);
				for (const t of [0, 1]) {
					total++;
					const [ok, why] = extends_(model, t);
					const kind = ['dropped', 'previous'].includes(mode) ? mode : 'as returned';
					counts[kind] ??= [0, 0];
					counts[kind][1]++;
					if (ok) exact++, counts[kind][0]++;
					else misses.push(`${model} turn ${t + 1}: ${why}`);
				}
			}
		}
	}
	if (warnings.length) console.error(`harmony-render warned:\n${warnings.join('\n')}`);
	if (misses.length) console.error(misses.join('\n'));
	if (errors.length) console.error(`SDK errors:\n${errors.join('\n')}`);
	console.log(Object.entries(counts).map(([k, [a, b]]) => `${k}: ${a} of ${b}`).join(', '));
	console.log(`${exact} of ${total} tool-call turns token-exact, ${ids.size} call ids all distinct, ${requests} requests`);
	if (exact !== total || warnings.length || errors.length) process.exitCode = 1;
}

main().catch((e) => {
	console.error(`loop.mjs: ${e.stack || e}`);
	process.exitCode = 1;
}).finally(() => {
	server.close();
	clearTimeout(limit);
});
