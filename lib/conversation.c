/*
 * conversation.c - the Harmony data model: building, freeing, and reading
 * and writing the reference's serde JSON shape (spec §2.11).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"

static const char builtin_browser[] =
    "{\"name\":\"browser\",\"description\":\"Tool for browsing.\\nThe `cu"
    "rsor` appears in brackets before each browsing display: `[{cursor}]`"
    ".\\nCite information from the tool using the following format:\\n`【{"
    "cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or"
    " `【8†L3】`.\\nDo not quote more than 10 words directly from the tool "
    "output.\\nsources=web (default: web)\",\"tools\":[{\"name\":\"search"
    "\",\"description\":\"Searches for information related to `query` and"
    " displays `topn` results.\",\"parameters\":{\"type\":\"object\",\"pr"
    "operties\":{\"query\":{\"type\":\"string\"},\"topn\":{\"type\":\"num"
    "ber\",\"default\":10},\"source\":{\"type\":\"string\"}},\"required\""
    ":[\"query\"]}},{\"name\":\"open\",\"description\":\"Opens the link `"
    "id` from the page indicated by `cursor` starting at line number `loc"
    "`, showing `num_lines` lines.\\nValid link ids are displayed with th"
    "e formatting: `【{id}†.*】`.\\nIf `cursor` is not provided, the most r"
    "ecent page is implied.\\nIf `id` is a string, it is treated as a ful"
    "ly qualified URL associated with `source`.\\nIf `loc` is not provide"
    "d, the viewport will be positioned at the beginning of the document "
    "or centered on the most relevant passage, if available.\\nUse this f"
    "unction without `id` to scroll to a new location of an opened page.\""
    ",\"parameters\":{\"type\":\"object\",\"properties\":{\"id\":{\"type\""
    ":[\"number\",\"string\"],\"default\":-1},\"cursor\":{\"type\":\"numb"
    "er\",\"default\":-1},\"loc\":{\"type\":\"number\",\"default\":-1},\""
    "num_lines\":{\"type\":\"number\",\"default\":-1},\"view_source\":{\""
    "type\":\"boolean\",\"default\":false},\"source\":{\"type\":\"string\""
    "}}}},{\"name\":\"find\",\"description\":\"Finds exact matches of `pa"
    "ttern` in the current page, or the page given by `cursor`.\",\"param"
    "eters\":{\"type\":\"object\",\"properties\":{\"pattern\":{\"type\":\""
    "string\"},\"cursor\":{\"type\":\"number\",\"default\":-1}},\"require"
    "d\":[\"pattern\"]}}]}";
static const char builtin_python[] =
    "{\"name\":\"python\",\"description\":\"Use this tool to execute Pyth"
    "on code in your chain of thought. The code will not be shown to the "
    "user. This tool should be used for internal reasoning, but not for c"
    "ode that is intended to be visible to the user (e.g. when creating p"
    "lots, tables, or files).\\n\\nWhen you send a message containing Pyt"
    "hon code to python, it will be executed in a stateful Jupyter notebo"
    "ok environment. python will respond with the output of the execution"
    " or time out after 120.0 seconds. The drive at '/mnt/data' can be us"
    "ed to save and persist user files. Internet access for this session "
    "is UNKNOWN. Depends on the cluster.\",\"tools\":[]}";

static const char *const effort_names[] = {NULL, "Low", "Medium", "High"};

hm_status
hm__opts_take(void *dst, size_t n, const void *src, hm_error *err)
{
	size_t size;

	if (!src)
		return HM_OK;
	memcpy(&size, src, sizeof size);
	if (size < sizeof size) {
		hm__seterr(err, "options without their size: make them with their _INIT macro");
		return HM_EINPUT;
	}
	memcpy(dst, src, size < n ? size : n);
	*(size_t *)dst = n;
	return HM_OK;
}

void
hm__seterr(hm_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	err->line = err->col = 0;
	err->index = (size_t)-1;
	err->hint = HM_HINT_NONE;
}

void
hm__err_json_at(hm_error *err, const char *buf, size_t len, size_t off)
{
	size_t i, line = 1, col = 1;

	if (!err)
		return;
	/* as json_parse.c counts them for its message */
	for (i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n') {
			line++;
			col = 1;
		} else
			col++;
	}
	err->line = line;
	err->col = col;
}

size_t
hm_error_place(const hm_error *e)
{
	char at[64];
	size_t n = strlen(e->msg), k;

	if (!e->line || !e->col)
		return n;
	k = (size_t)snprintf(at, sizeof at, " at line %zu column %zu", e->line, e->col);
	return n >= k && !memcmp(e->msg + n - k, at, k) ? n - k : n;
}

