/*
 * html.c - the HTML pages' core (html_int.h says what each piece is for):
 * escaping, the page frame with its one style sheet and script, token
 * boxes, the lazy token view of a record, and hm_html, the page of token
 * views that harmony-tokens inspect and harmony-render write.
 *
 * A page is one file: its style and script are inline, a Content Security
 * Policy forbids any fetch, so it opens from file:// the same anywhere.
 * The token view keeps a record as data (ids in base 36, the text of each
 * distinct token once) and the script draws boxes only near the screen:
 * a 200,000-token prompt is a page of a few megabytes that scrolls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "html_int.h"

/* BEGIN ASSETS (the page's style and script) */
static const char *const page_css[] = {
	"body{font:15px/1.45 system-ui,sans-serif;margin:0 1.5em 4em;color:#1b1b1b;background:#fff}\n",
	"html{scroll-padding:4.5em 0 3em}\n",
	"h1{font-size:1.3em;margin:.6em 0 .3em}\n",
	"h2{font-size:1.1em;margin:1.2em 0 .3em}\n",
	"code,.tk,.mh,#hm-tip,.txt{font-family:ui-monospace,\"DejaVu Sans Mono\",monospace}\n",
	".bar{position:sticky;top:0;background:#f4f4f4;border-bottom:1px solid #767676;padding:.3em .5em;z-index:2}\n",
	".bar input{font:inherit;width:16em}\n",
	".keys{font-size:13px}\n",
	".keys summary{cursor:pointer}\n",
	"#hm-tip{position:fixed;left:0;right:0;bottom:0;margin:0;padding:.25em 1em;background:#222;color:#fff;font-size:13px;min-height:1.4em;white-space:pre-wrap;z-index:3}\n",
	".tk{display:inline-block;border:1px solid #748080;border-radius:3px;margin:1px 1px;padding:0 2px;min-width:.6em;white-space:pre;font-size:14px;line-height:1.5;background:#f2f7ff;vertical-align:top}\n",
	".tk:nth-child(even){background:#fff6e8}\n",
	".tk:focus{outline:3px solid #036;outline-offset:1px}\n",
	".tk.sp{border:3px double #606;font-weight:bold;background:#f3e8f7}\n",
	".tk.bad{border:1px dashed #8a4b00;background:#fff3d6}\n",
	".tk .ws{color:#5f6b7a}\n",
	".tk .esc{color:#8a4b00}\n",
	".tk.hit{outline:3px dashed #b00;outline-offset:1px}\n",
	".tk.rec{text-decoration:underline wavy #c00}\n",
	".rtag{font:bold 12px ui-monospace,monospace;border:1px solid #c00;background:#fee;color:#900;padding:0 2px;margin:1px;vertical-align:top}\n",
	".gap{display:inline-block;font:italic 12px ui-monospace,monospace;border:2px dashed #c00;background:#fff;color:#900;padding:0 4px;margin:1px 2px;vertical-align:top}\n",
	".msg{border-left:4px solid #6f6f80;margin:.6em 0;padding-left:.6em}\n",
	".msg.out{border-left-style:dotted}\n",
	".msg.call{border-left:6px dashed #1d5a8c}\n",
	".msg.result{border-left:6px double #2e6b34}\n",
	".msg.final{border-left:6px solid #1b1b1b}\n",
	".kind{font-weight:bold;border:1px solid #1b1b1b;border-radius:3px;padding:0 3px;text-transform:uppercase;font-size:12px}\n",
	".mh{font-size:13px;color:#333;margin-bottom:.2em}\n",
	".mh b{font-weight:bold}\n",
	".mh .tv{font:12px system-ui,sans-serif;padding:0 .4em}\n",
	".txt{white-space:pre-wrap;font-size:14px;border:1px solid #767676;background:#fafafa;padding:.3em .5em;margin:.2em 0}\n",
	".blk{contain:content}\n",
	".recs{font-size:13px}\n",
	".recs button{font:inherit}\n",
	".sum{font-size:13px;color:#333}\n",
	NULL,
};

