/*
 * render.c - conversation to tokens (spec §3): message headers, system
 * and developer text, the analysis-dropping rule, and the three modes.
 */
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "render_int.h"
#include "schema_ts_int.h"

const char *
hm__render_special_text(uint32_t id)
{
	switch (id) {
	case HM_TOK_RETURN: return "<|return|>";
	case HM_TOK_CONSTRAIN: return "<|constrain|>";
	case HM_TOK_CHANNEL: return "<|channel|>";
	case HM_TOK_START: return "<|start|>";
	case HM_TOK_END: return "<|end|>";
	case HM_TOK_MESSAGE: return "<|message|>";
	case HM_TOK_CALL: return "<|call|>";
	default: return "";
	}
}

void
hm__segs_free(hm_segs *s)
{
	hm_buf_free(&s->text);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* A new segment at the end, or NULL when out of memory (s->nomem set). */
static hm_seg *
seg_new(hm_segs *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		hm_seg *p = realloc(s->v, cap * sizeof *p);

		if (!p) {
			s->nomem = 1;
			return NULL;
		}
		s->v = p;
		s->cap = cap;
	}
	return &s->v[s->n++];
}

static void
special(hm_segs *s, uint32_t id)
{
	hm_seg *g = seg_new(s);

	if (g) {
		g->id = id;
		g->off = g->len = 0;
	}
}

/* Start a text segment; what is appended to s->text until text_end is in it. */
static size_t
text_begin(hm_segs *s)
{
	return s->text.len;
}

static void
text_end(hm_segs *s, size_t start)
{
	hm_seg *g;

	if (s->text.len == start)
		return; /* enc("") is no tokens */
	if ((g = seg_new(s))) {
		g->id = HM_SEG_TEXT;
		g->off = start;
		g->len = s->text.len - start;
	}
}

static void
text(hm_segs *s, const char *prefix, const char *p, size_t n)
{
	size_t t = text_begin(s);

	if (prefix)
		hm__adds(&s->nomem, &s->text, prefix);
	hm__add(&s->nomem, &s->text, p, n);
	text_end(s, t);
}

static int
str_is(const hm_str *s, const char *lit)
{
	return s->p && s->len == strlen(lit) && !memcmp(s->p, lit, s->len);
}

static void
sep(int *nomem, hm_buf *b, int *n, const char *with)
{
	if ((*n)++)
		hm__adds(nomem, b, with);
}

static void
system_text(int *nomem, hm_buf *b, const hm_system_content *sc, int fn_tools)
{
	int sections = 0, top = 0;
	size_t i;

	if (sc->model_identity.p || sc->cutoff.p || sc->date.p) {
		sections++;
		if (sc->model_identity.p) {
			sep(nomem, b, &top, "\n");
			hm__add(nomem, b, sc->model_identity.p, sc->model_identity.len);
		}
		if (sc->cutoff.p) {
			sep(nomem, b, &top, "\n");
			hm__adds(nomem, b, "Knowledge cutoff: ");
			hm__add(nomem, b, sc->cutoff.p, sc->cutoff.len);
		}
		if (sc->date.p) {
			sep(nomem, b, &top, "\n");
			hm__adds(nomem, b, "Current date: ");
			hm__add(nomem, b, sc->date.p, sc->date.len);
		}
	}
	if (sc->effort != HM_EFFORT_NONE) {
		static const char *const e[] = {"", "low", "medium", "high"};

		sep(nomem, b, &sections, "\n\n");
		hm__adds(nomem, b, "Reasoning: ");
		hm__adds(nomem, b, e[sc->effort]);
	}
	if (sc->tools.present && sc->tools.n) {
		sep(nomem, b, &sections, "\n\n");
		hm__tools_section_write(nomem, b, &sc->tools);
	}
	if (sc->has_channels && sc->nchannels) {
		sep(nomem, b, &sections, "\n\n");
		hm__adds(nomem, b, "# Valid channels: ");
		for (i = 0; i < sc->nchannels; i++) {
			if (i)
				hm__adds(nomem, b, ", ");
			hm__add(nomem, b, sc->channels[i].p, sc->channels[i].len);
		}
		hm__putc(nomem, b, '.');
		if (sc->channel_required)
			hm__adds(nomem, b, " Channel must be included for every message.");
		if (fn_tools)
			hm__adds(nomem, b, "\nCalls to these tools must go to the commentary channel: 'functions'.");
	}
}