hm_status
hm_str_set(hm_str *dst, const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (!p)
		return HM_ENOMEM;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	free(dst->p);
	dst->p = p;
	dst->len = len;
	return HM_OK;
}

static void
str_clear(hm_str *s)
{
	free(s->p);
	s->p = NULL;
	s->len = 0;
}

/* ---------------------------------------------------------------- freeing */

void
hm_namespace_free(hm_namespace *ns)
{
	size_t i;

	for (i = 0; i < ns->ntools; i++) {
		str_clear(&ns->tools[i].name);
		str_clear(&ns->tools[i].description);
		hm__jv_free(ns->tools[i].parameters);
	}
	free(ns->tools);
	str_clear(&ns->key);
	str_clear(&ns->name);
	str_clear(&ns->description);
	memset(ns, 0, sizeof *ns);
}

void
hm__tools_clear(hm_tools *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		hm_namespace_free(&t->ns[i]);
	free(t->ns);
	memset(t, 0, sizeof *t);
}

static void
content_clear(hm_content *c)
{
	size_t i;

	str_clear(&c->text);
	if (c->sys) {
		str_clear(&c->sys->model_identity);
		str_clear(&c->sys->date);
		str_clear(&c->sys->cutoff);
		hm__tools_clear(&c->sys->tools);
		for (i = 0; i < c->sys->nchannels; i++)
			str_clear(&c->sys->channels[i]);
		free(c->sys->channels);
		free(c->sys);
	}
	if (c->dev) {
		str_clear(&c->dev->instructions);
		hm__tools_clear(&c->dev->tools);
		str_clear(&c->dev->format_name);
		str_clear(&c->dev->format_description);
		hm__jv_free(c->dev->format_schema);
		free(c->dev);
	}
	memset(c, 0, sizeof *c);
}

void
hm__message_clear(hm_message *m)
{
	size_t i;

	for (i = 0; i < m->ncontent; i++)
		content_clear(&m->content[i]);
	free(m->content);
	str_clear(&m->name);
	str_clear(&m->recipient);
	str_clear(&m->channel);
	str_clear(&m->content_type);
	memset(m, 0, sizeof *m);
}

hm_conversation *
hm_conversation_new(void)
{
	return calloc(1, sizeof(hm_conversation));
}

void
hm_conversation_free(hm_conversation *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		hm__message_clear(&c->msgs[i]);
	free(c->msgs);
	hm__conv_ids_free(c);
	free(c);
}

/* ---------------------------------------------------------------- building */

hm_message *
hm_conversation_push(hm_conversation *c, hm_role role)
{
	hm_message *m;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 8;
		void *p = realloc(c->msgs, cap * sizeof *c->msgs);

		if (!p)
			return NULL;
		c->msgs = p;
		c->cap = cap;
	}
	m = &c->msgs[c->n++];
	memset(m, 0, sizeof *m);
	m->role = role;
	return m;
}

static hm_content *
add_content(hm_message *m, hm_content_type t)
{
	hm_content *p = realloc(m->content, (m->ncontent + 1) * sizeof *p);

	if (!p)
		return NULL;
	m->content = p;
	p += m->ncontent++;
	memset(p, 0, sizeof *p);
	p->type = t;
	return p;
}

hm_status
hm_message_add_text(hm_message *m, const char *s, size_t len)
{
	hm_content *c = add_content(m, HM_CONTENT_TEXT);

	if (!c)
		return HM_ENOMEM;
	if (hm_str_set(&c->text, s, len) != HM_OK) {
		m->ncontent--;
		return HM_ENOMEM;
	}
	return HM_OK;
}

hm_system_content *
hm_message_add_system(hm_message *m)
{
	static const char ident[] =
	    "You are ChatGPT, a large language model trained by OpenAI.";
	hm_content *c = add_content(m, HM_CONTENT_SYSTEM);
	hm_system_content *s;
	int i, bad = 0;

	if (!c)
		return NULL;
	if (!(s = c->sys = calloc(1, sizeof *s)) ||
	    !(s->channels = calloc(HM__NCHANS, sizeof *s->channels))) {
		free(s);
		m->ncontent--;
		return NULL;
	}
	s->effort = HM_EFFORT_MEDIUM;
	s->has_channels = s->channel_required = 1;
	s->nchannels = HM__NCHANS;
	for (i = 0; i < HM__NCHANS; i++)
		bad |= hm_str_set(&s->channels[i], hm__chan_names[i], strlen(hm__chan_names[i]));
	bad |= hm_str_set(&s->model_identity, ident, sizeof ident - 1);
	bad |= hm_str_set(&s->cutoff, "2024-06", 7);
	if (bad) {
		content_clear(c);
		m->ncontent--;
		return NULL;
	}
	return s;
}