static const char *const page_js[] = {
	"\"use strict\";\n",
	"var HM = (function () {\n",
	"var recs = [], voc = null, tip = null, cur = null, hits = [], hitAt = -1, drawn = new Set(), blockIO = null, recIO = null, pending = false;\n",
	"function esc(s) {\n",
	"	return s.replace(/[&<>\"]/g, function (c) {\n",
	"		return c === \"&\" ? \"&amp;\" : c === \"<\" ? \"&lt;\" : c === \">\" ? \"&gt;\" : \"&quot;\";\n",
	"	});\n",
	"}\n",
	"var WS = { \" \": \"\\u00b7\", \"\\t\": \"\\u2192\", \"\\n\": \"\\u21b5\", \"\\r\": \"\\u240d\" };\n",
	"function visible(s) {\n",
	"	var o = \"\", i, c, k;\n",
	"	for (i = 0; i < s.length; i++) {\n",
	"		c = s[i];\n",
	"		if (WS[c]) o += '<span class=\"ws\">' + WS[c] + \"</span>\";\n",
	"		else if ((k = c.charCodeAt(0)) < 32 || k === 127)\n",
	"			o += '<span class=\"esc\">\\\\x' + (k < 16 ? \"0\" : \"\") + k.toString(16) + \"</span>\";\n",
	"		else o += esc(c);\n",
	"	}\n",
	"	return o;\n",
	"}\n",
	"/* what each special token of the format means */\n",
	"var MEANING = {\n",
	"	\"<|start|>\": \"starts a message; its header follows (the role, then maybe to=recipient, <|channel|>, <|constrain|>)\",\n",
	"	\"<|end|>\": \"ends a message; another may follow\",\n",
	"	\"<|message|>\": \"ends the header; the message's content follows\",\n",
	"	\"<|channel|>\": \"the channel's name follows (analysis, commentary or final)\",\n",
	"	\"<|constrain|>\": \"the content's type follows (for a tool call, e.g. json)\",\n",
	"	\"<|return|>\": \"ends the final answer: the model is done\",\n",
	"	\"<|call|>\": \"ends a tool call: the tool runs next, its result comes back as a message\",\n",
	"	\"<|endoftext|>\": \"the end of a text\",\n",
	"	\"<|startoftext|>\": \"the start of a text\"\n",
	"};\n",
	"function meaning(t) {\n",
	"	return MEANING[t] || \"a special token the format reserves\";\n",
	"}\n",
	"/* a message's kind, told by a word and a border, not by colour alone */\n",
	"function kind(g) {\n",
	"	if (g.out) return \"\";\n",
	"	if (g.role === \"tool\" || (g.name != null && g.role !== \"assistant\" && g.role !== \"user\")) return \"result\";\n",
	"	if (g.recipient != null && g.recipient !== \"all\") return \"call\";\n",
	"	if (g.channel === \"final\") return \"final\";\n",
	"	return \"\";\n",
	"}\n",
	"var KIND = { call: \"tool call\", result: \"tool result\", final: \"final answer\" };\n",
	"function show(el) {\n",
	"	var hv = el.closest(\".hv\"), v = hv && hv.hmRec ? hv.hmRec.view : null, t, i = +el.dataset.i, s, sp = el.classList.contains(\"sp\");\n",
	"	if (!tip) return;\n",
	"	t = \"token \" + i + \"  id \" + el.dataset.id + \"  \" +\n",
	"	    (sp ? \"special\" : el.classList.contains(\"bad\") ? \"not UTF-8 alone\" : \"ordinary\") +\n",
	"	    \"  \" + el.textContent;\n",
	"	if (sp) t += \": \" + meaning(el.textContent);\n",
	"	if (v) {\n",
	"		s = v.describe(i);\n",
	"		if (s) t += \"  \\u2014 \" + s;\n",
	"	}\n",
	"	tip.textContent = t;\n",
	"}\n",
	"/* the token that takes Tab: one on the page, tabindex 0 */\n",
	"function stop(el) {\n",
	"	if (cur && cur !== el) cur.tabIndex = -1;\n",
	"	cur = el;\n",
	"	el.tabIndex = 0;\n",
	"}\n",
	"function focusEl(el) {\n",
	"	stop(el);\n",
	"	el.focus({ preventScroll: true });\n",
	"	el.scrollIntoView({ block: \"nearest\" });\n",
	"	show(el);\n",
	"}\n",
	"/* the screen's band between the toolbar and the status line */\n",
	"function band() {\n",
	"	var b = document.querySelector(\".bar\"), top = b ? b.getBoundingClientRect().bottom : 0;\n",
	"	return [Math.max(top, 0), tip ? tip.getBoundingClientRect().top : innerHeight];\n",
	"}\n",
	"function onScreen(el) {\n",
	"	var r = el.getBoundingClientRect(), y = band();\n",
	"	return r.bottom > y[0] && r.top < y[1] && r.height > 0;\n",
	"}\n",
	"/* After a scroll, Tab reaches a token on screen unless one has the focus. */\n",
	"function retab() {\n",
	"	var a = document.activeElement, y, best = null, bt = Infinity, el;\n",
	"	pending = false;\n",
	"	if (a && a.classList && a.classList.contains(\"tk\")) return;\n",
	"	if (cur && cur.isConnected && onScreen(cur)) return;\n",
	"	y = band();\n",
	"	drawn.forEach(function (blk) {\n",
	"		var r = blk.getBoundingClientRect();\n",
	"		if (r.bottom > y[0] && r.top < y[1] && r.top < bt) { bt = r.top; best = blk; }\n",
	"	});\n",
	"	if (!best) return;\n",
	"	el = Array.prototype.find.call(best.querySelectorAll(\".tk\"), function (e) {\n",
	"		return e.getBoundingClientRect().bottom > y[0];\n",
	"	});\n",
	"	if (el) stop(el);\n",
	"}\n",
	"function later() {\n",
	"	if (!pending) { pending = true; requestAnimationFrame(retab); }\n",
	"}\n",
	"/* The page's tokens' texts (v), boxes (x) and special ones (s), read from\n",
	"   every script.hm-voc when first needed: each holds the tokens new to the\n",
	"   page in its record. */\n",
	"function vocab() {\n",
	"	if (!voc) {\n",
	"		voc = { v: {}, x: {}, s: {} };\n",
	"		document.querySelectorAll(\"script.hm-voc\").forEach(function (e) {\n",
	"			var d = JSON.parse(e.textContent);\n",
	"			Object.assign(voc.v, d.v);\n",
	"			Object.assign(voc.x, d.x);\n",
	"			Object.assign(voc.s, d.s);\n",
	"		});\n",
	"	}\n",
	"	return voc;\n",
	"}\n",
	"/* One record's tokens: the data (ids, texts, messages, recoveries) read\n",
	"   when first needed, the boxes built when it comes near the screen and\n",
	"   drawn a block at a time. */\n",
	"function View(rec, d) {\n",
	"	var self = this, ids = d.ids ? d.ids.split(\",\") : [], i, at = 0;\n",
	"	this.rec = rec;\n",
	"	this.root = rec.hv;\n",
	"	this.no = rec.no;\n",
	"	this.n = ids.length;\n",
	"	this.ids = new Uint32Array(ids.length);\n",
	"	for (i = 0; i < ids.length; i++) this.ids[i] = parseInt(ids[i], 36);\n",
	"	this.v = vocab().v;\n",
	"	this.x = voc.x;\n",
	"	this.s = voc.s;\n",
	"	this.cache = new Map();\n",
	"	this.warn = new Map();\n",
	"	(d.w || []).forEach(function (w) {\n",
	"		var a = Math.min(w[0], Math.max(self.n - 1, 0));\n",
	"		if (!self.warn.has(a)) self.warn.set(a, []);\n",
	"		self.warn.get(a).push(w);\n",
	"	});\n",
	"	this.wat = Array.from(this.warn.keys()).sort(function (a, b) { return a - b; });\n",
	"	this.hit = new Set();\n",
	"	/* the groups: messages, and tokens in none between them */\n",
	"	this.groups = [];\n",
	"	(d.m || []).slice().sort(function (a, b) { return a[0] - b[0]; }).forEach(function (m) {\n",
	"		if (m[0] > at) self.groups.push({ from: at, to: m[0], out: true });\n",
	"		/* [from, to, stop, role, channel, recipient, content type, name]: absent parts at the end left out */\n",
	"		self.groups.push({ from: m[0], to: Math.max(m[1], m[0]), stop: m[2], role: m[3],\n",
	"		    channel: m[4], recipient: m[5], ctype: m[6], name: m[7] });\n",
	"		at = Math.max(at, m[1]);\n",
	"	});\n",
	"	if (at < this.n) this.groups.push({ from: at, to: this.n, out: true });\n",
	"	/* a message without its terminator: a marked gap after its last token */\n",
	"	this.gap = new Map();\n",
	"	this.groups.forEach(function (g) {\n",
	"		if (!g.out && (g.stop === \"eos\" || g.stop === \"none\") && g.to > g.from) self.gap.set(g.to - 1, g);\n",
	"	});\n",
	"	this.nmsg = (d.m || []).length;\n",
	"	this.blocks = [];\n",
	"	this.built = false;\n",
	"}\n",
	"View.prototype.text = function (id) {\n",
	"	var k = id.toString(36), t = this.v[k];\n",
	"	if (t === undefined) t = this.s[k];\n",
	"	return t === undefined ? \"\\ufffd\" : t;\n",
	"};\n",
	"View.prototype.html = function (id) {\n",
	"	var h = this.cache.get(id), k = id.toString(36);\n",
	"	if (h === undefined) {\n",
	"		h = this.x[k] !== undefined ? this.x[k] : this.s[k] !== undefined ? esc(this.text(id)) : visible(this.text(id));\n",
	"		this.cache.set(id, h);\n",
	"	}\n",
	"	return h;\n",
	"};\n",
	"View.prototype.label = function (g, k) {\n",
	"	var s, kd = kind(g);\n",
	"	if (g.out)\n",
	"		return (this.ids[g.from] === 200006 ? \"a header not finished\" : \"tokens in no message\") +\n",
	"		    \" \\u00b7 \" + (g.to - g.from) + \" tokens (\" + g.from + \"\\u2013\" + (g.to - 1) + \")\";\n",
	"	s = (kd ? '<span class=\"kind\">' + KIND[kd] + \"</span> \" : \"\") + \"#\" + k + \" <b>\" + esc(g.role || \"?\") + \"</b>\";\n",
	"	if (g.name != null) s += \" \" + esc(g.name);\n",
	"	if (g.channel != null) s += \" channel: \" + esc(g.channel);\n",
	"	if (g.recipient != null) s += \" to: \" + esc(g.recipient);\n",
	"	if (g.ctype != null) s += \" type: \" + esc(g.ctype);\n",
	"	s += \" \\u00b7 \" + (g.to - g.from) + \" tokens (\" + g.from + \"\\u2013\" + (g.to - 1) + \")\";\n",
	"	if (g.stop === \"eos\") s += \" \\u00b7 cut off\";\n",
	"	else if (g.stop === \"none\") s += \" \\u00b7 not ended\";\n",
	"	return s;\n",
	"};\n",
	"/* the message's content as text: from after its <|message|> to its stop token */\n",
	"View.prototype.content = function (g) {\n",
	"	var a = [], i = g.from, j, end = g.to;\n",
	"	for (j = g.from; j < g.to; j++) if (this.ids[j] === 200008) { i = j + 1; break; }\n",
	"	if (end > i && this.s[this.ids[end - 1].toString(36)] !== undefined) end--;\n",
	"	for (j = i; j < end; j++) a.push(this.text(this.ids[j]));\n",
	"	return a.join(\"\");\n",
	"};\n",
	"View.prototype.build = function () {\n",
	"	var self = this, f = document.createDocumentFragment(), B = 400, k = 0;\n",
	"	var width = Math.max(this.root.clientWidth - 40, 200), cw = 8.6, lh = 25;\n",
	"	if (this.built) return;\n",
	"	this.built = true;\n",
	"	this.groups.forEach(function (g, gi) {\n",
	"		var el = document.createElement(\"div\"), h = document.createElement(\"div\"), b = document.createElement(\"div\"), i, j, w, lines, t, c, kd = kind(g), tb;\n",
	"		el.className = g.out ? \"msg out\" : \"msg\" + (kd ? \" \" + kd : \"\");\n",
	"		if (!g.out) {\n",
	"			k++;\n",
	"			el.dataset.role = g.role || \"\";\n",
	"			if (g.channel != null) el.dataset.channel = g.channel;\n",
	"			if (g.recipient != null) el.dataset.recipient = g.recipient;\n",
	"			if (g.ctype != null) el.dataset.ctype = g.ctype;\n",
	"			if (g.name != null) el.dataset.name = g.name;\n",
	"			if (kd) el.dataset.kind = kd;\n",
	"		}\n",
	"		el.dataset.tokens = g.to - g.from;\n",
	"		g.k = k;\n",
	"		g.el = el;\n",
	"		h.className = \"mh\";\n",
	"		h.innerHTML = self.label(g, k);\n",
	"		if (!g.out) {\n",
	"			tb = document.createElement(\"button\");\n",
	"			tb.type = \"button\";\n",
	"			tb.className = \"tv\";\n",
	"			tb.tabIndex = -1; /* t on a token; Tab goes to the tokens */\n",
	"			tb.textContent = \"text\";\n",
	"			tb.setAttribute(\"aria-expanded\", \"false\");\n",
	"			tb.setAttribute(\"aria-label\", \"message \" + k + \" as text\");\n",
	"			tb.hmGroup = g;\n",
	"			tb.hmView = self;\n",
	"			h.appendChild(document.createTextNode(\" \"));\n",
	"			h.appendChild(tb);\n",
	"		}\n",
	"		el.appendChild(h);\n",
	"		b.className = \"mb\";\n",
	"		el.appendChild(b);\n",
	"		for (i = g.from; i < g.to; i += B) {\n",
	"			var blk = document.createElement(\"div\");\n",
	"			blk.className = \"blk\";\n",
	"			blk.hmFrom = i;\n",
	"			blk.hmTo = Math.min(i + B, g.to);\n",
	"			blk.hmView = self;\n",
	"			/* a guess of its height until it is drawn */\n",
	"			w = 0; lines = 1;\n",
	"			for (j = blk.hmFrom; j < blk.hmTo; j++) {\n",
	"				t = self.text(self.ids[j]);\n",
	"				c = t.length * cw + 8;\n",
	"				if (w + c > width) { lines++; w = 0; }\n",
	"				w += c;\n",
	"				if (t.indexOf(\"\\n\") >= 0) { lines++; w = 0; }\n",
	"			}\n",
	"			blk.style.height = lines * lh + \"px\";\n",
	"			self.blocks.push(blk);\n",
	"			b.appendChild(blk);\n",
	"		}\n",
	"		f.appendChild(el);\n",
	"	});\n",
	"	this.root.appendChild(f);\n",
	"	this.root.style.minHeight = \"\";\n",
	"	this.blocks.forEach(function (blk) { blockIO.observe(blk); });\n",
	"};\n",
	"/* the text view of message g: shown, or hidden again */\n",
	"View.prototype.toggleText = function (g, on) {\n",
	"	var el = g.el, pre = el.querySelector(\".txt\"), tb = el.querySelector(\".tv\");\n",
	"	if (on === undefined) on = !pre;\n",
	"	if (on && !pre) {\n",
	"		pre = document.createElement(\"pre\");\n",
	"		pre.className = \"txt\";\n",
	"		pre.tabIndex = 0;\n",
	"		pre.setAttribute(\"aria-label\", \"message \" + g.k + \", its content as text\");\n",
	"		pre.textContent = this.content(g);\n",
	"		el.insertBefore(pre, el.querySelector(\".mb\"));\n",
	"	} else if (!on && pre) {\n",
	"		pre.remove();\n",
	"	}\n",
	"	if (tb) tb.setAttribute(\"aria-expanded\", on ? \"true\" : \"false\");\n",
	"	return on ? pre : null;\n",
	"};\n",
	"View.prototype.draw = function (blk) {\n",
	"	var o = \"\", i, id, c, ws, j, k, g, sp, code;\n",
	"	if (blk.hmDrawn) return;\n",
	"	for (i = blk.hmFrom; i < blk.hmTo; i++) {\n",
	"		id = this.ids[i];\n",
	"		k = id.toString(36);\n",
	"		c = \"tk\";\n",
	"		sp = this.s[k] !== undefined;\n",
	"		if (sp) c += \" sp\";\n",
	"		else if (this.x[k] !== undefined) c += \" bad\";\n",
	"		if (this.hit.has(i)) c += \" hit\";\n",
	"		ws = this.warn.get(i);\n",
	"		if (ws) {\n",
	"			c += \" rec\";\n",
	"			for (j = 0; j < ws.length; j++)\n",
	"				o += '<mark class=\"rtag\" data-code=\"' + esc(ws[j][1]) + '\" data-i=\"' + i + '\" title=\"' +\n",
	"				    esc(ws[j][2]) + '\">' + esc(ws[j][1]) + \"</mark>\";\n",
	"		}\n",
	"		o += '<span class=\"' + c + '\" tabindex=\"-1\" data-i=\"' + i + '\" data-id=\"' + id + '\"' +\n",
	"		    (sp ? ' title=\"' + esc(meaning(this.text(id))) + '\"' : \"\") + \">\" + this.html(id) + \"</span>\";\n",
	"		if (!sp && this.text(id).slice(-1) === \"\\n\") o += \"<br>\";\n",
	"		if ((g = this.gap.get(i))) {\n",
	"			code = ws ? ws[0][1] : g.stop === \"eos\" ? \"F10\" : \"\";\n",
	"			o += '<mark class=\"gap\" data-i=\"' + i + '\"' + (ws ? ' data-code=\"' + esc(code) + '\"' : \"\") +\n",
	"			    \">no terminator\" + (ws ? \" \\u00b7 \" + esc(code) : \"\") + \"</mark>\";\n",
	"		}\n",
	"	}\n",
	"	blk.innerHTML = o;\n",
	"	blk.style.height = \"\";\n",
	"	blk.hmDrawn = true;\n",
	"	drawn.add(blk);\n",
	"};\n",
	"View.prototype.undraw = function (blk) {\n",
	"	if (!blk.hmDrawn || blk.contains(document.activeElement)) return;\n",
	"	blk.style.height = blk.offsetHeight + \"px\";\n",
	"	blk.innerHTML = \"\";\n",
	"	blk.hmDrawn = false;\n",
	"	drawn.delete(blk);\n",
	"};\n",
	"View.prototype.block = function (i) {\n",
	"	var lo = 0, hi = this.blocks.length - 1, m;\n",
	"	while (lo < hi) {\n",
	"		m = (lo + hi + 1) >> 1;\n",
	"		if (this.blocks[m].hmFrom <= i) lo = m; else hi = m - 1;\n",
	"	}\n",
	"	return this.blocks[lo];\n",
	"};\n",
	"View.prototype.box = function (i) {\n",
	"	var blk;\n",
	"	if (i < 0 || i >= this.n) return null;\n",
	"	this.build();\n",
	"	blk = this.block(i);\n",
	"	this.draw(blk);\n",
	"	return blk.querySelector('[data-i=\"' + i + '\"].tk');\n",
	"};\n",
	"View.prototype.group = function (i) {\n",
	"	var g = this.groups, lo = 0, hi = g.length - 1, m;\n",
	"	while (lo < hi) {\n",
	"		m = (lo + hi + 1) >> 1;\n",
	"		if (g[m].from <= i) lo = m; else hi = m - 1;\n",
	"	}\n",
	"	return g[lo];\n",
	"};\n",
	"View.prototype.describe = function (i) {\n",
	"	var g = this.group(i), s, kd = kind(g);\n",
	"	if (!g) return \"\";\n",
	"	if (g.k === undefined) this.build();\n",
	"	s = g.out ? \"in no message\" :\n",
	"	    \"message \" + g.k + \" (\" + g.role + (g.channel != null ? \", \" + g.channel : \"\") + (kd ? \", \" + KIND[kd] : \"\") + \")\";\n",
	"	s = \"record \" + (this.no + 1) + \", \" + s;\n",
	"	(this.warn.get(i) || []).forEach(function (w) { s += \"  \" + w[1] + \": \" + w[2]; });\n",
	"	return s;\n",
	"};\n",
	"/* the record's text and where each token starts in it, for search */\n",
	"View.prototype.joined = function () {\n",
	"	var a = [], i;\n",
	"	if (this.all !== undefined) return;\n",
	"	this.starts = new Uint32Array(this.n + 1);\n",
	"	var at = 0;\n",
	"	for (i = 0; i < this.n; i++) {\n",
	"		this.starts[i] = at;\n",
	"		a.push(this.text(this.ids[i]));\n",
	"		at += a[i].length;\n",
	"	}\n",
	"	this.starts[this.n] = at;\n",
	"	this.all = a.join(\"\");\n",
	"};\n",
	"View.prototype.tokAt = function (off) {\n",
	"	var lo = 0, hi = this.n - 1, m, s = this.starts;\n",
	"	while (lo < hi) {\n",
	"		m = (lo + hi + 1) >> 1;\n",
	"		if (s[m] <= off) lo = m; else hi = m - 1;\n",
	"	}\n",
	"	return lo;\n",
	"};\n",
	"View.prototype.search = function (q, out) {\n",
	"	var i, p, a, b, j, id = /^[0-9]+$/.test(q) ? +q : -1, first = new Set();\n",
	"	this.hit.clear();\n",
	"	if (!q) return;\n",
	"	if (id >= 0)\n",
	"		for (i = 0; i < this.n; i++)\n",
	"			if (this.ids[i] === id) { this.hit.add(i); first.add(i); }\n",
	"	this.joined();\n",
	"	for (p = this.all.indexOf(q); p >= 0 && first.size < 100000; p = this.all.indexOf(q, p + 1)) {\n",
	"		a = this.tokAt(p);\n",
	"		b = this.tokAt(p + q.length - 1);\n",
	"		first.add(a);\n",
	"		for (j = a; j <= b; j++) this.hit.add(j);\n",
	"	}\n",
	"	Array.from(first).sort(function (x, y) { return x - y; }).forEach(function (i) { out.push([this, i]); }, this);\n",
	"};\n",
	"View.prototype.repaint = function () {\n",
	"	var self = this;\n",
	"	this.blocks.forEach(function (blk) {\n",
	"		if (!blk.hmDrawn) return;\n",
	"		blk.querySelectorAll(\".tk\").forEach(function (el) {\n",
	"			el.classList.toggle(\"hit\", self.hit.has(+el.dataset.i));\n",
	"		});\n",
	"	});\n",
	"};\n",
	"/* A record's section: its view made when first needed. */\n",
	"function Rec(sec, no) {\n",
	"	this.sec = sec;\n",
	"	this.no = no;\n",
	"	this.hv = sec.querySelector(\".hv\");\n",
	"	this.n = +sec.dataset.n || 0;\n",
	"	this.nmsg = +sec.dataset.m || 0;\n",
	"	this.nw = +sec.dataset.w || 0;\n",
	"	this.view = null;\n",
	"	this.hv.hmRec = this;\n",
	"}\n",
	"Rec.prototype.data = function () {\n",
	"	var s;\n",
	"	if (!this.view) {\n",
	"		s = this.sec.querySelector(\"script.hm-data\");\n",
	"		this.view = new View(this, JSON.parse(s.textContent));\n",
	"	}\n",
	"	return this.view;\n",
	"};\n",
	"Rec.prototype.open = function () {\n",
	"	var v = this.data();\n",
	"	v.build();\n",
	"	return v;\n",
	"};\n",
	"function find(q) {\n",
	"	hits = [];\n",
	"	hitAt = -1;\n",
	"	recs.forEach(function (r) {\n",
	"		var v;\n",
	"		if (!q && !r.view) return;\n",
	"		v = r.data();\n",
	"		v.search(q, hits);\n",
	"		v.repaint();\n",
	"	});\n",
	"	var o = document.getElementById(\"hm-qn\");\n",
	"	if (o) o.textContent = q ? hits.length + (hits.length === 1 ? \" match\" : \" matches\") : \"\";\n",
	"}\n",
	"function next(d) {\n",
	"	var h, el, o = document.getElementById(\"hm-qn\");\n",
	"	if (!hits.length) return;\n",
	"	hitAt = (hitAt + d + hits.length) % hits.length;\n",
	"	h = hits[hitAt];\n",
	"	el = h[0].box(h[1]);\n",
	"	if (el) focusEl(el);\n",
	"	if (o) o.textContent = \"match \" + (hitAt + 1) + \" of \" + hits.length;\n",
	"}\n",
	"function viewOf(el) {\n",
	"	var hv = el.closest(\".hv\");\n",
	"	return hv && hv.hmRec ? hv.hmRec.open() : null;\n",
	"}\n",
	"/* the next record from no with tokens, d records a step (its view) */\n",
	"function recFrom(no, d) {\n",
	"	for (no += d; no >= 0 && no < recs.length; no += d)\n",
	"		if (recs[no].n) return recs[no].open();\n",
	"	return null;\n",
	"}\n",
	"/* the box d tokens from el (d: +-1, or +-Infinity for the record's first and last) */\n",
	"function move(el, d) {\n",
	"	var v = viewOf(el), all, k, t, w;\n",
	"	if (v) {\n",
	"		k = +el.dataset.i;\n",
	"		t = d === Infinity ? v.n - 1 : d === -Infinity ? 0 : k + d;\n",
	"		if (t >= v.n) return (w = recFrom(v.no, 1)) ? w.box(0) : el;\n",
	"		if (t < 0) return (w = recFrom(v.no, -1)) ? w.box(w.n - 1) : el;\n",
	"		return v.box(t);\n",
	"	}\n",
	"	all = Array.prototype.slice.call(document.querySelectorAll(\".tk\"));\n",
	"	k = all.indexOf(el);\n",
	"	t = d === Infinity ? all.length - 1 : d === -Infinity ? 0 : k + d;\n",
	"	return all[Math.max(0, Math.min(all.length - 1, t))];\n",
	"}\n",
	"/* static boxes (the diff page): the next or previous <|start|> in the page's order */\n",
	"function nextStart(el, d) {\n",
	"	var all = Array.prototype.slice.call(document.querySelectorAll(\".tk\")), k = all.indexOf(el);\n",
	"	for (k += d; k >= 0 && k < all.length; k += d)\n",
	"		if (all[k].dataset.id === \"200006\" && all[k].checkVisibility()) return all[k];\n",
	"	return el;\n",
	"}\n",
	"/* the diff page: the first differing token of the next (d 1) or previous (d -1) record */\n",
	"function nextDiff(el, d) {\n",
	"	var secs = Array.prototype.slice.call(document.querySelectorAll(\"section.diff\")), s = el.closest(\"section.diff\"),\n",
	"	    k = secs.indexOf(s), t;\n",
	"	for (k += d; k >= 0 && k < secs.length; k += d) {\n",
	"		t = secs[k].querySelector(\".side .first .tk\") || secs[k].querySelector(\".tk\");\n",
	"		if (t && t.checkVisibility()) return t;\n",
	"		t = secs[k].querySelector(\"summary\");\n",
	"		if (t) return t;\n",
	"	}\n",
	"	return el;\n",
	"}\n",
	"/* the first token of the next (d 1) or previous (d -1) message, across records */\n",
	"function nextMessage(el, d) {\n",
	"	var v = viewOf(el), gi, w;\n",
	"	if (!v) return nextStart(el, d);\n",
	"	gi = v.groups.indexOf(v.group(+el.dataset.i)) + d;\n",
	"	if (gi >= v.groups.length) return (w = recFrom(v.no, 1)) ? w.box(0) : el;\n",
	"	if (gi < 0) return (w = recFrom(v.no, -1)) ? w.box(w.groups[w.groups.length - 1].from) : el;\n",
	"	return v.box(v.groups[gi].from);\n",
	"}\n",
	"function nextRecord(el, d) {\n",
	"	var v = viewOf(el), w;\n",
	"	if (!v) return el;\n",
	"	return (w = recFrom(v.no, d)) ? w.box(0) : el;\n",
	"}\n",
	"/* the page's first or last token */\n",
	"function pageEnd(d) {\n",
	"	var w = recFrom(d > 0 ? -1 : recs.length, d), all;\n",
	"	if (w) return w.box(d > 0 ? 0 : w.n - 1);\n",
	"	all = document.querySelectorAll(\".tk\");\n",
	"	return all.length ? all[d > 0 ? 0 : all.length - 1] : null;\n",
	"}\n",
	"/* the next or previous recovery's token, across records */\n",
	"function nextRecovery(el, d) {\n",
	"	var v = viewOf(el), i = +el.dataset.i, a, j, no, w;\n",
	"	if (!v) return el;\n",
	"	a = v.wat;\n",
	"	if (d > 0) { for (j = 0; j < a.length; j++) if (a[j] > i) return v.box(a[j]); }\n",
	"	else { for (j = a.length - 1; j >= 0; j--) if (a[j] < i) return v.box(a[j]); }\n",
	"	for (no = v.no + d; no >= 0 && no < recs.length; no += d)\n",
	"		if (recs[no].nw && recs[no].n) {\n",
	"			w = recs[no].open();\n",
	"			if (w.wat.length) return w.box(w.wat[d > 0 ? 0 : w.wat.length - 1]);\n",
	"		}\n",
	"	return el;\n",
	"}\n",
	"function init() {\n",
	"	var total = 0, msgs = 0, first, q = document.getElementById(\"hm-q\"), o, width = 0, secs;\n",
	"	tip = document.getElementById(\"hm-tip\");\n",
	"	blockIO = new IntersectionObserver(function (es) {\n",
	"		es.forEach(function (e) {\n",
	"			var v = e.target.hmView;\n",
	"			if (e.isIntersecting) v.draw(e.target);\n",
	"			else v.undraw(e.target);\n",
	"		});\n",
	"		later();\n",
	"	}, { rootMargin: \"1200px 0px\" });\n",
	"	recIO = new IntersectionObserver(function (es) {\n",
	"		es.forEach(function (e) {\n",
	"			if (e.isIntersecting) {\n",
	"				recIO.unobserve(e.target);\n",
	"				e.target.hmRec.open();\n",
	"			}\n",
	"		});\n",
	"	}, { rootMargin: \"1200px 0px\" });\n",
	"	secs = document.querySelectorAll(\"section.rec\");\n",
	"	secs.forEach(function (sec) {\n",
	"		var r;\n",
	"		if (!sec.querySelector(\"script.hm-data\")) return;\n",
	"		r = new Rec(sec, recs.length);\n",
	"		recs.push(r);\n",
	"		total += r.n;\n",
	"		msgs += r.nmsg;\n",
	"		/* a guess of the record's height until it is built */\n",
	"		if (!width) width = Math.max(r.hv.clientWidth - 40, 200);\n",
	"		r.hv.style.minHeight = Math.ceil(((+sec.dataset.c || 0) * 8.6 + r.n * 8) / width) * 25 +\n",
	"		    r.nmsg * 30 + \"px\";\n",
	"		recIO.observe(r.hv);\n",
	"	});\n",
	"	o = document.getElementById(\"hm-total\");\n",
	"	if (o) o.textContent = \"total: \" + total + (total === 1 ? \" token, \" : \" tokens, \") + msgs +\n",
	"	    (msgs === 1 ? \" message\" : \" messages\") + (recs.length > 1 ? \" in \" + recs.length + \" records\" : \"\");\n",
	"	first = recs.length ? pageEnd(1) : document.querySelector(\".tk\");\n",
	"	if (first) stop(first);\n",
	"	window.addEventListener(\"scroll\", later, { passive: true });\n",
	"	document.addEventListener(\"mouseover\", function (e) {\n",
	"		var el = e.target.closest && e.target.closest(\".tk\");\n",
	"		if (el) show(el);\n",
	"	});\n",
	"	document.addEventListener(\"focusin\", function (e) {\n",
	"		if (e.target.classList && e.target.classList.contains(\"tk\")) {\n",
	"			stop(e.target);\n",
	"			show(cur);\n",
	"		}\n",
	"	});\n",
	"	document.addEventListener(\"click\", function (e) {\n",
	"		var b = e.target.closest && e.target.closest(\"button\"), hv, el;\n",
	"		if (!b) return;\n",
	"		if (b.classList.contains(\"tv\")) {\n",
	"			b.hmView.toggleText(b.hmGroup);\n",
	"		} else if (b.closest(\".recs\") && (hv = b.closest(\"section.rec\").querySelector(\".hv\")) && hv.hmRec) {\n",
	"			el = hv.hmRec.open().box(+b.dataset.i);\n",
	"			if (el) focusEl(el);\n",
	"		}\n",
	"	});\n",
	"	document.addEventListener(\"keydown\", function (e) {\n",
	"		var el = e.target, t = null, v, g, pre;\n",
	"		if (e.key === \"/\" && el.tagName !== \"INPUT\" && q) { q.focus(); e.preventDefault(); return; }\n",
	"		if (e.key === \"Escape\" && el.classList && el.classList.contains(\"txt\")) {\n",
	"			t = el.closest(\".msg\");\n",
	"			el = t.querySelector(\".tk\") || pageEnd(1);\n",
	"			if (el) focusEl(el);\n",
	"			e.preventDefault();\n",
	"			return;\n",
	"		}\n",
	"		if (!el.classList || !el.classList.contains(\"tk\") || e.altKey || e.metaKey) return;\n",
	"		switch (e.key) {\n",
	"		case \"ArrowRight\": t = move(el, 1); break;\n",
	"		case \"ArrowLeft\": t = move(el, -1); break;\n",
	"		case \"ArrowDown\": t = nextMessage(el, 1); break;\n",
	"		case \"ArrowUp\": t = nextMessage(el, -1); break;\n",
	"		case \"PageDown\": t = nextRecord(el, 1); break;\n",
	"		case \"PageUp\": t = nextRecord(el, -1); break;\n",
	"		case \"Home\": t = e.ctrlKey ? pageEnd(1) : move(el, -Infinity); break;\n",
	"		case \"End\": t = e.ctrlKey ? pageEnd(-1) : move(el, Infinity); break;\n",
	"		case \"r\": t = nextRecovery(el, 1); break;\n",
	"		case \"R\": t = nextRecovery(el, -1); break;\n",
	"		case \"d\": t = nextDiff(el, 1); break;\n",
	"		case \"D\": t = nextDiff(el, -1); break;\n",
	"		case \"t\":\n",
	"			if ((v = viewOf(el)) && !(g = v.group(+el.dataset.i)).out) {\n",
	"				pre = v.toggleText(g);\n",
	"				if (pre) pre.focus();\n",
	"			}\n",
	"			e.preventDefault();\n",
	"			return;\n",
	"		case \"n\": next(1); e.preventDefault(); return;\n",
	"		case \"N\": next(-1); e.preventDefault(); return;\n",
	"		default: return;\n",
	"		}\n",
	"		e.preventDefault();\n",
	"		if (t && t.classList.contains(\"tk\")) focusEl(t);\n",
	"		else if (t) { t.focus(); t.scrollIntoView({ block: \"nearest\" }); }\n",
	"	});\n",
	"	if (q) {\n",
	"		q.addEventListener(\"input\", function () { find(q.value); });\n",
	"		q.addEventListener(\"keydown\", function (e) {\n",
	"			if (e.key === \"Enter\") { e.preventDefault(); if (hitAt < 0 && !hits.length) find(q.value); next(e.shiftKey ? -1 : 1); }\n",
	"		});\n",
	"		o = document.getElementById(\"hm-next\");\n",
	"		if (o) o.addEventListener(\"click\", function () { next(1); });\n",
	"	}\n",
	"}\n",
	"document.addEventListener(\"DOMContentLoaded\", init);\n",
	"return { recs: recs, find: find, next: next, focus: focusEl, show: show,\n",
	"    view: function (no) { return recs[no] ? recs[no].open() : null; } };\n",
	"})();\n",
	NULL,
};
/* END ASSETS */

