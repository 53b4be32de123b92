/*
 * parse_content.c - the current message (struct p_content, which it
 * owns): starting it, its content bytes to deltas (F12: invalid UTF-8, ids
 * outside the vocabulary), finishing it, and plain text split into
 * messages at the remains of stripped special tokens (F13) or at a
 * --marker, with the text that may begin a header held back until decided.
 * Calls only parse_events.c (parser_int.h lists the layers).
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "parser_int.h"

static void split_flush(hm_parser *p, int all);
static void content_text(hm_parser *p, const char *s, size_t n);
static size_t utf8_need(unsigned char c);
static int glued_alone(const char *chan, uint32_t cp);

/*
 * Default mode: whether the message with header h is a tool call whose
 * arguments may be one JSON value (a recipient other than the assistant,
 * and a JSON content type or none).  Such a call is whole when they are,
 * whatever stop token follows or does not (F19).
 */
static int
json_call(const hm_parser *p, const struct hdr *h, const char *base)
{
	if (!h->has[P_RCPT] || h->role != HM_ROLE_ASSISTANT || p->cf.strict || !h->len[P_RCPT])
		return 0;
	if (h->len[P_RCPT] == 9 && !memcmp(base + h->off[P_RCPT], "assistant", 9))
		return 0;
	return !h->has[P_CTYPE] || hm__ctype_is_json(base + h->off[P_CTYPE], h->len[P_CTYPE]);
}

/* Default mode, text input: reasoning, where `assistantfinal` glued into it starts a message. */
static int
watched_reasoning(const hm_parser *p, const struct hdr *h, const char *base)
{
	return p->in.text_mode && !p->cf.strict && h->role == HM_ROLE_ASSISTANT &&
	    !h->has[P_RCPT] && h->has[P_CHAN] && h->len[P_CHAN] == 8 &&
	    !memcmp(base + h->off[P_CHAN], "analysis", 8);
}

/* Check s[0..n) of a call's arguments now. */
static void
args_check(hm_parser *p, const char *s, size_t n)
{
	if (!hm__jcheck_plain(&p->c.jc, s, n))
		hm__jcheck_feed(&p->c.jc, s, n);
}

/*
 * Ids: the arguments have just become one whole value (blanks may
 * follow), content going straight out: what follows is held, as it may
 * be a header glued after them (SPLIT_AFTER), from the next unit on.
 */
static void
watch_after(hm_parser *p)
{
	if (p->in.text_mode || p->c.split != SPLIT_OFF || !hm__jcheck_done(&p->c.jc) ||
	    hm__jcheck_bad(&p->c.jc))
		return;
	p->c.split = SPLIT_AFTER;
	p->c.after_at = p->st.pos;
}

void
hm__p_call_args(hm_parser *p, const char *s, size_t n)
{
	if (p->in.text_mode || p->c.jfed) {
		/* SPLIT_CALL, SPLIT_AFTER need to know where the value ends as it comes */
		args_check(p, s, n);
		watch_after(p);
		return;
	}
	if (p->c.args.len + n <= ARGS_KEPT) {
		hm__add(&p->nomem, &p->c.args, s, n);
		return;
	}
	args_check(p, p->c.args.p, p->c.args.len);
	args_check(p, s, n);
	p->c.jfed = 1;
}

/*
 * Whether s[0..n) (blanks aside) opens an object or array and holds no
 * closing bracket but the one that ends it: no value in it can be whole
 * before its last byte.
 */
static int
one_container(const char *s, size_t n)
{
	size_t a = 0, e = n;

	while (a < n && hm__p_is_aws((unsigned char)s[a]))
		a++;
	while (e > a && hm__p_is_aws((unsigned char)s[e - 1]))
		e--;
	if (e - a < 2 || !((s[a] == '{' && s[e - 1] == '}') || (s[a] == '[' && s[e - 1] == ']')))
		return 0;
	return !memchr(s + a, '}', e - 1 - a) && !memchr(s + a, ']', e - 1 - a);
}

size_t
hm__p_call_run(hm_parser *p, const char *s, size_t n)
{
	struct hm_jcheck j;
	size_t k;

	if (!p->c.jfed) {
		/*
		 * Arguments that come whole in one run before a special token
		 * (<|call|>, <|end|> ...), an object or array with no other
		 * closing bracket than its last byte, hold no whole value with
		 * text glued after it: they are kept, checked at the end if need
		 * be (most calls).  Else they are checked from here on, as they
		 * come.
		 */
		if (p->c.split != SPLIT_OFF || (!p->c.args.len && one_container(s, n) &&
		    p->in.ipos < p->in.ids.len && p->in.ids.v[p->in.ipos] >= HM_N_ORDINARY)) {
			hm__p_call_args(p, s, n);
			return n;
		}
		args_check(p, p->c.args.p ? p->c.args.p : "", p->c.args.len);
		p->c.jfed = 1;
	}
	if (hm__jcheck_bad(&p->c.jc) || hm__jcheck_plain(&p->c.jc, s, n))
		return n;
	j = p->c.jc;
	k = hm__jcheck_feed(&j, s, n);
	if (k == n || !hm__jcheck_unfeed_tail(&j)) {
		p->c.jc = j;
		watch_after(p);
		return n;
	}
	/* A whole value, then more in the same delta: the step reads it (SPLIT_CALL). */
	p->c.split = SPLIT_CALL;
	return k;
}

/* Whether the call's arguments are one whole JSON value. */
static int
args_whole(hm_parser *p)
{
	if (!p->in.text_mode && !p->c.jfed)
		args_check(p, p->c.args.p ? p->c.args.p : "", p->c.args.len);
	return hm__jcheck_whole(&p->c.jc);
}