hm_developer_content *
hm_message_add_developer(hm_message *m)
{
	hm_content *c = add_content(m, HM_CONTENT_DEVELOPER);

	if (!c)
		return NULL;
	if (!(c->dev = calloc(1, sizeof *c->dev))) {
		m->ncontent--;
		return NULL;
	}
	return c->dev;
}

static int
keycmp(const hm_str *a, const char *b, size_t blen)
{
	size_t n = a->len < blen ? a->len : blen;
	int r = memcmp(a->p, b, n);

	if (r)
		return r;
	return a->len < blen ? -1 : a->len > blen;
}

static hm_namespace *
tools_slot(hm_tools *t, const char *key, size_t klen)
{
	size_t lo = 0, hi = t->n, mid;
	hm_namespace *p, *ns;

	t->present = 1;
	while (lo < hi) {
		int r;

		mid = (lo + hi) / 2;
		r = keycmp(&t->ns[mid].key, key, klen);
		if (r == 0) {
			hm_namespace_free(&t->ns[mid]);
			ns = &t->ns[mid];
			goto fill;
		}
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!(p = realloc(t->ns, (t->n + 1) * sizeof *p)))
		return NULL;
	t->ns = p;
	memmove(p + lo + 1, p + lo, (t->n - lo) * sizeof *p);
	t->n++;
	ns = &p[lo];
	memset(ns, 0, sizeof *ns);
fill:
	if (hm_str_set(&ns->key, key, klen) != HM_OK)
		return NULL;
	return ns;
}

hm_namespace *
hm_tools_namespace(hm_tools *t, const char *key)
{
	hm_namespace *ns = tools_slot(t, key, strlen(key));

	if (ns && hm_str_set(&ns->name, key, strlen(key)) != HM_OK)
		return NULL;
	return ns;
}

hm_status
hm__namespace_add_tool_jv(hm_namespace *ns, const char *name, size_t nlen,
                         const char *desc, size_t dlen, hm_jv *params)
{
	hm_tool *p = realloc(ns->tools, (ns->ntools + 1) * sizeof *p);

	if (!p) {
		hm__jv_free(params);
		return HM_ENOMEM;
	}
	ns->tools = p;
	p += ns->ntools;
	memset(p, 0, sizeof *p);
	if (hm_str_set(&p->name, name, nlen) != HM_OK ||
	    hm_str_set(&p->description, desc, dlen) != HM_OK) {
		str_clear(&p->name);
		hm__jv_free(params);
		return HM_ENOMEM;
	}
	p->parameters = params;
	ns->ntools++;
	return HM_OK;
}

hm_status
hm_namespace_add_tool(hm_namespace *ns, const char *name, size_t nlen,
                      const char *desc, size_t dlen, const char *params,
                      size_t plen, hm_error *err)
{
	hm_jv *pv = NULL;

	if (params) {
		char msg[160];

		hm_status st = hm__jv_read(params, plen, NULL, 1, HM_JV_NODUP, &pv, msg, sizeof msg, NULL);

		if (st != HM_OK) {
			if (st == HM_EINPUT)
				hm__seterr(err, "parameters: %s", msg);
			return st;
		}
	}
	return hm__namespace_add_tool_jv(ns, name, nlen, desc, dlen, pv);
}

hm_status
hm_tools_add_builtin(hm_tools *t, const char *name)
{
	const char *src;
	hm_jv *v;
	hm_namespace *ns;
	hm_status st;

	if (!strcmp(name, "browser"))
		src = builtin_browser;
	else if (!strcmp(name, "python"))
		src = builtin_python;
	else
		return HM_EINPUT;
	/* A builtin's JSON is valid: reading it fails only out of memory. */
	if ((st = hm__jv_read(src, strlen(src), NULL, 1, 0, &v, NULL, 0, NULL)) != HM_OK)
		return st;
	if (!(ns = tools_slot(t, name, strlen(name)))) {
		hm__jv_free(v);
		return HM_ENOMEM;
	}
	st = hm__namespace_from_jv(v, ns, NULL);
	if (st == HM_OK)
		st = hm_str_set(&ns->key, name, strlen(name));
	hm__jv_free(v);
	return st;
}

/* ---------------------------------------------------------------- reading */

static const char *
type_name(const hm_jv *v)
{
	switch (v->type) {
	case HM_JV_NULL: return "null";
	case HM_JV_FALSE:
	case HM_JV_TRUE: return "boolean";
	case HM_JV_NUMBER: return "number";
	case HM_JV_STRING: return "string";
	case HM_JV_ARRAY: return "sequence";
	default: return "map";
	}
}

/*
 * Optional string field: absent or null leaves *dst NULL.  Returns
 * HM_EINPUT for another type.
 */
