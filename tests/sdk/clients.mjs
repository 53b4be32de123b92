// clients.mjs DIR - the real SDK clients against harmony-parse's output,
// over HTTP on the loopback.  Run by clients.sh, which writes into DIR, for
// each completion NAME, what harmony-parse gives for it: NAME.anthropic,
// NAME.anthropic-stream, NAME.chat-completion, NAME.chat-stream,
// NAME.responses and NAME.responses-stream.
//
// A server on 127.0.0.1 (a free port) answers POST /v1/messages,
// /v1/chat/completions and /v1/responses with NAME's stream (NAME is the
// request's model), in pieces of changing size.  The clients
//   @anthropic-ai/sdk  messages.stream().finalMessage()
//   openai             chat.completions.stream().finalChatCompletion()
//   openai             responses.stream().finalResponse()
// assemble it, and what they assemble must deep-equal the non-stream
// shape's object, normalized only where the protocols differ:
//   - chat: the stream carries no usage (a server sends it only when the
//     request asks for stream_options.include_usage), so the
//     chat.completion's usage is left out of the comparison; the client
//     adds `parsed: null` to the message and `parsed_arguments` to each
//     tool call's function, its own fields, left out too; and it keeps the
//     last value of a delta field it does not know (Object.assign) where
//     it joins content: so reasoning_content, harmony-parse's extension,
//     is joined from the chunks the client parsed (its 'chunk' events);
//   - responses: output_text is computed by the client from output, and
//     it adds output_parsed, parsed to output_text parts and
//     parsed_arguments to function calls: its own fields, left out (the
//     wire never has them);
//   - anthropic: the client adds parsed_output (null without an output
//     format in the request) to the message and its text blocks: left out.
// Nothing else is touched.  Exit 0 when all agree, 1 at the first
// difference (shown), and a time limit ends a run that hangs.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

const dir = process.argv[2];
const limit = setTimeout(() => {
	console.error('clients.mjs: no result after 120 s: stopped');
	process.exit(1);
}, 120000);

const names = fs.readdirSync(dir)
	.filter((f) => f.endsWith('.anthropic-stream'))
	.map((f) => f.slice(0, -'.anthropic-stream'.length))
	.sort();

function shapeOf(url) {
	if (url.startsWith('/v1/messages')) return 'anthropic-stream';
	if (url.startsWith('/v1/chat/completions')) return 'chat-stream';
	if (url.startsWith('/v1/responses')) return 'responses-stream';
	return null;
}

let piece = 1;
const server = http.createServer((req, res) => {
	let body = '';
	req.setEncoding('utf8');
	req.on('data', (c) => { body += c; });
	req.on('end', () => {
		const shape = shapeOf(req.url);
		let model;
		try { model = JSON.parse(body).model; } catch { model = null; }
		const file = shape && model && path.join(dir, `${model}.${shape}`);
		if (!file || !fs.existsSync(file)) {
			res.writeHead(404, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ error: { message: `no ${shape} for ${model}` } }));
			return;
		}
		const data = fs.readFileSync(file);
		res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
		// Pieces of 1, 2, 4 ... 512 bytes, so events and UTF-8 are cut anywhere.
		for (let i = 0; i < data.length;) {
			const n = piece;
			piece = piece >= 512 ? 1 : piece * 2;
			res.write(data.subarray(i, i + n));
			i += n;
		}
		res.end();
	});
});

function plain(v) {
	return JSON.parse(JSON.stringify(v));
}

function readJson(name, shape) {
	return JSON.parse(fs.readFileSync(path.join(dir, `${name}.${shape}`), 'utf8'));
}

function chatSide(c) {
	c = plain(c);
	delete c.usage;
	for (const ch of c.choices ?? []) {
		delete ch.message?.parsed;
		for (const t of ch.message?.tool_calls ?? []) delete t.function?.parsed_arguments;
	}
	return c;
}

function anthropicSide(m) {
	m = plain(m);
	delete m.parsed_output;
	for (const b of m.content ?? []) delete b.parsed_output;
	return m;
}

function responsesSide(r) {
	r = plain(r);
	delete r.output_text;
	delete r.output_parsed;
	for (const item of r.output ?? []) {
		delete item.parsed_arguments;
		for (const part of item.content ?? []) delete part.parsed;
	}
	return r;
}

async function chatStream(openai, name, user) {
	const stream = openai.chat.completions.stream({ model: name, messages: user });
	let reasoning = null;
	stream.on('chunk', (chunk) => {
		const r = chunk.choices?.[0]?.delta?.reasoning_content;
		if (typeof r === 'string') reasoning = (reasoning ?? '') + r;
	});
	const c = plain(await stream.finalChatCompletion());
	if (c.choices?.[0]?.message) c.choices[0].message.reasoning_content = reasoning;
	return c;
}

async function main() {
	await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
	const { port } = server.address();
	const base = `http://127.0.0.1:${port}`;
	const anthropic = new Anthropic({ apiKey: 'test', baseURL: base, maxRetries: 0, timeout: 20000 });
	const openai = new OpenAI({ apiKey: 'test', baseURL: `${base}/v1`, maxRetries: 0, timeout: 20000 });
	const user = [{ role: 'user', content: 'hi' }];
	let n = 0;
	for (const name of names) {
		const checks = [
			['anthropic messages.stream().finalMessage()', 'anthropic',
				() => anthropic.messages.stream({ model: name, max_tokens: 1024, messages: user }).finalMessage(),
				anthropicSide, anthropicSide],
			['openai chat.completions.stream().finalChatCompletion()', 'chat-completion',
				() => chatStream(openai, name, user), chatSide, chatSide],
			['openai responses.stream().finalResponse()', 'responses',
				() => openai.responses.stream({ model: name, input: 'hi' }).finalResponse(),
				responsesSide, responsesSide],
		];
		for (const [what, shape, run, norm, normWant] of checks) {
			const got = norm(await run());
			const want = normWant(readJson(name, shape));
			try {
				assert.deepStrictEqual(got, want);
			} catch (e) {
				console.error(`clients.mjs: ${name}: ${what} assembles another object than --to ${shape}:`);
				console.error(e.message);
				process.exitCode = 1;
				return;
			}
			n++;
		}
	}
	console.log(`${names.length} completions, ${n} streams assembled as the non-stream shapes say`);
}

main().catch((e) => {
	console.error(`clients.mjs: ${e.stack || e}`);
	process.exitCode = 1;
}).finally(() => {
	server.close();
	clearTimeout(limit);
});