/* Content text goes out; a call's arguments are checked on the way. */
static void
msg_out(hm_parser *p, const char *s, size_t n)
{
	if (p->c.jcall)
		hm__p_call_args(p, s, n);
	hm__p_out_text(p, s, n);
}

/* ---------------------------------------------------------------- a message */

/*
 * A message with header *h (its parts' offsets into base) starts at `at`:
 * its START event, and its content from byte offset content_at (text
 * input).  how: HM__MSG_PLAIN, text without any structure (not cut off at
 * the end); HM__MSG_STRIPPED or HM__MSG_MARKER, its text split into
 * messages (F13, --marker).
 */
void
hm__p_emit_start(hm_parser *p, const struct hdr *h, const char *base,
    uint64_t at, uint64_t content_at, unsigned how)
{
	int f;

	assert(!p->c.in_msg); /* the message before has ended */
	/* F18's text is reasoning before any channel or call; F22's prose before a message that is no call. */
	if (p->q.holding == 1)
		hm__p_hold_release(p, p->q.hprose ? h->has[P_CHAN] && !h->has[P_RCPT] :
		    h->has[P_CHAN] || h->has[P_RCPT]);
	hm__p_push_start(p, at, h, base);
	p->c.in_msg = 1;
	hm__p_content_begin(p, content_at);
	p->c.mh = *h;
	hm_buf_reset(&p->c.m);
	for (f = 0; f < P_N; f++) {
		p->c.mh.off[f] = p->c.m.len;
		if (h->has[f])
			hm__put(&p->nomem, &p->c.m, base + h->off[f], h->len[f]);
	}
	p->c.plain = (how & HM__MSG_PLAIN) != 0;
	p->c.jcall = json_call(p, h, base);
	if (p->c.jcall) {
		hm__jcheck_init(&p->c.jc);
		hm_buf_reset(&p->c.args);
		p->c.jfed = 0;
	}
	/*
	 * A call's arguments are watched for a header glued after their
	 * whole value (F21), from ids as from text.  Ids keep the fast path
	 * (hm__p_call_run): only where text may follow a run of them are
	 * they checked, and only the text after a whole value is held.
	 */
	p->c.split = how & HM__MSG_MARKER ? SPLIT_MARKER : how & HM__MSG_STRIPPED ?
	    SPLIT_STRIPPED : p->c.jcall && p->in.text_mode ? SPLIT_CALL :
	    watched_reasoning(p, h, base) ? SPLIT_REASON : SPLIT_OFF;
}

/* Whether the message's part f is s. */
int
hm__p_mh_is(const hm_parser *p, int f, const char *s)
{
	return p->c.mh.has[f] && p->c.mh.len[f] == strlen(s) &&
	    !memcmp(p->c.m.p + p->c.mh.off[f], s, p->c.mh.len[f]);
}

/*
 * An invalid UTF-8 sequence of len bytes at byte offset at became U+FFFD,
 * which goes out at offset tmp_off of the text next given to
 * content_text.  When content is cut into tokens the warning waits for it
 * there, so that it comes in the same place whatever the reads.
 */
static void
bad_utf8(hm_parser *p, uint64_t at, size_t len, size_t tmp_off, const char *msg)
{
	struct tmark m;

	if (!p->in.text_mode || p->cf.merge || p->cf.strict) {
		hm__p_warn(p, at, HM_F_UTF8, msg, NULL, 0);
		return;
	}
	m.at = at;
	m.shift = len < 3 ? (unsigned)(3 - len) : 0;
	m.msg = msg;
	if (p->c.split) {
		/* Split text waits in hold first: the mark is into it till it goes out. */
		m.off = p->c.hold.len + tmp_off;
		hm__p_mark_push(p, &p->c.hmk, &p->c.nhmk, &p->c.caphmk, &m);
		return;
	}
	m.off = p->t.len + tmp_off;
	hm__p_tc_mark(p, &m);
}

/*
 * End the current message (reference §4.6 in strict mode), at `at`: the
 * current unit's position, or where a split puts it.
 */
static void
finish_at(hm_parser *p, hm_stop stop, uint64_t at)
{
	assert(p->c.in_msg);
	if (p->cf.strict && !p->in.text_mode) {
		hm_buf_reset(&p->c.tmp);
		if (p->c.poisoned)
			hm__add(&p->nomem, &p->c.tmp, "\xEF\xBF\xBD", 3);
		hm__p_add_lossy(&p->nomem, &p->c.tmp, p->c.pend.p, p->c.pend.len);
		hm__p_delta(p, p->c.tmp.p, p->c.tmp.len);
	} else if (p->c.pend.len) {
		bad_utf8(p, p->in.text_mode ? at - p->c.pend.len : at, p->c.pend.len, 0,
		    "incomplete UTF-8 sequence at the end of a message replaced by U+FFFD");
		hm_buf_reset(&p->c.pend);
		content_text(p, "\xEF\xBF\xBD", 3);
	}
	if (p->c.split)
		split_flush(p, 1);
	if (p->c.split == SPLIT_MARKER)
		hm__p_warn(p, at, HM_F_NO_HEADER, "the marker text never appeared: all the text is reasoning", NULL, 0);
	hm__p_tc_release(p, 1);
	hm_buf_reset(&p->c.pend);
	p->c.poisoned = 0;
	if (!p->cf.strict && stop == HM_STOP_RETURN && p->c.mh.has[P_RCPT] &&
	    p->c.mh.role == HM_ROLE_ASSISTANT && !hm__p_mh_is(p, P_RCPT, "assistant"))
		hm__p_warn(p, at, HM_F_AFTER_STOP, "tool call ended by <|return|>, taken as <|call|>", NULL, 0);
	if (!p->cf.strict && stop == HM_STOP_CALL && p->c.mh.role == HM_ROLE_ASSISTANT &&
	    (!p->c.mh.has[P_RCPT] || !p->c.mh.len[P_RCPT]))
		hm__p_warn(p, at, HM_F_CALL_ATTEMPT,
		    "<|call|> ends a message with no recipient: a call attempt, not an answer", NULL, 0);
	if ((stop == HM_STOP_EOS || stop == HM_STOP_NONE) && p->c.jcall && args_whole(p)) {
		/* The arguments are whole: the server dropped <|call|>, or the model went on past it. */
		hm__p_warn(p, at, HM_F_STOP_ASSUMED,
		    "a whole tool call without <|call|>: its stop is assumed", NULL, 0);
		stop = HM_STOP_CALL;
	}
	if (stop == HM_STOP_EOS && !p->c.plain)
		hm__p_truncated(p, at, p->c.jcall ?
		    "stream ended inside a tool call's arguments: the call is cut off" :
		    "stream ended inside a message");
	p->c.plain = 0;
	hm__p_push_end(p, at, stop);
	p->c.in_msg = 0;
	p->c.split = SPLIT_OFF;
	p->c.jcall = 0;
}