static hm_status
opt_str(const hm_jv *obj, const char *key, hm_str *dst, hm_error *err)
{
	hm_jv *v = hm__jv_get(obj, key);

	if (!v || v->type == HM_JV_NULL)
		return HM_OK;
	if (v->type != HM_JV_STRING) {
		hm__seterr(err, "%s: invalid type: %s, expected a string", key, type_name(v));
		return HM_EINPUT;
	}
	return hm_str_set(dst, v->s, v->len);
}

static hm_status
req_str(const hm_jv *obj, const char *key, hm_str *dst, hm_error *err)
{
	hm_jv *v = hm__jv_get(obj, key);

	if (!v) {
		hm__seterr(err, "missing field `%s`", key);
		return HM_EINPUT;
	}
	if (v->type != HM_JV_STRING) {
		hm__seterr(err, "%s: invalid type: %s, expected a string", key, type_name(v));
		return HM_EINPUT;
	}
	return hm_str_set(dst, v->s, v->len);
}

static hm_status
want_object(const hm_jv *v, const char *what, hm_error *err)
{
	if (v->type != HM_JV_OBJECT) {
		hm__seterr(err, "%s: invalid type: %s, expected a map", what, type_name(v));
		return HM_EINPUT;
	}
	return HM_OK;
}

hm_status
hm__namespace_from_jv(const hm_jv *v, hm_namespace *ns, hm_error *err)
{
	hm_jv *tools;
	hm_status st;
	size_t i;

	if ((st = want_object(v, "namespace", err)) != HM_OK)
		return st;
	if ((st = req_str(v, "name", &ns->name, err)) != HM_OK ||
	    (st = opt_str(v, "description", &ns->description, err)) != HM_OK)
		return st;
	if (!(tools = hm__jv_get(v, "tools"))) {
		hm__seterr(err, "missing field `tools`");
		return HM_EINPUT;
	}
	if (tools->type != HM_JV_ARRAY) {
		hm__seterr(err, "tools: invalid type: %s, expected a sequence", type_name(tools));
		return HM_EINPUT;
	}
	for (i = 0; i < tools->n; i++) {
		const hm_jv *t = tools->v[i], *pv;
		hm_str name = {0}, desc = {0};
		hm_jv *params = NULL;

		if ((st = want_object(t, "tool", err)) != HM_OK)
			return st;
		if ((st = req_str(t, "name", &name, err)) != HM_OK ||
		    (st = req_str(t, "description", &desc, err)) != HM_OK) {
			str_clear(&name);
			return st;
		}
		pv = hm__jv_get(t, "parameters");
		if (pv && pv->type != HM_JV_NULL && !(params = hm__jv_copy(pv)))
			st = HM_ENOMEM;
		if (st == HM_OK)
			st = hm__namespace_add_tool_jv(ns, name.p, name.len,
			    desc.p, desc.len, params);
		str_clear(&name);
		str_clear(&desc);
		if (st != HM_OK)
			return st;
	}
	return HM_OK;
}

hm_status
hm__tools_from_jv(const hm_jv *v, hm_tools *t, hm_error *err)
{
	size_t i;
	hm_status st;

	if ((st = want_object(v, "tools", err)) != HM_OK)
		return st;
	t->present = 1;
	for (i = 0; i < v->n; i++) {
		hm_namespace *ns = tools_slot(t, v->k[i], v->klen[i]);

		if (!ns)
			return HM_ENOMEM;
		if ((st = hm__namespace_from_jv(v->v[i], ns, err)) != HM_OK)
			return st;
	}
	return HM_OK;
}