static void
adds_lines(int *nm, hm_buf *b, const char *const *v)
{
	for (; *v; v++)
		hm__adds(nm, b, *v);
}

/*
 * Each writer of a page below names the flag of the page's owner (nm);
 * the public ones fill a buffer the caller passes, which stands alone and
 * so owns itself (&b->oom).
 */
void
hm__html_escape(int *nm, hm_buf *b, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, k, bad;
	uint32_t cp;

	while (i < n) {
		const char *rep = NULL;
		size_t skip = 1;

		switch (u[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		case 0: rep = "\xef\xbf\xbd"; break;
		default:
			if (u[i] < 0x80) {
				i++;
				continue;
			}
			k = hm_utf8_decode(u + i, n - i, &cp, &bad);
			if (k) {
				i += k;
				continue;
			}
			rep = "\xef\xbf\xbd"; /* U+FFFD: the page stays UTF-8 */
			skip = bad ? bad : 1;
		}
		hm__put(nm, b, s + start, i - start);
		hm__adds(nm, b, rep);
		i += skip;
		start = i;
	}
	hm__put(nm, b, s + start, i - start);
}

void
hm_html_escape(hm_buf *b, const char *s, size_t n)
{
	hm__html_escape(&b->oom, b, s, n); /* b, the caller's, stands alone */
}

void
hm__html_json_str(int *nm, hm_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0, k, bad;
	uint32_t cp;
	char e[7];

	hm__putc(nm, b, '"');
	while (i < n) {
		const char *rep = NULL;
		size_t skip = 1;

		if (u[i] >= 0x80) {
			k = hm_utf8_decode(u + i, n - i, &cp, &bad);
			if (k && cp != 0x2028 && cp != 0x2029) {
				i += k;
				continue;
			}
			if (k) {
				rep = cp == 0x2028 ? "\\u2028" : "\\u2029";
				skip = k;
			} else {
				rep = "\\ufffd";
				skip = bad ? bad : 1;
			}
		} else if (u[i] == '"' || u[i] == '\\') {
			e[0] = '\\', e[1] = (char)u[i], e[2] = 0;
			rep = e;
		} else if (u[i] < 0x20 || (u[i] == '<' && i + 1 < n && (u[i + 1] == '/' || u[i + 1] == '!'))) {
			/*
			 * a < before / or ! as \u003c: the text can neither end the
			 * <script> (</script) nor open a comment in it (<!--); any
			 * other < or >, as in <|end|>, is left as it is (five bytes
			 * a special token's name fewer)
			 */
			e[0] = '\\', e[1] = 'u', e[2] = '0', e[3] = '0';
			e[4] = hex[u[i] >> 4], e[5] = hex[u[i] & 15], e[6] = 0;
			rep = e;
		} else {
			i++;
			continue;
		}
		hm__put(nm, b, s + start, i - start);
		hm__adds(nm, b, rep);
		i += skip;
		start = i;
	}
	hm__put(nm, b, s + start, i - start);
	hm__putc(nm, b, '"');
}

void
hm__html_visible(int *nm, hm_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k, bad;
	uint32_t cp;

	while (i < n) {
		const char *ws = NULL;

		switch (u[i]) {
		case ' ': ws = "\xc2\xb7"; break;         /* U+00B7 middle dot */
		case '\t': ws = "\xe2\x86\x92"; break;    /* U+2192 arrow */
		case '\n': ws = "\xe2\x86\xb5"; break;    /* U+21B5 return arrow */
		case '\r': ws = "\xe2\x90\x8d"; break;    /* U+240D symbol for CR */
		}
		if (ws) {
			hm__adds(nm, b, "<span class=\"ws\">");
			hm__adds(nm, b, ws);
			hm__adds(nm, b, "</span>");
			i++;
			continue;
		}
		k = u[i] >= 0x80 ? hm_utf8_decode(u + i, n - i, &cp, &bad) :
		    u[i] >= 0x20 && u[i] != 0x7f;
		if (k) {
			hm__html_escape(nm, b, s + i, k);
			i += k;
			continue;
		}
		/* a control byte, or a byte that is not UTF-8 here */
		hm__adds(nm, b, "<span class=\"esc\">");
		do {
			hm__adds(nm, b, "\\x");
			hm__putc(nm, b, hex[u[i] >> 4]);
			hm__putc(nm, b, hex[u[i] & 15]);
			i++;
		} while (i < n && (u[i] < 0x20 || u[i] == 0x7f ||
		    (u[i] >= 0x80 && !hm_utf8_decode(u + i, n - i, &cp, &bad))) &&
		    u[i] != ' ' && u[i] != '\t' && u[i] != '\n' && u[i] != '\r');
		hm__adds(nm, b, "</span>");
	}
}

void
hm__html_page_begin(int *nm, hm_buf *b, const char *title, const char *css, const char *js)
{
	size_t tn = title ? strlen(title) : 0;

	hm__adds(nm, b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	    "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	    "<meta name=\"generator\" content=\"harmony\">\n<title>");
	hm__html_escape(nm, b, title, tn);
	hm__adds(nm, b, "</title>\n<style>\n");
	adds_lines(nm, b, page_css);
	if (css)
		hm__adds(nm, b, css);
	hm__adds(nm, b, "</style>\n<script>\n");
	adds_lines(nm, b, page_js);
	if (js)
		hm__adds(nm, b, js);
	/* all of it in <main>: one landmark, nothing outside a region */
	hm__adds(nm, b, "</script>\n</head>\n<body>\n<main>\n<h1>");
	hm__html_escape(nm, b, title, tn);
	hm__adds(nm, b, "</h1>\n<p id=\"hm-tip\" role=\"status\" aria-live=\"polite\">"
	    "Hover over a token or focus it (Tab, then the arrow keys): its index and id show here."
	    "</p>\n");
}

void
hm_html_page_begin(hm_buf *b, const char *title, const char *css, const char *js)
{
	hm__html_page_begin(&b->oom, b, title, css, js); /* b, the caller's, stands alone */
}

void
hm__html_page_end(int *nm, hm_buf *b)
{
	hm__adds(nm, b, "</main>\n</body>\n</html>\n");
}

void
hm_html_page_end(hm_buf *b)
{
	hm__html_page_end(&b->oom, b); /* b, the caller's, stands alone */
}

void
hm__html_token(int *nm, hm_buf *b, size_t index, uint32_t id)
{
	size_t n = 0;
	const char *s = hm_token_bytes(id, &n);
	int sp = hm_is_special(id), bad = !s || hm_utf8_valid_prefix(s, n) != n;

	hm__adds(nm, b, sp ? "<span class=\"tk sp\"" : bad ? "<span class=\"tk bad\"" :
	    "<span class=\"tk\"");
	hm__adds(nm, b, " tabindex=\"-1\" data-i=\"");
	hm__addu(nm, b, index);
	hm__adds(nm, b, "\" data-id=\"");
	hm__addu(nm, b, id);
	hm__adds(nm, b, "\">");
	if (!s)
		hm__adds(nm, b, "?");
	else if (sp)
		hm__html_escape(nm, b, s, n);
	else
		hm__html_visible(nm, b, s, n);
	hm__adds(nm, b, "</span>");
	if (!sp && s && n && s[n - 1] == '\n')
		hm__adds(nm, b, "<br>");
}

void
hm_html_token(hm_buf *b, size_t index, uint32_t id)
{
	hm__html_token(&b->oom, b, index, id); /* b, the caller's, stands alone */
}

void
hm__html_toolbar_to(int *nm, hm_buf *b)
{
	hm__adds(nm, b, "<div class=\"bar\" role=\"search\"><label>Find a token (id or text, / to jump here): "
	    "<input id=\"hm-q\" type=\"search\" placeholder=\"id or text\"></label> "
	    "<button id=\"hm-next\" type=\"button\">Next</button> <output id=\"hm-qn\"></output> "
	    "<span id=\"hm-total\"></span> <details class=\"keys\"><summary>Keys</summary>"
	    "On a token: \xe2\x86\x90 \xe2\x86\x92 token, \xe2\x86\x91 \xe2\x86\x93 message, Page Up/Down record, "
	    "Home/End the record's first and last token (with Ctrl: the page's), "
	    "r R next and previous recovery, t the message as text (Esc back), "
	    "n N next and previous match, / search. "
	    "Tab reaches a token on screen.</details></div>\n");
}

/* ---------------------------------------------------------------- the token view */

void
hm__hview_begin(struct hm__hview *v, unsigned flags)
{
	hm__buf_clear(&v->msgs);
	hm__buf_clear(&v->warns);
	hm__buf_clear(&v->strs);
	v->nomem = 0;
	v->open = 0;
	v->flags = flags;
}

static void
json_span(int *nm, hm_buf *b, hm_span s)
{
	if (s.p)
		hm__html_json_str(nm, b, s.p, s.len);
	else
		hm__adds(nm, b, "null");
}

static struct hm__hmsg *
last_msg(struct hm__hview *v)
{
	size_t k = v->msgs.len / sizeof(struct hm__hmsg);

	return k && !v->nomem ? (struct hm__hmsg *)(void *)v->msgs.p + (k - 1) : NULL;
}

void
hm__hview_event(struct hm__hview *v, const hm_event *ev)
{
	struct hm__hmsg m, *lm;
	struct hm__hwarn w;
	int *nm = &v->nomem;

	switch (ev->type) {
	case HM_EV_START:
		memset(&m, 0, sizeof m);
		m.from = m.to = ev->at;
		m.stop = HM_STOP_EOS;
		m.off = v->strs.len;
		hm__html_json_str(nm, &v->strs, ev->role ? ev->role : "",
		    ev->role ? strlen(ev->role) : 0);
		hm__putc(nm, &v->strs, ',');
		json_span(nm, &v->strs, ev->channel);
		hm__putc(nm, &v->strs, ',');
		json_span(nm, &v->strs, ev->recipient);
		hm__putc(nm, &v->strs, ',');
		json_span(nm, &v->strs, ev->content_type);
		hm__putc(nm, &v->strs, ',');
		json_span(nm, &v->strs, ev->name);
		m.len = v->strs.len - m.off;
		/* an open message the parser left without END ends here */
		if (v->open && (lm = last_msg(v)))
			lm->to = ev->at, lm->stop = HM_STOP_NONE;
		/* the buffer keeps structs: its storage is malloc'd, so aligned */
		hm__add(nm, &v->msgs, &m, sizeof m);
		v->open = 1;
		break;
	case HM_EV_END:
		if (v->open && (lm = last_msg(v)))
			lm->to = ev->at, lm->stop = ev->stop;
		v->open = 0;
		break;
	case HM_EV_DONE:
		if (v->open && (lm = last_msg(v)))
			lm->to = ev->at, lm->stop = HM_STOP_EOS;
		v->open = 0;
		break;
	case HM_EV_WARNING:
		if (!(v->flags & HM__HV_WARNINGS))
			break;
		w.at = ev->at;
		w.code = ev->code;
		w.off = v->strs.len;
		hm__put(nm, &v->strs, ev->text.p, ev->text.len);
		w.len = ev->text.len;
		hm__add(nm, &v->warns, &w, sizeof w);
		break;
	default:
		break;
	}
}

/* The token at byte offset off: the last whose start is at or before it. */
static size_t
token_at(const uint64_t *starts, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n ? n - 1 : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (starts[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static uint64_t
position(const uint64_t *starts, size_t n, uint64_t at)
{
	if (!starts)
		return at > n ? n : at;
	if (at >= starts[n])
		return n;
	return token_at(starts, n, at);
}

/* Append id in base 36 (the page's script reads it with parseInt(s, 36)). */
static void
add36(int *nm, hm_buf *b, uint32_t id)
{
	char t[8];
	int k = 0;

	do {
		unsigned d = id % 36;

		t[k++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		id /= 36;
	} while (id);
	while (k)
		hm__putc(nm, b, t[--k]);
}

/*
 * The texts of the ids' tokens the page does not have yet, each once, by
 * base-36 id, into b as a script of their own (nothing when there is no
 * new one): the texts of the ordinary ones (v), the boxes of those not
 * UTF-8 alone (x), the texts of the special ones (s).  The page's script
 * reads them all into one table; a record's data holds only its ids, so a
 * log's records, which share most of their tokens, carry the text of each
 * once.  page: a bit a token id, set once its text is written.
 */
static void
vocab_part(int *nm, hm_buf *b, const uint32_t *ids, size_t n, hm_buf *page, hm_buf *seen)
{
	static const char *const part[] = { "\"v\":{", "\"x\":{", "\"s\":{" };
	size_t bits = (HM_N_TOKENS + 7) / 8, i, cnt, start = b->len, parts = 0;
	int p;

	if (!page->len) {
		if (hm__reserve(nm, page, bits) != HM_OK)
			return;
		memset(page->p, 0, bits);
		page->len = bits;
	}
	hm__adds(nm, b, "<script type=\"application/json\" class=\"hm-voc\">{");
	for (p = 0; p < 3; p++) {
		unsigned char *mark = (unsigned char *)page->p;

		cnt = 0;
		for (i = 0; i < n; i++) {
			uint32_t id = ids[i];
			size_t len = 0;
			const char *s;
			int kind;

			if (id < HM_N_TOKENS && (mark[id >> 3] & (1u << (id & 7))))
				continue;
			s = hm_token_bytes(id, &len);
			kind = hm_is_special(id) ? 2 : !s || hm_utf8_valid_prefix(s, len) != len ? 1 : 0;
			if (kind != p)
				continue;
			/* (an id past the vocabulary has no bit: written each time) */
			if (id < HM_N_TOKENS)
				mark[id >> 3] |= (unsigned char)(1u << (id & 7));
			if (!cnt++) {
				if (parts++)
					hm__putc(nm, b, ',');
				hm__adds(nm, b, part[p]);
			} else {
				hm__putc(nm, b, ',');
			}
			hm__putc(nm, b, '"');
			add36(nm, b, id);
			hm__adds(nm, b, "\":");
			if (p != 1) {
				hm__html_json_str(nm, b, s, len);
			} else {
				/* the box's HTML, \xNN for what is not UTF-8 */
				hm__buf_clear(seen);
				if (s)
					hm__html_visible(nm, seen, s, len);
				else
					hm__adds(nm, seen, "?");
				if (*nm)
					return;
				hm__html_json_str(nm, b, seen->p, seen->len);
			}
		}
		if (cnt)
			hm__putc(nm, b, '}');
	}
	if (parts)
		hm__adds(nm, b, "}</script>\n");
	else
		b->len = start; /* no new token: no script */
}

void
hm__hview_end_to(int *nm, struct hm__hview *v, hm_buf *b, const char *label, size_t llen,
                 const uint32_t *ids, size_t n, const uint64_t *starts, hm_buf *scratch)
{
	const struct hm__hmsg *m = (const struct hm__hmsg *)(const void *)v->msgs.p;
	const struct hm__hwarn *w = (const struct hm__hwarn *)(const void *)v->warns.p;
	size_t nmsg = v->msgs.len / sizeof *m, nw = v->warns.len / sizeof *w, i, len;
	uint64_t chars = 0;

	/* what was lost cannot be written: the page is lost, and so said */
	if (v->nomem || *nm) {
		*nm = 1;
		return;
	}
	/*
	 * What the script needs before it reads the record's data: the counts
	 * (the totals, a guess of the height) and the text's length.  The
	 * data itself is parsed only when the record comes near the screen,
	 * so a page of many records opens as fast as its HTML is read.
	 */
	for (i = 0; i < n; i++) {
		size_t len = 0;

		if (hm_token_bytes(ids[i], &len))
			chars += len;
	}
	hm__adds(nm, b, "<section class=\"rec\" data-n=\"");
	hm__addu(nm, b, n);
	hm__adds(nm, b, "\" data-m=\"");
	hm__addu(nm, b, nmsg);
	hm__adds(nm, b, "\" data-w=\"");
	hm__addu(nm, b, nw);
	hm__adds(nm, b, "\" data-c=\"");
	hm__addu(nm, b, chars);
	hm__adds(nm, b, "\">\n<h2>");
	hm__html_escape(nm, b, label, llen);
	hm__adds(nm, b, "</h2>\n<p class=\"sum\">");
	hm__addu(nm, b, n);
	hm__adds(nm, b, n == 1 ? " token, " : " tokens, ");
	hm__addu(nm, b, nmsg);
	hm__adds(nm, b, nmsg == 1 ? " message" : " messages");
	if (nw) {
		hm__adds(nm, b, ", ");
		hm__addu(nm, b, nw);
		hm__adds(nm, b, nw == 1 ? " recovery" : " recoveries");
	}
	hm__adds(nm, b, "</p>\n");
	if (nw) {
		/*
		 * each a button to its token (the last when it is past the end);
		 * out of the Tab order, which goes from the toolbar to the token
		 * on screen (r and R on a token go from recovery to recovery)
		 */
		hm__adds(nm, b, "<ol class=\"recs\" aria-label=\"recoveries\">");
		for (i = 0; i < nw; i++) {
			uint64_t at = position(starts, n, w[i].at);
			const char *code = hm_failure_name((hm_failure)w[i].code);

			hm__adds(nm, b, "<li data-code=\"");
			hm__adds(nm, b, code);
			hm__adds(nm, b, "\"><button type=\"button\" tabindex=\"-1\" data-i=\"");
			hm__addu(nm, b, n && at >= n ? n - 1 : at);
			hm__adds(nm, b, "\">");
			hm__adds(nm, b, code);
			hm__adds(nm, b, " at token ");
			hm__addu(nm, b, at);
			hm__adds(nm, b, "</button> ");
			hm__html_escape(nm, b, v->strs.p + w[i].off, w[i].len);
			hm__adds(nm, b, "</li>");
		}
		hm__adds(nm, b, "</ol>\n");
	}
	vocab_part(nm, b, ids, n, &v->page, scratch);
	/* the count is the section's data-n */
	hm__adds(nm, b, "<script type=\"application/json\" class=\"hm-data\">{\"ids\":\"");
	for (i = 0; i < n; i++) {
		if (i)
			hm__putc(nm, b, ',');
		add36(nm, b, ids[i]);
	}
	hm__putc(nm, b, '"');
	hm__adds(nm, b, ",\"m\":[");
	for (i = 0; i < nmsg; i++) {
		uint64_t from = position(starts, n, m[i].from), to = position(starts, n, m[i].to);

		/* the stop token belongs to its message */
		if (m[i].stop != HM_STOP_EOS && m[i].stop != HM_STOP_NONE && to < n &&
		    (ids[to] == HM_TOK_END || ids[to] == HM_TOK_RETURN || ids[to] == HM_TOK_CALL))
			to++;
		if (m[i].stop == HM_STOP_EOS)
			to = n;
		if (i)
			hm__putc(nm, b, ',');
		hm__putc(nm, b, '[');
		hm__addu(nm, b, from);
		hm__putc(nm, b, ',');
		hm__addu(nm, b, to < from ? from : to);
		hm__adds(nm, b, ",\"");
		hm__adds(nm, b, hm_stop_name(m[i].stop));
		hm__adds(nm, b, "\",");
		/* the header's parts that are absent at its end are left out */
		len = m[i].len;
		while (len >= 5 && !memcmp(v->strs.p + m[i].off + len - 5, ",null", 5))
			len -= 5;
		hm__put(nm, b, v->strs.p + m[i].off, len);
		hm__putc(nm, b, ']');
		/* [from, to, stop, role, channel, recipient, content type, name] */
	}
	hm__putc(nm, b, ']');
	if (nw) /* none: left out */
		hm__adds(nm, b, ",\"w\":[");
	for (i = 0; i < nw; i++) {
		if (i)
			hm__putc(nm, b, ',');
		hm__putc(nm, b, '[');
		hm__addu(nm, b, position(starts, n, w[i].at));
		hm__adds(nm, b, ",\"");
		hm__adds(nm, b, hm_failure_name((hm_failure)w[i].code));
		hm__adds(nm, b, "\",");
		hm__html_json_str(nm, b, v->strs.p + w[i].off, w[i].len);
		hm__putc(nm, b, ']');
	}
	hm__adds(nm, b, nw ? "]}</script>\n<div class=\"hv\"></div>\n</section>\n" :
	    "}</script>\n<div class=\"hv\"></div>\n</section>\n");
}

void
hm__hview_free(struct hm__hview *v)
{
	hm_buf_free(&v->page);
	hm_buf_free(&v->msgs);
	hm_buf_free(&v->warns);
	hm_buf_free(&v->strs);
}

/* ---------------------------------------------------------------- hm_html */

struct hm_html {
	hm_buf out;             /* the page not yet taken */
	char *title;            /* the page's title */
	unsigned flags;         /* HM_HTML_* */
	int head;               /* the page's head is written */
	int nomem;              /* an allocation failed: every append to out and
	                           scratch names it; it stays set */
	size_t records;         /* records added */
	hm_parser *p;           /* finds the messages (default mode, role auto) */
	struct hm__hview v;     /* the record's messages and recoveries */
	hm_buf scratch;         /* the distinct ids' marks */
};

hm_html *
hm_html_new(const char *title, unsigned flags)
{
	hm_html *h = calloc(1, sizeof *h);
	size_t n = title ? strlen(title) : 0;

	if (!h)
		return NULL;
	h->title = malloc(n + 1);
	h->p = hm_parser_new("auto", 0);
	if (!h->title || !h->p) {
		hm_html_free(h);
		return NULL;
	}
	if (n)
		memcpy(h->title, title, n);
	h->title[n] = '\0';
	h->flags = flags;
	return h;
}

void
hm_html_free(hm_html *h)
{
	if (!h)
		return;
	hm_buf_free(&h->out);
	free(h->title);
	hm_parser_free(h->p);
	hm__hview_free(&h->v);
	hm_buf_free(&h->scratch);
	free(h);
}

static void
head(hm_html *h)
{
	if (h->head)
		return;
	hm__html_page_begin(&h->nomem, &h->out, h->title, NULL, NULL);
	hm__html_toolbar_to(&h->nomem, &h->out);
	h->head = 1;
}

static hm_status
status(const hm_html *h)
{
	return h->nomem ? HM_ENOMEM : HM_OK;
}

hm_status
hm_html_add_ids(hm_html *h, const char *label, const uint32_t *ids, size_t n)
{
	hm_event ev;
	char def[40];

	if (h->nomem)
		return HM_ENOMEM;
	head(h);
	h->records++;
	hm__hview_begin(&h->v, (h->flags & HM_HTML_RECOVERIES) ? HM__HV_WARNINGS : 0);
	hm_parser_reset(h->p);
	if (hm_parser_feed(h->p, ids, n) != HM_OK)
		return h->nomem = 1, HM_ENOMEM;
	hm_parser_finish(h->p);
	while (hm_parser_next(h->p, &ev)) {
		if (ev.type == HM_EV_ERROR)
			return h->nomem = 1, HM_ENOMEM; /* the default mode fails only so */
		hm__hview_event(&h->v, &ev);
	}
	if (!label) {
		snprintf(def, sizeof def, "record %zu", h->records);
		label = def;
	}
	hm__hview_end_to(&h->nomem, &h->v, &h->out, label, strlen(label), ids, n, NULL,
	    &h->scratch);
	return status(h);
}

hm_status
hm_html_finish(hm_html *h)
{
	if (h->nomem)
		return HM_ENOMEM;
	head(h);
	hm__html_page_end(&h->nomem, &h->out);
	return status(h);
}

const char *
hm_html_output(const hm_html *h, size_t *len)
{
	*len = h->out.len;
	return h->out.p ? h->out.p : "";
}

void
hm_html_consume(hm_html *h)
{
	hm__buf_clear(&h->out);
}