/* End the current message at the current unit: the machine is at a start after it. */
void
hm__p_finish_msg(hm_parser *p, hm_stop stop)
{
	finish_at(p, stop, p->st.pos);
}

/* ---------------------------------------------------------------- splitting */

/*
 * Plain text split into messages: at the remains of stripped special
 * tokens (F13) or at a --marker.  Text that may be the start of a header
 * is held back until it is decided.
 *
 * A header stripped of its special tokens,
 * `<|start|>assistant<|channel|>C to=R <|constrain|>T<|message|>`, reads
 * `assistantC to=R T` with T glued to the content; the renderer's order
 * `assistant to=R<|channel|>C` reads `assistant to=RC`.
 */
struct shdr {
	const char *chan;
	size_t roff, rlen, toff, tlen;
	int has_r, has_t;
	int repeat, differ, odd; /* F15, F16 */
	int twice, tool;         /* F15 `assistantassistant`, F3 a tool after the channel */
};

/* Longest recipient looked for (of hm__is_rcpt_byte's bytes). */
#define STRIP_RCPT_MAX 256
/* F13 is decided within the first bytes of a stream. */
#define STRIP_MAX HDR_MAX_BYTES

/*
 * A content type glued to the content (`json{`) at s[0..n): its length,
 * or 0; -1 when more text is needed to tell.
 */
static int
strip_ctype(const char *s, size_t n, int all)
{
	static const char *const known[] = {
		"json", "code", "text", "markdown", "md", "yaml", "xml", "html",
		"csv", "toml",
	};
	size_t i, j, m;
	int more = 0;

	for (i = 0; i < sizeof known / sizeof known[0]; i++) {
		m = strlen(known[i]);
		for (j = 0; j < m && j < n; j++)
			if ((s[j] | 0x20) != known[i][j])
				break;
		if (j < m && j < n)
			continue;
		if (j < m || n == m) {
			if (n == m && all)
				return (int)m;
			more = 1;
			continue;
		}
		if (!(((s[m] | 0x20) >= 'a' && (s[m] | 0x20) <= 'z')))
			return (int)m;
	}
	return more && !all ? -1 : 0;
}

/*
 * A tool's namespace at s[0..n) (`functions.`, `browser.`, `container.`):
 * 1, 0, or -1 when s is a prefix of one and more text may tell.
 */
static int
strip_tool(const char *s, size_t n, int all)
{
	static const char *const ns[] = { "functions.", "browser.", "container." };
	size_t i, m;
	int more = 0;

	for (i = 0; i < 3; i++) {
		m = strlen(ns[i]);
		if (n > m && !memcmp(s, ns[i], m))
			return 1;
		if (!memcmp(s, ns[i], n < m ? n : m))
			more = 1;
	}
	return more && !all ? -1 : 0;
}

/*
 * A stripped header at s[0..n) (implied: without its leading
 * `assistant`).  1 with *h and *len set, 0 when there is none, -1 when
 * more text is needed to tell (never with all).
 */