static hm_status
system_from_jv(const hm_jv *v, hm_system_content *s, hm_error *err)
{
	hm_jv *e, *t, *cc;
	hm_status st;
	size_t i;

	if ((st = opt_str(v, "model_identity", &s->model_identity, err)) != HM_OK ||
	    (st = opt_str(v, "conversation_start_date", &s->date, err)) != HM_OK ||
	    (st = opt_str(v, "knowledge_cutoff", &s->cutoff, err)) != HM_OK)
		return st;
	e = hm__jv_get(v, "reasoning_effort");
	if (e && e->type != HM_JV_NULL) {
		if (e->type != HM_JV_STRING) {
			hm__seterr(err, "reasoning_effort: invalid type: %s, expected a string", type_name(e));
			return HM_EINPUT;
		}
		for (i = 1; i <= 3; i++)
			if (!strcmp(e->s, effort_names[i]) && strlen(effort_names[i]) == e->len)
				s->effort = (hm_effort)i;
		if (s->effort == HM_EFFORT_NONE) {
			hm__seterr(err, "unknown variant `%s`, expected one of `Low`, `Medium`, `High`", e->s);
			return HM_EINPUT;
		}
	}
	t = hm__jv_get(v, "tools");
	if (t && t->type != HM_JV_NULL && (st = hm__tools_from_jv(t, &s->tools, err)) != HM_OK)
		return st;
	cc = hm__jv_get(v, "channel_config");
	if (cc && cc->type != HM_JV_NULL) {
		hm_jv *vc, *req;

		if ((st = want_object(cc, "channel_config", err)) != HM_OK)
			return st;
		if (!(vc = hm__jv_get(cc, "valid_channels"))) {
			hm__seterr(err, "missing field `valid_channels`");
			return HM_EINPUT;
		}
		if (!(req = hm__jv_get(cc, "channel_required"))) {
			hm__seterr(err, "missing field `channel_required`");
			return HM_EINPUT;
		}
		if (vc->type != HM_JV_ARRAY) {
			hm__seterr(err, "valid_channels: invalid type: %s, expected a sequence", type_name(vc));
			return HM_EINPUT;
		}
		if (req->type != HM_JV_TRUE && req->type != HM_JV_FALSE) {
			hm__seterr(err, "channel_required: invalid type: %s, expected a boolean", type_name(req));
			return HM_EINPUT;
		}
		s->has_channels = 1;
		s->channel_required = req->type == HM_JV_TRUE;
		if (vc->n && !(s->channels = calloc(vc->n, sizeof *s->channels)))
			return HM_ENOMEM;
		for (i = 0; i < vc->n; i++) {
			if (vc->v[i]->type != HM_JV_STRING) {
				hm__seterr(err, "valid_channels: invalid type: %s, expected a string", type_name(vc->v[i]));
				return HM_EINPUT;
			}
			if (hm_str_set(&s->channels[i], vc->v[i]->s, vc->v[i]->len) != HM_OK)
				return HM_ENOMEM;
			s->nchannels++;
		}
	}
	return HM_OK;
}

/* developer_content's response_format: {"name", "description", "schema"}. */
static hm_status
response_format_from_jv(const hm_jv *v, hm_developer_content *d, hm_error *err)
{
	const hm_jv *name = hm__jv_get(v, "name"), *desc = hm__jv_get(v, "description");
	const hm_jv *schema = hm__jv_get(v, "schema");

	if (v->type != HM_JV_OBJECT) {
		hm__seterr(err, "response_format: must be an object");
		return HM_EINPUT;
	}
	if (!name || name->type != HM_JV_STRING || !name->len) {
		hm__seterr(err, "response_format: missing field `name`");
		return HM_EINPUT;
	}
	if (desc && desc->type != HM_JV_NULL && desc->type != HM_JV_STRING) {
		hm__seterr(err, "response_format: description must be a string");
		return HM_EINPUT;
	}
	if (!schema || (schema->type != HM_JV_OBJECT && schema->type != HM_JV_TRUE &&
	    schema->type != HM_JV_FALSE)) {
		hm__seterr(err, "response_format: missing field `schema` (an object)");
		return HM_EINPUT;
	}
	if (hm_str_set(&d->format_name, name->s, name->len) != HM_OK)
		return HM_ENOMEM;
	if (desc && desc->type == HM_JV_STRING && desc->len &&
	    hm_str_set(&d->format_description, desc->s, desc->len) != HM_OK)
		return HM_ENOMEM;
	if (!(d->format_schema = hm__jv_copy(schema)))
		return HM_ENOMEM;
	return HM_OK;
}

static hm_status
content_from_jv(const hm_jv *v, hm_message *m, hm_error *err)
{
	const char *type;
	size_t tlen;
	hm_status st;

	if ((st = want_object(v, "content", err)) != HM_OK)
		return st;
	if (!(type = hm__jv_getstr(v, "type", &tlen))) {
		hm__seterr(err, hm__jv_get(v, "type") ? "content: `type` must be a string" : "missing field `type`");
		return HM_EINPUT;
	}
	if (!strcmp(type, "text")) {
		hm_content *c = add_content(m, HM_CONTENT_TEXT);

		if (!c)
			return HM_ENOMEM;
		return req_str(v, "text", &c->text, err);
	}
	if (!strcmp(type, "system_content")) {
		hm_content *c = add_content(m, HM_CONTENT_SYSTEM);

		if (!c)
			return HM_ENOMEM;
		if (!(c->sys = calloc(1, sizeof *c->sys)))
			return HM_ENOMEM;
		return system_from_jv(v, c->sys, err);
	}
	if (!strcmp(type, "developer_content")) {
		hm_content *c = add_content(m, HM_CONTENT_DEVELOPER);
		hm_jv *t;

		if (!c)
			return HM_ENOMEM;
		if (!(c->dev = calloc(1, sizeof *c->dev)))
			return HM_ENOMEM;
		if ((st = opt_str(v, "instructions", &c->dev->instructions, err)) != HM_OK)
			return st;
		t = hm__jv_get(v, "tools");
		if (t && t->type != HM_JV_NULL && (st = hm__tools_from_jv(t, &c->dev->tools, err)) != HM_OK)
			return st;
		t = hm__jv_get(v, "response_format");
		if (t && t->type != HM_JV_NULL)
			return response_format_from_jv(t, c->dev, err);
		return HM_OK;
	}
	hm__seterr(err, "unknown variant `%s`, expected one of `text`, `system_content`, `developer_content`", type);
	return HM_EINPUT;
}