/* The `# Response Formats` section (response_format.c reads it from requests). */
static void
response_format_section(int *nomem, hm_buf *b, const hm_developer_content *d)
{
	const char *p = d->format_description.p, *e, *end;

	hm__adds(nomem, b, "# Response Formats\n\n## ");
	hm__add(nomem, b, d->format_name.p, d->format_name.len);
	hm__adds(nomem, b, "\n\n");
	/* The description as comment lines, as the format's template has it. */
	if (p && d->format_description.len) {
		end = p + d->format_description.len;
		for (;;) {
			e = memchr(p, '\n', (size_t)(end - p));
			hm__adds(nomem, b, "// ");
			hm__add(nomem, b, p, e ? (size_t)(e - p) : (size_t)(end - p));
			hm__putc(nomem, b, '\n');
			if (!e)
				break;
			p = e + 1;
		}
	}
	if (d->format_schema)
		hm__jv_write_to(nomem, b, d->format_schema);
}

static void
developer_text(int *nomem, hm_buf *b, const hm_developer_content *dc)
{
	int sections = 0;

	if (dc->instructions.p) {
		sections = 2;
		hm__adds(nomem, b, "# Instructions\n\n");
		hm__add(nomem, b, dc->instructions.p, dc->instructions.len);
	}
	if (dc->tools.present && dc->tools.n) {
		sep(nomem, b, &sections, "\n\n");
		hm__tools_section_write(nomem, b, &dc->tools);
	}
	if (dc->format_name.p) {
		sep(nomem, b, &sections, "\n\n");
		response_format_section(nomem, b, dc);
	}
}

static const char *const role_variant[] = {
	"User", "Assistant", "System", "Developer", "Tool",
};

/*
 * open: the message is continued by the model, so it has no stop token.
 * model: an assistant's call as models write it, the channel first.
 */
static hm_status
render_message(hm_segs *s, const hm_message *m, int fn_tools, int open, int model,
    hm_error *err)
{
	size_t i, t;
	int late = model && m->role == HM_ROLE_ASSISTANT && m->channel.p;

	special(s, HM_TOK_START);
	if (m->role == HM_ROLE_TOOL) {
		if (!m->name.p) {
			hm__seterr(err, "Tools should have a name!");
			return HM_EINPUT;
		}
		text(s, NULL, m->name.p, m->name.len);
	} else {
		const char *r = hm_role_name(m->role);

		text(s, NULL, r, strlen(r));
		if (m->name.p)
			text(s, ":", m->name.p, m->name.len);
	}
	if (m->recipient.p && !str_is(&m->recipient, "all") && !late)
		text(s, " to=", m->recipient.p, m->recipient.len);
	if (m->channel.p) {
		special(s, HM_TOK_CHANNEL);
		text(s, NULL, m->channel.p, m->channel.len);
	}
	if (m->recipient.p && !str_is(&m->recipient, "all") && late)
		text(s, " to=", m->recipient.p, m->recipient.len);
	if (m->content_type.p) {
		static const char pfx[] = "<|constrain|>";
		const hm_str *ct = &m->content_type;

		if (ct->len >= sizeof pfx - 1 && !memcmp(ct->p, pfx, sizeof pfx - 1)) {
			text(s, NULL, " ", 1);
			special(s, HM_TOK_CONSTRAIN);
			text(s, NULL, ct->p + sizeof pfx - 1, ct->len - (sizeof pfx - 1));
		} else
			text(s, " ", ct->p, ct->len);
	}
	special(s, HM_TOK_MESSAGE);
	for (i = 0; i < m->ncontent; i++) {
		const hm_content *c = &m->content[i];

		switch (c->type) {
		case HM_CONTENT_TEXT:
			text(s, NULL, c->text.p, c->text.len);
			break;
		case HM_CONTENT_SYSTEM:
			if (m->role != HM_ROLE_SYSTEM) {
				hm__seterr(err, "SystemContent may only appear in system messages, found in %s",
				    role_variant[m->role]);
				return HM_EINPUT;
			}
			t = text_begin(s);
			system_text(&s->nomem, &s->text, c->sys, fn_tools);
			text_end(s, t);
			break;
		case HM_CONTENT_DEVELOPER:
			if (m->role != HM_ROLE_DEVELOPER) {
				hm__seterr(err, "DeveloperContent may only appear in developer messages, found in %s",
				    role_variant[m->role]);
				return HM_EINPUT;
			}
			t = text_begin(s);
			developer_text(&s->nomem, &s->text, c->dev);
			text_end(s, t);
			break;
		case HM_CONTENT_UNKNOWN:
			break;
		}
	}
	if (!open)
		special(s, m->role == HM_ROLE_ASSISTANT && m->recipient.p ?
		    HM_TOK_CALL : HM_TOK_END);
	return HM_OK;
}