static int
strip_header(const char *s, size_t n, int all, int implied, struct shdr *h,
    size_t *len)
{
	size_t i = 0, j, k, m = 0;
	int c, more = 0, t;

	memset(h, 0, sizeof *h);
	if (!implied) {
		m = n < 9 ? n : 9;
		if (memcmp(s, "assistant", m))
			return 0;
		if (n < 9)
			return all ? 0 : -1;
		i = 9;
		/* `assistantassistantfinal`: the role written twice. */
		while (n - i >= 9 && !memcmp(s + i, "assistant", 9)) {
			i += 9;
			h->twice = 1;
		}
		if (n - i < 9 && !memcmp(s + i, "assistant", n - i))
			more = 1;
	}
	for (c = 0; c < HM__NCHANS; c++) {
		m = strlen(hm__chan_names[c]);
		if (n - i >= m && !memcmp(s + i, hm__chan_names[c], m))
			break;
		if (n - i < m && !memcmp(s + i, hm__chan_names[c], n - i))
			more = 1;
	}
	if (c < HM__NCHANS) {
		h->chan = hm__chan_names[c];
		j = i + m;
	} else if (!implied && n - i >= 4 && !memcmp(s + i, " to=", 4)) {
		/* `assistant to=functions.fcommentary`: the recipient runs into the channel. */
		for (k = i + 4; k < n && hm__is_rcpt_byte((unsigned char)s[k]) &&
		    k - i < STRIP_RCPT_MAX; k++)
			;
		if (k == n && !all && k - i < STRIP_RCPT_MAX)
			return -1;
		for (c = 0; c < HM__NCHANS; c++) {
			m = strlen(hm__chan_names[c]);
			if (k - (i + 4) > m && !memcmp(s + k - m, hm__chan_names[c], m))
				break;
		}
		if (c == HM__NCHANS)
			return 0;
		h->chan = hm__chan_names[c];
		h->roff = i + 4;
		h->rlen = k - m - (i + 4);
		h->has_r = 1;
		j = k;
	} else {
		if (!implied && n - i < 4 && !memcmp(s + i, " to=", n - i))
			more = 1;
		return more && !all ? -1 : 0;
	}
	if (!h->has_r) {
		if (n - j >= 4 && !memcmp(s + j, " to=", 4)) {
			for (k = j + 4; k < n && hm__is_rcpt_byte((unsigned char)s[k]) &&
			    k - j < STRIP_RCPT_MAX; k++)
				;
			if (k == n && !all && k - j < STRIP_RCPT_MAX)
				return -1;
			if (k > j + 4) {
				h->roff = j + 4;
				h->rlen = k - j - 4;
				h->has_r = 1;
				j = k;
			}
		} else if (n - j < 4 && !memcmp(s + j, " to=", n - j) && !all) {
			return -1;
		} else if (c == 1 && n - j >= 1 && s[j] == ' ' &&
		    (t = strip_tool(s + j + 1, n - j - 1, all)) != 0) {
			/* `commentary functions.f{`: <|constrain|> stripped before a tool (F3). */
			if (t < 0)
				return -1;
			for (k = j + 1; k < n && hm__is_rcpt_byte((unsigned char)s[k]) &&
			    k - j < STRIP_RCPT_MAX; k++)
				;
			if (k == n && !all && k - j < STRIP_RCPT_MAX)
				return -1;
			h->roff = j + 1;
			h->rlen = k - j - 1;
			h->has_r = 1;
			h->tool = 1;
			j = k;
		}
	}
	while (h->has_r) {
		/* F15: ` to=R` again, the last kept. */
		size_t q = j, e;

		if (n - q >= 4 && !memcmp(s + q, " to=", 4)) {
			for (e = q + 4; e < n && hm__is_rcpt_byte((unsigned char)s[e]) &&
			    e - q < STRIP_RCPT_MAX; e++)
				;
			if (e == n && !all && e - q < STRIP_RCPT_MAX)
				return -1;
			if (e == q + 4)
				break;
			h->repeat = 1;
			if (e - q - 4 != h->rlen || memcmp(s + q + 4, s + h->roff, h->rlen))
				h->differ = 1;
			h->roff = q + 4;
			h->rlen = e - q - 4;
			j = e;
			continue;
		}
		if (n - q < 4 && !all && !memcmp(s + q, " to=", n - q))
			return -1;
		/* F16: words up to a content type are the recipient's (`to=functions.Web Search json{`). */
		for (e = q; e < n && s[e] == ' ' && e - h->roff < STRIP_RCPT_MAX;) {
			t = strip_ctype(s + e + 1, n - e - 1, all);
			if (t < 0)
				return -1;
			if (t > 0)
				break;
			for (k = e + 1; k < n && hm__is_rcpt_byte((unsigned char)s[k]); k++)
				;
			if (k == n && !all)
				return -1;
			if (k == e + 1)
				break;
			e = k;
		}
		if (e > q && e < n && s[e] == ' ' && strip_ctype(s + e + 1, n - e - 1, all) > 0) {
			h->rlen = e - h->roff;
			h->odd = 1;
			j = e;
		}
		break;
	}
	if (h->has_r && n - j >= 1 && s[j] == ' ') {
		t = strip_ctype(s + j + 1, n - j - 1, all);
		if (t < 0)
			return -1;
		if (t > 0) {
			h->toff = j + 1;
			h->tlen = (size_t)t;
			h->has_t = 1;
			j += 1 + (size_t)t;
		}
	} else if (h->has_r && j == n && !all)
		return -1;
	*len = j;
	return 1;
}

/* The marker at s[0..n): 1, 0, or -1 when s is a prefix of it. */
static int
marker_match(hm_parser *p, const char *s, size_t n)
{
	size_t m = p->cf.marker.len;

	if (n >= m)
		return !memcmp(s, p->cf.marker.p, m);
	return !memcmp(s, p->cf.marker.p, n) ? -1 : 0;
}

/*
 * Start the message of stripped header *sh, whose offsets are into base:
 * plain text, split as how says.
 */
static void
strip_start(hm_parser *p, const struct shdr *sh, const char *base, uint64_t at,
    uint64_t content_at, unsigned how)
{
	struct hdr h;
	hm_buf *b = &p->c.hs;

	memset(&h, 0, sizeof h);
	hm_buf_reset(b);
	/* The room first: the parts' offsets below hold only if it is there. */
	if (hm__reserve(&p->nomem, b, strlen(sh->chan) + (sh->has_r ? sh->rlen : 0) +
	    (sh->has_t ? sh->tlen : 0)) != HM_OK)
		return;
	h.role = HM_ROLE_ASSISTANT;
	h.off[P_CHAN] = 0;
	h.len[P_CHAN] = strlen(sh->chan);
	h.has[P_CHAN] = 1;
	hm__adds(&p->nomem, b, sh->chan);
	if (sh->has_r) {
		h.off[P_RCPT] = b->len;
		h.len[P_RCPT] = sh->rlen;
		h.has[P_RCPT] = 1;
		hm__add(&p->nomem, b, base + sh->roff, sh->rlen);
	}
	if (sh->has_t) {
		h.off[P_CTYPE] = b->len;
		h.len[P_CTYPE] = sh->tlen;
		h.has[P_CTYPE] = 1;
		hm__add(&p->nomem, b, base + sh->toff, sh->tlen);
	}
	if (sh->repeat)
		hm__p_warn(p, at, HM_F_REPEAT, sh->differ ?
		    "recipient written twice with different values, the last kept: %s" :
		    "recipient written twice, read once: %s", base + sh->roff, sh->rlen);
	if (sh->twice)
		hm__p_warn(p, at, HM_F_REPEAT, "role written twice, read once: assistantassistant", NULL, 0);
	if (sh->tool)
		hm__p_warn(p, at, HM_F_CONTENT_TYPE, "\"%s\" after the channel names a tool: taken as the recipient",
		    base + sh->roff, sh->rlen);
	if (sh->odd)
		hm__p_warn(p, at, HM_F_RCPT_NAME, "recipient \"%s\" is not a plain name: kept as written",
		    base + sh->roff, sh->rlen);
	hm__p_emit_start(p, &h, b->p, at, content_at, HM__MSG_PLAIN | how);
}