hm_status
hm__message_from_jv(const hm_jv *v, hm_message *m, hm_error *err)
{
	hm_jv *r, *c;
	hm_status st;
	int role;
	size_t i;

	memset(m, 0, sizeof *m);
	if ((st = want_object(v, "message", err)) != HM_OK)
		return st;
	if (!(r = hm__jv_get(v, "role"))) {
		hm__seterr(err, "missing field `role`");
		return HM_EINPUT;
	}
	if (r->type != HM_JV_STRING) {
		hm__seterr(err, "role: invalid type: %s, expected a string", type_name(r));
		return HM_EINPUT;
	}
	if ((role = hm__role_index(r->s, r->len)) < 0) {
		hm__seterr(err, "unknown variant `%s`, expected one of `user`, `assistant`, `system`, `developer`, `tool`", r->s);
		return HM_EINPUT;
	}
	m->role = (hm_role)role;
	if ((st = opt_str(v, "name", &m->name, err)) != HM_OK ||
	    (st = opt_str(v, "recipient", &m->recipient, err)) != HM_OK ||
	    (st = opt_str(v, "channel", &m->channel, err)) != HM_OK ||
	    (st = opt_str(v, "content_type", &m->content_type, err)) != HM_OK)
		goto fail;
	if (!(c = hm__jv_get(v, "content"))) {
		hm__seterr(err, "missing field `content`");
		st = HM_EINPUT;
		goto fail;
	}
	if (c->type == HM_JV_STRING) {
		if ((st = hm_message_add_text(m, c->s, c->len)) != HM_OK)
			goto fail;
	} else if (c->type == HM_JV_ARRAY) {
		for (i = 0; i < c->n; i++)
			if ((st = content_from_jv(c->v[i], m, err)) != HM_OK)
				goto fail;
	} else {
		hm__seterr(err, "invalid type: %s, expected string or list of content", type_name(c));
		st = HM_EINPUT;
		goto fail;
	}
	return HM_OK;
fail:
	hm__message_clear(m);
	return st;
}

/* buf[0..len) is the text v was read from: errors carry its line. */
static hm_status
conversation_from_jv(const hm_jv *v, hm_conversation *c, const char *buf,
                     size_t len, hm_error *err)
{
	const hm_jv *msgs = v;
	size_t i;

	if (v->type == HM_JV_OBJECT) {
		if (!(msgs = hm__jv_get(v, "messages"))) {
			hm__seterr(err, "missing field `messages`");
			return HM_EINPUT;
		}
	}
	if (msgs->type != HM_JV_ARRAY) {
		hm__seterr(err, "invalid type: %s, expected a conversation or a list of messages", type_name(msgs));
		return HM_EINPUT;
	}
	for (i = 0; i < msgs->n; i++) {
		hm_message *m = hm_conversation_push(c, HM_ROLE_USER);
		hm_status st;

		if (!m)
			return HM_ENOMEM;
		if ((st = hm__message_from_jv(msgs->v[i], m, err)) != HM_OK ||
		    (st = hm__conv_ids_from_jv(c, c->n - 1, msgs->v[i], err)) != HM_OK) {
			char tmp[sizeof err->msg];

			hm__message_clear(m);
			hm__conv_ids_clear(c, c->n - 1);
			c->n--;
			if (err && st == HM_EINPUT) {
				memcpy(tmp, err->msg, sizeof tmp);
				hm__seterr(err, "messages[%zu]: %s", i, tmp);
				err->line = hm__text_line(buf, len, msgs->v[i]->pos);
			}
			return st;
		}
	}
	return HM_OK;
}

hm_status
hm_conversation_from_json(const char *buf, size_t len, hm_conversation **out,
                          hm_error *err)
{
	char msg[200];
	size_t errpos = 0;
	hm_jv *v;
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NODUP, &v, msg, sizeof msg, &errpos);
	hm_conversation *c;

	*out = NULL;
	if (err)
		err->line = 0;
	if (st != HM_OK) {
		if (st == HM_EINPUT) {
			hm__seterr(err, "%s", msg);
			hm__err_json_at(err, buf, len, errpos);
		}
		return st;
	}
	if (!(c = hm_conversation_new())) {
		hm__jv_free(v);
		return HM_ENOMEM;
	}
	st = conversation_from_jv(v, c, buf, len, err);
	hm__jv_free(v);
	if (st != HM_OK) {
		hm_conversation_free(c);
		return st;
	}
	*out = c;
	return HM_OK;
}