/* continue_last: only an assistant's text can be continued, never a call. */
static hm_status
check_open(const hm_conversation *c, const hm_render_opts *o, hm_error *err)
{
	const hm_message *m = c->n ? &c->msgs[c->n - 1] : NULL;

	if (o->mode == HM_RENDER_TRAINING) {
		hm__seterr(err, "a training sample holds whole messages: "
		    "its last message cannot be left open to continue");
		return HM_EINPUT;
	}
	if (!m) {
		hm__seterr(err, "no message to continue");
		return HM_EINPUT;
	}
	if (m->role != HM_ROLE_ASSISTANT) {
		hm__seterr(err, "the last message is the %s's: only an assistant's message can be continued",
		    hm_role_name(m->role));
		return HM_EINPUT;
	}
	if (m->recipient.p && !str_is(&m->recipient, "all")) {
		hm__seterr(err, "the last message is a tool call (to %.100s): "
		    "a call is not continued, its result follows it", m->recipient.p);
		return HM_EINPUT;
	}
	return HM_OK;
}

static int
has_function_tools(const hm_conversation *c)
{
	size_t i, j, k;

	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->msgs[i].ncontent; j++) {
			const hm_content *ct = &c->msgs[i].content[j];

			if (ct->type != HM_CONTENT_DEVELOPER || !ct->dev->tools.present)
				continue;
			for (k = 0; k < ct->dev->tools.n; k++) {
				const hm_namespace *ns = &ct->dev->tools.ns[k];

				if (str_is(&ns->key, "functions") && ns->ntools)
					return 1;
			}
		}
	return 0;
}

/*
 * Message m as the ids it was written as (hm_conversation_message_ids):
 * <|start|> and its role first when they do not begin with <|start|> (the
 * completion's first message began in the prompt), a last <|return|> as
 * <|end|>, as history has it; open (a prefill continued): without its stop.
 */
static hm_status
render_ids(hm_segs *s, const hm_message *m, const uint32_t *ids, size_t n, int open,
    hm_error *err)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!hm_token_bytes(ids[i], &(size_t){ 0 })) {
			hm__seterr(err, "tokens[%zu]: %u is no token id", i, (unsigned)ids[i]);
			return HM_EINPUT;
		}
	if (!n || ids[0] != HM_TOK_START) {
		special(s, HM_TOK_START);
		if (m->role == HM_ROLE_TOOL && m->name.p)
			text(s, NULL, m->name.p, m->name.len);
		else {
			const char *r = hm_role_name(m->role);

			text(s, NULL, r, strlen(r));
		}
	}
	if (open && n && (ids[n - 1] == HM_TOK_END || ids[n - 1] == HM_TOK_RETURN ||
	    ids[n - 1] == HM_TOK_CALL))
		n--;
	for (i = 0; i < n; i++)
		special(s, i + 1 == n && ids[i] == HM_TOK_RETURN ? HM_TOK_END : ids[i]);
	return HM_OK;
}