/* A split: the text before it has gone out, and `dropped` bytes of header or marker go. */
static void
split_restart(hm_parser *p, const struct shdr *sh, const char *base, size_t dropped)
{
	int mode = p->c.split;
	uint64_t at, upos, shift = p->t.shift;
	hm_buf pend = p->c.pend;
	size_t i;

	p->c.split = SPLIT_OFF;
	/*
	 * Text: the split is where the text before it ends, whatever the
	 * reads, less what the U+FFFDs not yet out added over the bytes they
	 * replaced.
	 */
	for (i = p->t.mk_head; i < p->t.nmk; i++)
		shift += p->t.mk[i].shift;
	at = p->t.at + p->t.len - shift;
	/* ids: the header glued after a call's arguments begins where the text after them did */
	upos = mode == SPLIT_AFTER ? p->c.after_at : p->st.pos;
	if (mode == SPLIT_REASON || mode == SPLIT_AFTER)
		hm__p_warn(p, p->in.text_mode ? at : upos, HM_F_GLUED, mode == SPLIT_REASON ?
		    "a header glued to the end of reasoning starts the next message" :
		    "a header glued after a tool call's arguments starts the next message", NULL, 0);
	/*
	 * Undecoded bytes come after all the held text: they belong to the
	 * message that starts here, not to the one that ends.
	 */
	memset(&p->c.pend, 0, sizeof p->c.pend);
	finish_at(p, HM_STOP_NONE, p->in.text_mode ? at : upos);
	/* the marker splits once */
	strip_start(p, sh, base, p->in.text_mode ? at : upos, at + dropped,
	    mode != SPLIT_MARKER ? HM__MSG_STRIPPED : 0);
	hm_buf_free(&p->c.pend);
	p->c.pend = pend;
}

/* Held text hold[start, start + n) goes out, with the marks due in it. */
static void
hold_out(hm_parser *p, size_t start, size_t n)
{
	struct tmark m;
	size_t i = 0, k;

	while (i < p->c.nhmk && p->c.hmk[i].off < start + n) {
		if (p->c.hmk[i].off >= start) {
			m = p->c.hmk[i];
			m.off = p->t.len + (p->c.hmk[i].off - start);
			hm__p_tc_mark(p, &m);
		}
		i++;
	}
	for (k = i; k < p->c.nhmk; k++)
		p->c.hmk[k - i] = p->c.hmk[k];
	p->c.nhmk -= i;
	/* hold is never grown in a message with nothing held back (p NULL) */
	msg_out(p, p->c.hold.p ? p->c.hold.p + start : "", n);
}

/*
 * The first n bytes of hold are gone: the marks follow the rest (a mark
 * in dropped header or marker text, which is ASCII, cannot be).
 */
static void
hold_shift(hm_parser *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < p->c.nhmk; i++) {
		if (p->c.hmk[i].off < n) {
			hm__p_warn(p, p->c.hmk[i].at, HM_F_UTF8, p->c.hmk[i].msg, NULL, 0);
			continue;
		}
		p->c.hmk[k] = p->c.hmk[i];
		p->c.hmk[k++].off -= n;
	}
	p->c.nhmk = k;
}

/*
 * A header (or the marker) at hold[i, i + mlen): the text before it from
 * start goes out, the message ends there and the next one starts; hold
 * keeps what follows.
 */
static void
split_here(hm_parser *p, size_t start, size_t i, size_t mlen, const struct shdr *sh)
{
	/* Copy what follows: restart clears nothing in hold. */
	hm_buf rest = { 0 }, hd = { 0 };
	size_t e = i, f = i + mlen;

	if (p->c.split == SPLIT_MARKER) {
		/* The marker takes the blanks around it. */
		while (e > start && hm__p_is_aws((unsigned char)p->c.hold.p[e - 1]))
			e--;
		while (f < p->c.hold.len && hm__p_is_aws((unsigned char)p->c.hold.p[f]))
			f++;
	}
	hold_out(p, start, e - start);
	hold_shift(p, f);
	hm__add(&p->nomem, &hd, p->c.hold.p + i, mlen);
	hm__add(&p->nomem, &rest, p->c.hold.p + f, p->c.hold.len - f);
	hm_buf_reset(&p->c.hold);
	/* Out of memory, hd may not hold the header: no split, the parser stops. */
	if (!p->nomem) {
		split_restart(p, sh, hd.p, f - e);
		hm__add(&p->nomem, &p->c.hold, rest.p, rest.len);
	}
	hm_buf_free(&rest);
	hm_buf_free(&hd);
}

/*
 * SPLIT_CALL (text input): the held text of a call's arguments goes out,
 * up to where they are one whole JSON value and more text follows: that
 * text stays held (SPLIT_AFTER), as it may be a header glued after them.
 * 1 when it does.
 */