hm_status
hm_conversation_add_json(hm_conversation *c, const char *buf, size_t len,
                         hm_error *err)
{
	char msg[200];
	hm_jv *v;
	hm_message *m;
	hm_status st = hm__jv_read(buf, len, NULL, 1, HM_JV_NODUP, &v, msg, sizeof msg, NULL);

	if (st != HM_OK) {
		if (st == HM_EINPUT)
			hm__seterr(err, "%s", msg);
		return st;
	}
	if (!(m = hm_conversation_push(c, HM_ROLE_USER))) {
		hm__jv_free(v);
		return HM_ENOMEM;
	}
	if ((st = hm__message_from_jv(v, m, err)) != HM_OK ||
	    (st = hm__conv_ids_from_jv(c, c->n - 1, v, err)) != HM_OK) {
		hm__message_clear(m);
		hm__conv_ids_clear(c, c->n - 1);
		c->n--;
	}
	hm__jv_free(v);
	return st;
}

/* ---------------------------------------------------------------- writing */

static void
put_key(int *nomem, hm_buf *b, const char *k, int first)
{
	if (!first)
		hm__putc(nomem, b, ',');
	hm__putc(nomem, b, '"');
	hm__adds(nomem, b, k);
	hm__adds(nomem, b, "\":");
}

static void
put_optstr(int *nomem, hm_buf *b, const hm_str *s)
{
	if (s->p)
		hm__json_str(nomem, b, s->p, s->len);
	else
		hm__adds(nomem, b, "null");
}

void
hm__tool_write(int *nomem, hm_buf *b, const hm_tool *t)
{
	hm__adds(nomem, b, "{\"name\":");
	hm__json_str(nomem, b, t->name.p, t->name.len);
	hm__adds(nomem, b, ",\"description\":");
	put_optstr(nomem, b, &t->description);
	hm__adds(nomem, b, ",\"parameters\":");
	if (t->parameters)
		hm__jv_write_to(nomem, b, t->parameters);
	else
		hm__adds(nomem, b, "null");
	hm__putc(nomem, b, '}');
}

void
hm__namespace_write(int *nomem, hm_buf *b, const hm_namespace *ns)
{
	size_t i;

	hm__adds(nomem, b, "{\"name\":");
	put_optstr(nomem, b, &ns->name);
	hm__adds(nomem, b, ",\"description\":");
	put_optstr(nomem, b, &ns->description);
	hm__adds(nomem, b, ",\"tools\":[");
	for (i = 0; i < ns->ntools; i++) {
		if (i)
			hm__putc(nomem, b, ',');
		hm__tool_write(nomem, b, &ns->tools[i]);
	}
	hm__adds(nomem, b, "]}");
}

static void
tools_write(int *nomem, hm_buf *b, const hm_tools *t)
{
	size_t i;

	if (!t->present) {
		hm__adds(nomem, b, "null");
		return;
	}
	hm__putc(nomem, b, '{');
	for (i = 0; i < t->n; i++) {
		if (i)
			hm__putc(nomem, b, ',');
		hm__json_str(nomem, b, t->ns[i].key.p, t->ns[i].key.len);
		hm__putc(nomem, b, ':');
		hm__namespace_write(nomem, b, &t->ns[i]);
	}
	hm__putc(nomem, b, '}');
}

static void
response_format_write(int *nomem, hm_buf *b, const hm_developer_content *d)
{
	hm__adds(nomem, b, ",\"response_format\":{\"name\":");
	hm__json_str(nomem, b, d->format_name.p, d->format_name.len);
	if (d->format_description.p) {
		hm__adds(nomem, b, ",\"description\":");
		hm__json_str(nomem, b, d->format_description.p, d->format_description.len);
	}
	hm__adds(nomem, b, ",\"schema\":");
	if (d->format_schema)
		hm__jv_write_to(nomem, b, d->format_schema);
	else
		hm__adds(nomem, b, "{}");
	hm__putc(nomem, b, '}');
}