hm_status
hm__render_segs(const hm_conversation *c, const hm_render_opts *given,
               hm_segs *s, hm_error *err)
{
	int fn = has_function_tools(c), drop = 0;
	size_t i, first_final = c->n;
	hm_render_opts opts = HM_RENDER_OPTS_INIT;
	const hm_render_opts *o = &opts;
	hm_status st;

	memset(s, 0, sizeof *s);
	if (hm__opts_take(&opts, sizeof opts, given, err) != HM_OK)
		return HM_EINPUT;
	if (o->continue_last && (st = check_open(c, o, err)) != HM_OK)
		return st;
	if (!o->keep_analysis) {
		for (i = c->n; i-- > 0;)
			if (c->msgs[i].role == HM_ROLE_ASSISTANT) {
				drop = str_is(&c->msgs[i].channel, "final");
				break;
			}
		for (i = 0; i < c->n; i++)
			if (str_is(&c->msgs[i].channel, "final")) {
				first_final = i;
				break;
			}
		/*
		 * A final answer being continued is not yet a finished turn: the
		 * analysis written before it in the same turn stays in view.
		 */
		if (o->continue_last && first_final == c->n - 1)
			drop = 0;
	}
	for (i = 0; i < c->n; i++) {
		const uint32_t *ids;
		size_t nids;

		if (drop && i < first_final && str_is(&c->msgs[i].channel, "analysis"))
			continue;
		ids = hm_conversation_message_ids(c, i, &nids);
		if ((st = ids ? render_ids(s, &c->msgs[i], ids, nids,
		    o->continue_last && i == c->n - 1, err) :
		    render_message(s, &c->msgs[i], fn, o->continue_last && i == c->n - 1,
		    o->model_headers, err)) != HM_OK) {
			hm__segs_free(s);
			return st;
		}
	}
	if (o->mode == HM_RENDER_COMPLETION && !o->continue_last) {
		const char *r = hm_role_name(o->next_role);

		special(s, HM_TOK_START);
		text(s, NULL, r, strlen(r));
	} else if (o->mode == HM_RENDER_TRAINING && c->n && s->n &&
	    c->msgs[c->n - 1].role == HM_ROLE_ASSISTANT &&
	    str_is(&c->msgs[c->n - 1].channel, "final")) {
		/* The last segment is the message's end token. */
		s->v[s->n - 1].id = HM_TOK_RETURN;
	}
	if (s->nomem) {
		hm__segs_free(s);
		return HM_ENOMEM;
	}
	return HM_OK;
}

hm_status
hm_render_with(hm_encoder *enc, const hm_conversation *c, const hm_render_opts *o,
               hm_ids *out, hm_error *err)
{
	hm_segs s;
	hm_status st;
	size_t i;

	if ((st = hm__render_segs(c, o, &s, err)) != HM_OK)
		return st;
	for (i = 0; i < s.n && st == HM_OK; i++) {
		if (s.v[i].id != HM_SEG_TEXT)
			st = hm_ids_push(out, s.v[i].id);
		else
			st = hm_encode(enc, s.text.p + s.v[i].off, s.v[i].len, 0, out, NULL);
	}
	if (st == HM_EINPUT)
		hm__seterr(err, "text is not valid UTF-8");
	hm__segs_free(&s);
	return st;
}

hm_status
hm_render(const hm_conversation *c, const hm_render_opts *o, hm_ids *out,
          hm_error *err)
{
	/* the call's own encoder: nothing shared between threads */
	hm_encoder *enc = hm_encoder_new();
	hm_status st;

	if (!enc) {
		hm__seterr(err, "out of memory");
		return HM_ENOMEM;
	}
	st = hm_render_with(enc, c, o, out, err);
	hm_encoder_free(enc);
	return st;
}

hm_status
hm_render_text(const hm_conversation *c, const hm_render_opts *o,
               char **text_out, size_t *len, hm_error *err)
{
	hm_segs s;
	hm_buf b = {0};
	hm_status st;
	size_t i;

	*text_out = NULL;
	if ((st = hm__render_segs(c, o, &s, err)) != HM_OK)
		return st;
	/* b: the segments' text, written under their flag (s.nomem) */
	hm__reserve(&s.nomem, &b, s.text.len + 16 * s.n);
	for (i = 0; i < s.n; i++) {
		if (s.v[i].id != HM_SEG_TEXT) {
			size_t n = 0;
			const char *t = *hm__render_special_text(s.v[i].id) ?
			    hm__render_special_text(s.v[i].id) : hm_token_bytes(s.v[i].id, &n);

			/* a message's own ids (render_ids) may be any token */
			hm__add(&s.nomem, &b, t ? t : "", t && !n ? strlen(t) : n);
		} else
			hm__add(&s.nomem, &b, s.text.p + s.v[i].off, s.v[i].len);
	}
	hm__putc(&s.nomem, &b, '\0');
	st = s.nomem ? HM_ENOMEM : HM_OK;
	hm__segs_free(&s);
	if (st != HM_OK) {
		hm_buf_free(&b);
		return HM_ENOMEM;
	}
	*text_out = b.p;
	if (len)
		*len = b.len - 1;
	return HM_OK;
}