static int
call_flush(hm_parser *p, int all)
{
	struct hm_jcheck j = p->c.jc;
	size_t n = p->c.hold.len, k;

	(void)all;
	k = hm__jcheck_plain(&j, p->c.hold.p, n) ? n : hm__jcheck_feed(&j, p->c.hold.p, n);
	if (k == n || !hm__jcheck_unfeed_tail(&j)) {
		hold_out(p, 0, n); /* msg_out checks them for good */
		hold_shift(p, n);
		hm_buf_reset(&p->c.hold);
		if (hm__jcheck_bad(&p->c.jc))
			p->c.split = SPLIT_OFF; /* no JSON value: nothing more to watch */
		return 0;
	}
	hold_out(p, 0, k);
	hold_shift(p, k);
	memmove(p->c.hold.p, p->c.hold.p + k, n - k);
	p->c.hold.len = n - k;
	p->c.split = SPLIT_AFTER;
	/* ids: a unit at a time, so the text after the value begins in this one */
	p->c.after_at = p->st.pos;
	return 1;
}

/*
 * SPLIT_AFTER: text right after a call's whole arguments.  A header glued
 * there (`assistantfinal`, `analysisThe…`, `commentary to=functions.g`)
 * starts the next message (F21); anything else is more of the arguments,
 * which then are no JSON value.  1 when a header was split at.
 */
static int
after_flush(hm_parser *p, int all)
{
	const char *s = p->c.hold.p;
	size_t n = p->c.hold.len, len = 0;
	struct shdr sh;
	uint32_t cp;
	int r;

	if (!n) {
		/* nothing yet after the value (hold never grown: s NULL) */
		if (all)
			p->c.split = SPLIT_OFF;
		return 0;
	}
	r = strip_header(s, n, all, 0, &sh, &len);
	if (r == 0) {
		r = strip_header(s, n, all, 1, &sh, &len);
		if (r > 0 && !sh.has_r) {
			/* a bare channel name counts glued to a word, as at a stream's start */
			if (len == n)
				r = all ? 0 : -1;
			else if ((unsigned char)s[len] >= 0x80 && !all && n - len < utf8_need((unsigned char)s[len]))
				r = -1;
			else {
				hm__p_char_at(s, n, len, &cp);
				if (!glued_alone(sh.chan, cp))
					r = 0;
			}
		}
	}
	if (r < 0 && !all)
		return 0;
	if (r <= 0) {
		hold_out(p, 0, n);
		hold_shift(p, n);
		hm_buf_reset(&p->c.hold);
		p->c.split = SPLIT_OFF;
		return 0;
	}
	split_here(p, 0, 0, len, &sh);
	return 1;
}

/* Emit held text up to where a pattern could still begin. */
static void
split_flush(hm_parser *p, int all)
{
	size_t i = 0, start = 0, mlen = 0;
	struct shdr sh;
	int r;

	if (p->c.split == SPLIT_CALL && !call_flush(p, all))
		return;
	if (p->c.split == SPLIT_AFTER && !after_flush(p, all))
		return;
	while (i < p->c.hold.len) {
		if (p->c.split == SPLIT_MARKER) {
			r = marker_match(p, p->c.hold.p + i, p->c.hold.len - i);
			mlen = p->cf.marker.len;
			memset(&sh, 0, sizeof sh);
			sh.chan = "final";
		} else if (p->c.hold.p[i] != 'a') {
			i++; /* a stripped header starts `assistant` */
			continue;
		} else
			r = strip_header(p->c.hold.p + i, p->c.hold.len - i, all, 0, &sh, &mlen);
		if (r == 0 || (r < 0 && all)) {
			i++;
			continue;
		}
		if (r < 0)
			break;
		split_here(p, start, i, mlen, &sh);
		i = start = 0;
		if (!p->c.split) {
			hold_out(p, 0, p->c.hold.len);
			hm_buf_reset(&p->c.hold);
			return;
		}
	}
	hold_out(p, start, i - start);
	hold_shift(p, i);
	if (i)
		memmove(p->c.hold.p, p->c.hold.p + i, p->c.hold.len - i);
	p->c.hold.len -= i;
}

/* Whether "assistant" may begin somewhere in s[0..n) (or run past its end). */
static int
maybe_glued(const char *s, size_t n)
{
	const char *q = s, *e = s + n;
	size_t m;

	while ((q = memchr(q, 'a', (size_t)(e - q))) != NULL) {
		m = (size_t)(e - q) < 9 ? (size_t)(e - q) : 9;
		if (!memcmp(q, "assistant", m))
			return 1;
		q++;
	}
	return 0;
}


/* Content text that is whole characters. */
static void
content_text(hm_parser *p, const char *s, size_t n)
{
	switch (p->c.split) {
	case SPLIT_OFF:
		msg_out(p, s, n);
		return;
	case SPLIT_REASON:
		/* held text, or a U+FFFD's warning due in hold: through hold */
		if (!p->c.hold.len && !p->c.nhmk && !maybe_glued(s, n)) {
			msg_out(p, s, n);
			return;
		}
		break;
	default:
		break;
	}
	hm__add(&p->nomem, &p->c.hold, s, n);
	split_flush(p, 0);
}

/* ---------------------------------------------------------------- content */

/*
 * Content bytes s[0..n); end: in text mode, the byte offset just past
 * them (what the F12 warnings count from).
 */