static void
content_write(int *nomem, hm_buf *b, const hm_content *c)
{
	size_t i;

	switch (c->type) {
	case HM_CONTENT_TEXT:
		hm__adds(nomem, b, "{\"type\":\"text\",\"text\":");
		hm__json_str(nomem, b, c->text.p, c->text.len);
		hm__putc(nomem, b, '}');
		break;
	case HM_CONTENT_SYSTEM:
		hm__adds(nomem, b, "{\"type\":\"system_content\"");
		put_key(nomem, b, "model_identity", 0);
		put_optstr(nomem, b, &c->sys->model_identity);
		put_key(nomem, b, "reasoning_effort", 0);
		if (c->sys->effort) {
			hm__putc(nomem, b, '"');
			hm__adds(nomem, b, effort_names[c->sys->effort]);
			hm__putc(nomem, b, '"');
		} else
			hm__adds(nomem, b, "null");
		put_key(nomem, b, "tools", 0);
		tools_write(nomem, b, &c->sys->tools);
		put_key(nomem, b, "conversation_start_date", 0);
		put_optstr(nomem, b, &c->sys->date);
		put_key(nomem, b, "knowledge_cutoff", 0);
		put_optstr(nomem, b, &c->sys->cutoff);
		put_key(nomem, b, "channel_config", 0);
		if (c->sys->has_channels) {
			hm__adds(nomem, b, "{\"valid_channels\":[");
			for (i = 0; i < c->sys->nchannels; i++) {
				if (i)
					hm__putc(nomem, b, ',');
				hm__json_str(nomem, b, c->sys->channels[i].p, c->sys->channels[i].len);
			}
			hm__adds(nomem, b, c->sys->channel_required ?
			    "],\"channel_required\":true}" : "],\"channel_required\":false}");
		} else
			hm__adds(nomem, b, "null");
		hm__putc(nomem, b, '}');
		break;
	case HM_CONTENT_DEVELOPER:
		hm__adds(nomem, b, "{\"type\":\"developer_content\"");
		put_key(nomem, b, "instructions", 0);
		put_optstr(nomem, b, &c->dev->instructions);
		put_key(nomem, b, "tools", 0);
		tools_write(nomem, b, &c->dev->tools);
		if (c->dev->format_name.p)
			response_format_write(nomem, b, c->dev);
		hm__putc(nomem, b, '}');
		break;
	case HM_CONTENT_UNKNOWN:
		break;
	}
}

void
hm__message_write(int *nomem, hm_buf *b, const hm_message *m)
{
	size_t i;

	hm__adds(nomem, b, "{\"role\":\"");
	hm__adds(nomem, b, hm_role_name(m->role));
	hm__putc(nomem, b, '"');
	if (m->name.p) {
		put_key(nomem, b, "name", 0);
		hm__json_str(nomem, b, m->name.p, m->name.len);
	}
	if (m->recipient.p) {
		put_key(nomem, b, "recipient", 0);
		hm__json_str(nomem, b, m->recipient.p, m->recipient.len);
	}
	put_key(nomem, b, "content", 0);
	if (m->ncontent == 1 && m->content[0].type == HM_CONTENT_TEXT) {
		hm__json_str(nomem, b, m->content[0].text.p, m->content[0].text.len);
	} else {
		hm__putc(nomem, b, '[');
		for (i = 0; i < m->ncontent; i++) {
			if (i)
				hm__putc(nomem, b, ',');
			content_write(nomem, b, &m->content[i]);
		}
		hm__putc(nomem, b, ']');
	}
	if (m->channel.p) {
		put_key(nomem, b, "channel", 0);
		hm__json_str(nomem, b, m->channel.p, m->channel.len);
	}
	if (m->content_type.p) {
		put_key(nomem, b, "content_type", 0);
		hm__json_str(nomem, b, m->content_type.p, m->content_type.len);
	}
	hm__putc(nomem, b, '}');
}

/* b's text, or NULL when its writing ran out of memory (nomem). */
static char *
finish(int nomem, hm_buf *b, size_t *len)
{
	if (nomem || !b->p) {
		hm_buf_free(b);
		return NULL;
	}
	if (len)
		*len = b->len;
	return b->p;
}

char *
hm_conversation_to_json(const hm_conversation *c, size_t *len)
{
	hm_buf b = {0};
	size_t i;
	int nomem = 0;

	hm__adds(&nomem, &b, "{\"messages\":[");
	for (i = 0; i < c->n; i++) {
		const uint32_t *ids;
		size_t k, n;

		if (i)
			hm__putc(&nomem, &b, ',');
		hm__message_write(&nomem, &b, &c->msgs[i]);
		if ((ids = hm_conversation_message_ids(c, i, &n)) != NULL && b.len) {
			b.len--; /* the message's closing brace */
			hm__adds(&nomem, &b, ",\"tokens\":[");
			for (k = 0; k < n; k++) {
				if (k)
					hm__putc(&nomem, &b, ',');
				hm__addu(&nomem, &b, ids[k]);
			}
			hm__adds(&nomem, &b, "]}");
		}
	}
	hm__adds(&nomem, &b, "]}");
	return finish(nomem, &b, len);
}

char *
hm_message_to_json(const hm_message *m, size_t *len)
{
	hm_buf b = {0};
	int nomem = 0;

	hm__message_write(&nomem, &b, m);
	return finish(nomem, &b, len);
}
