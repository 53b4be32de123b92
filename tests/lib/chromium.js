// tests/lib/chromium.js - headless Chromium driven over the DevTools
// protocol, for tests/lib/browser and tests/lib/page-load.  No npm
// package: Debian's chromium is started with --remote-debugging-pipe and
// spoken to over fds 3 and 4 (JSON messages ended by a NUL byte).
//
//   const b = require("./chromium.js").start({ tool: "browser", width, height,
//                                              timeout: 60 });
//   const r = await b.send(method, params, sessionId);
//   b.finish(status)        kills the browser, removes its profile, exits
//
// What both tools must get right lives here once:
// - the browser's own temporary files (org.chromium.Chromium.*) go into
//   its profile, which is removed at the end, so a run leaves /tmp as it
//   was;
// - the browser and every process it starts (renderer, zygote, crash
//   handler) are one process group, killed together, also when a signal
//   stops the tool;
// - a browser that cannot run (no sandbox it can use, a container
//   without user namespaces) is exit status 3 with its last words and the
//   way out, never a page error.
// CHROMIUM names another binary; HM_BROWSER_TIMEOUT (seconds) overrides
// the tool's timeout.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const os = require("os");
const path = require("path");

function start(o) {
	const bin = process.env.CHROMIUM || "/usr/bin/chromium";
	const profile = fs.mkdtempSync(path.join(os.tmpdir(), "hm-" + o.tool + "-"));
	const flags = ["--headless=new", "--remote-debugging-pipe", "--user-data-dir=" + profile,
		"--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
		"--disable-background-networking", "--disable-sync", "--mute-audio", "--hide-scrollbars",
		"--window-size=" + o.width + "," + o.height, "about:blank"];
	if (process.getuid && process.getuid() === 0) flags.unshift("--no-sandbox");
	const tmp = path.join(profile, "tmp");
	fs.mkdirSync(tmp);
	const child = spawn(bin, flags, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
		env: Object.assign({}, process.env, { TMPDIR: tmp }), detached: true });
	let stderr = "", done = false, gone = false;
	child.stderr.on("data", (d) => { stderr += d; if (stderr.length > 65536) stderr = stderr.slice(-32768); });

	// The profile is removed until it stays removed: a child still dying
	// may write into it while it goes, and one rmSync would leave it half
	// there.
	function cleanup() {
		try { process.kill(-child.pid, "SIGKILL"); } catch (e) {
			try { child.kill("SIGKILL"); } catch (e2) { /* gone */ }
		}
		const nap = new Int32Array(new SharedArrayBuffer(4));
		for (let i = 0; i < 40 && fs.existsSync(profile); i++) {
			try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* again */ }
			if (fs.existsSync(profile)) Atomics.wait(nap, 0, 0, 50);
		}
	}
	// The browser's process group is not ours, so a signal to ours does
	// not reach it: a run stopped by one takes the browser with it.
	const SIGNO = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };
	for (const sig of Object.keys(SIGNO))
		process.on(sig, () => { cleanup(); process.exit(128 + SIGNO[sig]); });

	function finish(status) {
		done = true;
		clearTimeout(timer);
		cleanup();
		process.exit(status);
	}
	function fail(code, msg) {
		if (code === 3 && /sandbox/i.test(stderr))
			msg += "; Chromium found no usable sandbox: it needs user namespaces or its setuid" +
				" helper (Debian's chromium-sandbox, which tools/install-deps test installs)";
		process.stderr.write(o.tool + ": " + msg + "\n");
		if (code === 3 && stderr) process.stderr.write(stderr.split("\n").slice(-5).join("\n") + "\n");
		finish(code);
	}
	// A browser that dies at start shows first as a broken pipe: the
	// browser could not run (3), not an error in the page (1).  Its last
	// words come a moment later on stderr, so wait for them (or its exit)
	// briefly.
	function died(what) {
		if (done || gone) return;
		gone = true;
		const end = () => fail(3, bin + " " + what);
		child.stderr.once("end", end);
		setTimeout(end, 500);
	}
	child.on("error", (e) => fail(3, "cannot start " + bin + ": " + e.message));
	child.on("exit", (c, s) => died("exited (" + (s || c) + ")"));
	const timeout = (+process.env.HM_BROWSER_TIMEOUT || o.timeout) * 1000;
	const timer = setTimeout(() => fail(3, "no answer in " + timeout / 1000 + " s"), timeout);

	// The protocol: a command {id, method, params, sessionId} each way;
	// events go to the listeners.
	const out = child.stdio[3], inp = child.stdio[4];
	out.on("error", (e) => died("closed its pipe (" + (e.code || e.message) + ")"));
	inp.on("error", (e) => died("closed its pipe (" + (e.code || e.message) + ")"));
	inp.on("end", () => died("closed its pipe"));
	let nextId = 1, buf = Buffer.alloc(0);
	const waiting = new Map(), listeners = [];
	inp.on("data", (d) => {
		buf = Buffer.concat([buf, d]);
		let z;
		while ((z = buf.indexOf(0)) >= 0) {
			const msg = JSON.parse(buf.subarray(0, z).toString("utf8"));
			buf = buf.subarray(z + 1);
			if (msg.id && waiting.has(msg.id)) {
				const w = waiting.get(msg.id);
				waiting.delete(msg.id);
				if (msg.error) w.reject(new Error(w.method + ": " + msg.error.message));
				else w.resolve(msg.result);
			} else if (msg.method) {
				listeners.slice().forEach((l) => l(msg));
			}
		}
	});
	function send(method, params, sessionId) {
		const id = nextId++;
		const msg = { id, method, params: params || {} };
		if (sessionId) msg.sessionId = sessionId;
		out.write(JSON.stringify(msg) + "\0");
		return new Promise((resolve, reject) => waiting.set(id, { resolve, reject, method }));
	}
	function once(method) {
		return new Promise((resolve) => {
			const l = (m) => {
				if (m.method === method) {
					listeners.splice(listeners.indexOf(l), 1);
					resolve(m.params);
				}
			};
			listeners.push(l);
		});
	}
	// Run the tool's main(): its status is the exit status; an exception
	// is status 1 (after report(), which prints what the page said), unless
	// the browser died, which died() reports with status 3.
	function run(main, report) {
		main().then(finish, (e) => {
			if (gone) return;
			if (report) report();
			process.stderr.write(o.tool + ": " + e.message + "\n");
			finish(1);
		});
	}
	return { send, once, listeners, run };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

module.exports = { start, sleep };