void
hm__p_content_bytes_to(hm_parser *p, const char *s, size_t n, uint64_t end)
{
	int err;
	size_t v;

	if (p->cf.strict && !p->in.text_mode) {
		/* §4.5: at most one invalid sequence is resolved per token. */
		if (p->c.poisoned)
			return;
		hm__add(&p->nomem, &p->c.pend, s, n);
		v = hm__utf8_check(p->c.pend.p, p->c.pend.len, &err);
		hm_buf_reset(&p->c.tmp);
		hm__add(&p->nomem, &p->c.tmp, p->c.pend.p, v);
		if (err > 0) {
			hm__add(&p->nomem, &p->c.tmp, "\xEF\xBF\xBD", 3);
			v += (size_t)err;
		}
		memmove(p->c.pend.p, p->c.pend.p + v, p->c.pend.len - v);
		p->c.pend.len -= v;
		hm__p_delta(p, p->c.tmp.p, p->c.tmp.len);
		return;
	}
	if (!p->c.pend.len) {
		v = hm__utf8_check(s, n, &err);
		if (!err) {
			content_text(p, s, n);
			return;
		}
	}
	hm__add(&p->nomem, &p->c.pend, s, n);
	hm_buf_reset(&p->c.tmp);
	s = p->c.pend.p;
	n = p->c.pend.len;
	for (;;) {
		v = hm__utf8_check(s, n, &err);
		hm__add(&p->nomem, &p->c.tmp, s, v);
		s += v;
		n -= v;
		if (err <= 0)
			break;
		/* Text: s[0..n) ends at end; name the bad byte. */
		bad_utf8(p, p->in.text_mode ? end - n : p->st.pos, (size_t)err,
		    p->c.tmp.len, "invalid UTF-8 in content replaced by U+FFFD");
		hm__add(&p->nomem, &p->c.tmp, "\xEF\xBF\xBD", 3);
		s += err;
		n -= (size_t)err;
	}
	memmove(p->c.pend.p, s, n);
	p->c.pend.len = n;
	content_text(p, p->c.tmp.p, p->c.tmp.len);
}

/* Content bytes that end where the current unit does. */
void
hm__p_content_bytes(hm_parser *p, const char *s, size_t n)
{
	hm__p_content_bytes_to(p, s, n, p->st.unit_end);
}

void
hm__p_content_unknown(hm_parser *p, uint32_t id)
{
	char num[16];
	int k = 0;
	uint32_t x = id;
	char rev[16];

	if (p->cf.strict) {
		p->c.poisoned = 1;
		return;
	}
	do
		rev[k++] = (char)('0' + x % 10);
	while ((x /= 10));
	for (int i = 0; i < k; i++)
		num[i] = rev[k - 1 - i];
	hm__p_warn(p, p->st.pos, HM_F_UTF8, "unknown token id %s replaced by U+FFFD", num, (size_t)k);
	if (p->c.pend.len) {
		hm_buf_reset(&p->c.pend);
		content_text(p, "\xEF\xBF\xBD", 3);
	}
	content_text(p, "\xEF\xBF\xBD", 3);
}

/* Bytes of the UTF-8 sequence a lead byte starts (1 for a bad one). */
static size_t
utf8_need(unsigned char c)
{
	return c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

/*
 * A channel name glued to a letter or digit cp counts as a stripped header
 * on its own (`analysisThe user…`, `finalBonjour`): no English word
 * starts `analysis` + letter, so any letter or digit will do there; after
 * `final` a lowercase ASCII letter is a word (`finally`, `finals`) and
 * stays text.  `commentary` needs more (a recipient or a later header).
 * Punctuation (`analysis: …`, `analysis, …`) stays text.
 */
static int
glued_alone(const char *chan, uint32_t cp)
{
	int lower = cp >= 'a' && cp <= 'z';
	int letter = lower || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
	    (cp >= 0xC0 && cp != 0xD7 && cp != 0xF7 && cp != 0xFFFD &&
	    !(cp >= 0x2000 && cp <= 0x2BFF) && !(cp >= 0x3000 && cp <= 0x303F) &&
	    !(cp >= 0xFE30 && cp <= 0xFE4F) && !(cp >= 0xFF00 && cp <= 0xFF0F));

	if (!letter)
		return 0;
	if (chan[0] == 'a')
		return 1;
	return chan[0] == 'f' && !lower;
}

/*
 * F13: text whose special tokens a server stripped
 * (`analysisUser asks…assistantfinal4`).  Only a stream that starts with a
 * stripped header counts: a channel name glued to the text and, later in
 * the first STRIP_MAX bytes, another stripped header (`assistantfinal`),
 * or a recipient right away (`commentary to=functions.f json{…}`), or
 * `analysis`/`final` glued to a letter or digit (glued_alone).  Plain
 * text that happens to start with a channel name (`analysis: the data`)
 * stays plain.  Returns 1 once the messages have started, 0 when the
 * header is not one, -1 while it cannot be told yet (or out of memory:
 * p->nomem, nothing started).
 */
int
hm__p_stripped_start(hm_parser *p, int at_end)
{
	const char *s = p->h.text.p;
	size_t n = p->h.text.len, lim, len, l2, q;
	struct shdr sh, s2;
	int r, all;
	uint32_t cp;

	if (!p->in.text_mode || p->st.saw_special || !p->st.first_msg || p->cf.strict ||
	    p->st.next_role != HM_ROLE_ASSISTANT || !n)
		return 0;
	lim = n < STRIP_MAX ? n : STRIP_MAX;
	all = at_end || n >= STRIP_MAX;
	/* `analysisHi…` or `assistantanalysisHi…` */
	r = strip_header(s, lim, all, 1, &sh, &len);
	if (r == 0)
		r = strip_header(s, lim, all, 0, &sh, &len);
	if (r <= 0)
		return r;
	if (!sh.has_r) {
		/* Glued to the text, and another header later. */
		if (len == lim)
			return all ? 0 : -1;
		if ((unsigned char)s[len] >= 0x80 && !all &&
		    lim - len < utf8_need((unsigned char)s[len]))
			return -1;
		hm__p_char_at(s, lim, len, &cp);
		if (hm__is_uws(cp))
			return 0;
		if (glued_alone(sh.chan, cp))
			goto found;
		if (p->c.strip_scan < len)
			p->c.strip_scan = len;
		for (q = p->c.strip_scan; q < lim; q++) {
			if (s[q] != 'a')
				continue;
			r = strip_header(s + q, lim - q, all, 0, &s2, &l2);
			if (r > 0)
				break;
			if (r < 0)
				return -1;
		}
		p->c.strip_scan = q;
		if (q == lim)
			return all ? 0 : -1;
	}
found:
	hm__p_warn(p, p->h.at, HM_F_STRIPPED, "special tokens appear stripped: splitting the text at channel names", NULL, 0);
	{
		hm_buf body = { 0 }, hd = { 0 };

		hm__add(&p->nomem, &hd, s, len);
		hm__add(&p->nomem, &body, s + len, n - len);
		if (p->nomem) {
			/* Nothing started (hd may not hold the header): the parser stops. */
			hm_buf_free(&body);
			hm_buf_free(&hd);
			return -1;
		}
		strip_start(p, &sh, hd.p, p->h.at, p->h.off + len, HM__MSG_STRIPPED);
		hm__p_content_bytes(p, body.p, body.len);
		hm_buf_free(&body);
		hm_buf_free(&hd);
	}
	return 1;
}

/*
 * Whether the message now may be text for the user: the assistant's, no
 * call, on no channel or one other than analysis (default mode), its
 * content going straight out (nothing held, no partial character before).
 */
static int
answer_text(const hm_parser *p)
{
	const struct hdr *h = &p->c.mh;

	if (p->cf.strict || h->role != HM_ROLE_ASSISTANT || h->has[P_RCPT] ||
	    p->c.split != SPLIT_OFF || p->c.jcall || p->c.pend.len)
		return 0;
	return !h->has[P_CHAN] || h->len[P_CHAN] != 8 ||
	    memcmp(p->c.m.p + h->off[P_CHAN], "analysis", 8);
}

/* Whether the --marker text holds special-token text (then it may run over a token's text). */
static int
marker_special(const hm_parser *p)
{
	const char *m = p->cf.marker.p;
	size_t n = p->cf.marker.len, i;

	for (i = 0; i + 1 < n; i++)
		if (m[i] == '<' && m[i + 1] == '|')
			return 1;
	return 0;
}

/*
 * Content bytes that are a special token's text: one delta, as its id
 * would be.  Messages keep it as text, as the reference does; a stray
 * token (`<|message|>`, `<|constrain|>`, `<|start|>` before no header) in
 * the answer is the model's slip, never text for the user.  So where its
 * delta goes out alone (no partial character before) an F17 warning
 * comes right before it, which tells the shapes that route the answer
 * (hm_writer, HM_WS_ROUTE) to leave the delta out of answer text.  Text
 * split at stripped headers or a --marker holds back what may begin one;
 * none runs over a special token's text, so what is held goes out first
 * (split then as at the message's end) and the token's text on its own.
 * at: where the warning is; end: text, the offset just past the bytes.
 */
void
hm__p_content_special_to(hm_parser *p, const char *s, size_t n, uint64_t at, uint64_t end)
{
	int split = SPLIT_OFF;

	if (!p->cf.strict && (p->c.split == SPLIT_STRIPPED ||
	    (p->c.split == SPLIT_MARKER && !marker_special(p)))) {
		split_flush(p, 1);
		/* a header held may have started another message, split the same way */
		if (p->c.split == SPLIT_STRIPPED || p->c.split == SPLIT_MARKER) {
			split = p->c.split;
			p->c.split = SPLIT_OFF;
		}
	}
	if (answer_text(p)) {
		/* The text before it goes out first: the warning sits right before its delta. */
		if (p->in.text_mode && !p->cf.merge)
			hm__p_tc_release(p, 1);
		hm__p_warn(p, at, HM_F_SPECIAL, "%s inside content: text in messages, "
		    "left out of the answer", s, n);
	}
	p->c.special = 1;
	hm__p_content_bytes_to(p, s, n, end);
	p->c.special = 0;
	if (split != SPLIT_OFF)
		p->c.split = split;
}

void
hm__p_content_special(hm_parser *p, const char *s, size_t n)
{
	hm__p_content_special_to(p, s, n, p->st.pos, p->st.unit_end);
}

void
hm__p_content_body(hm_parser *p, const char *s, size_t n, uint64_t off)
{
	size_t a = 0, i = 0, k;
	const char *lt;
	uint32_t id;

	while (i + 1 < n && (lt = memchr(s + i, '<', n - 1 - i)) != NULL) {
		i = (size_t)(lt - s);
		k = hm__hdr_mark_len(s, n, i);
		if (k < 5 || !hm_special_lookup(s + i, k, &id)) {
			i++;
			continue;
		}
		if (i > a)
			hm__p_content_bytes_to(p, s + a, i - a, off + i);
		hm__p_content_special_to(p, s + i, k, p->in.text_mode ? off + i : p->st.pos, off + i + k);
		i += k;
		a = i;
	}
	if (a < n)
		hm__p_content_bytes_to(p, s + a, n - a, off + n);
}

/* A new stream: no message. */
void
hm__p_content_reset(hm_parser *p)
{
	hm__buf_clear(&p->c.m);
	memset(&p->c.mh, 0, sizeof p->c.mh);
	p->c.in_msg = 0;
	hm__buf_clear(&p->c.pend);
	p->c.poisoned = p->c.plain = p->c.special = p->c.split = p->c.jcall = 0;
	p->c.strip_scan = 0;
	hm__buf_clear(&p->c.hold);
	p->c.nhmk = 0;
	hm__buf_clear(&p->c.tmp);
	hm__buf_clear(&p->c.hs);
	hm__buf_clear(&p->c.args);
	p->c.jfed = 0;
}

void
hm__p_content_free(hm_parser *p)
{
	hm_buf_free(&p->c.m);
	hm_buf_free(&p->c.pend);
	hm_buf_free(&p->c.hold);
	free(p->c.hmk);
	hm_buf_free(&p->c.tmp);
	hm_buf_free(&p->c.hs);
	hm_buf_free(&p->c.args);
}
