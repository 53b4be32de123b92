/*
 * grammar.c - the grammar of a request's completion: what the model may
 * write after `<|start|>assistant` under the request's tool_choice and
 * response format, for an engine's constrained decoding.
 *
 * The completion is zero or more messages that end with <|end|> and go on
 * (analysis, and commentary preambles when tools may be called), each
 * followed by `<|start|>assistant`, then the one message the turn ends
 * with: the final answer (free text, a JSON object, or the response
 * format's schema) or one tool call.  A call is written as the models
 * write it, channel first (`<|channel|>commentary to=functions.f
 * <|constrain|>json<|message|>`), or as the reference renders it,
 * recipient first (` to=functions.f<|channel|>commentary
 * <|constrain|>json<|message|>`); its arguments follow the tool's schema.
 * The grammar stops where the stop token comes (<|return|> after a final,
 * <|call|> after a call): engines take those as stop-token ids, which
 * their grammar matcher never matches by text, so a grammar cannot tell
 * which of the two ends which message.  Because a Harmony completion ends
 * at its first <|call|>, every completion holds at most one call, and
 * parallel_tool_calls: false changes nothing.
 *
 * Message text is written without "<|" (so a special token's text is
 * never content), a narrowing the models keep in practice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conversation_int.h"
#include "grammar_int.h"

typedef struct gtool {
	char *recipient;     /* "functions.get_weather", "browser.search", "python" */
	const hm_jv *params; /* the argument schema; NULL: any JSON */
	int builtin;         /* a system namespace's: analysis channel, " code" */
	int code;            /* its input is code text, not JSON (python) */
	int allowed;         /* tool_choice leaves it callable */
} gtool;

enum { TC_AUTO, TC_NONE, TC_REQUIRED };
enum { FMT_TEXT, FMT_OBJECT, FMT_SCHEMA };

typedef struct greq {
	gtool *t;
	size_t n, cap;
	int mode;            /* TC_* */
	const char *mode_why;/* how tool_choice read, for the header */
	int analysis;        /* the analysis channel is allowed */
	int fmt;             /* FMT_* */
	const hm_jv *schema; /* FMT_SCHEMA's */
	const char *fmt_name;
	hm_error *err;
} greq;

static hm_status
fail(greq *q, const char *fmt, const char *arg)
{
	if (q->err) {
		snprintf(q->err->msg, sizeof q->err->msg, fmt, arg ? arg : "");
		q->err->line = 0;
	}
	return HM_EINPUT;
}

static hm_status
add_tool(greq *q, const char *ns, const hm_tool *t, int builtin)
{
	gtool *g;
	size_t n = strlen(ns) + (t ? 1 + t->name.len : 0);

	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 16;
		gtool *nt = realloc(q->t, ncap * sizeof *nt);

		if (!nt)
			return HM_ENOMEM;
		q->t = nt;
		q->cap = ncap;
	}
	g = &q->t[q->n];
	memset(g, 0, sizeof *g);
	if (!(g->recipient = malloc(n + 1)))
		return HM_ENOMEM;
	q->n++;
	strcpy(g->recipient, ns);
	if (t) {
		strcat(g->recipient, ".");
		memcpy(g->recipient + strlen(ns) + 1, t->name.p, t->name.len);
		g->recipient[n] = '\0';
		g->params = t->parameters;
	}
	g->builtin = builtin;
	g->code = builtin && !t; /* a namespace without tools (python) takes code */
	g->allowed = 1;
	return HM_OK;
}

static hm_status
add_tools(greq *q, const hm_tools *ts, int builtin)
{
	size_t i, j;
	hm_status st;

	for (i = 0; i < ts->n; i++) {
		const hm_namespace *ns = &ts->ns[i];
		const char *name = ns->name.p ? ns->name.p : ns->key.p ? ns->key.p : "functions";

		if (!ns->ntools && builtin && (st = add_tool(q, name, NULL, 1)) != HM_OK)
			return st;
		for (j = 0; j < ns->ntools; j++)
			if ((st = add_tool(q, name, &ns->tools[j], builtin)) != HM_OK)
				return st;
	}
	return HM_OK;
}

/* Whether tool t is the one named n (a function's name, or a whole recipient). */
static int
names(const gtool *t, const char *n, size_t len)
{
	size_t rl = strlen(t->recipient);

	if (rl == len && !memcmp(t->recipient, n, len))
		return 1;
	return !t->builtin && rl > 10 && !strncmp(t->recipient, "functions.", 10) &&
	    rl - 10 == len && !memcmp(t->recipient + 10, n, len);
}

/* A hosted tool type (Responses, xgrammar) as the builtin namespace it is. */
static const char *
hosted_ns(const char *type)
{
	if (!strncmp(type, "web_search", 10))
		return "browser";
	if (!strcmp(type, "code_interpreter"))
		return "python";
	return NULL;
}

/* Allow the tools one reference names ({type:function, ...} or a hosted type); 0 when none. */
static int
allow_ref(greq *q, const hm_jv *ref)
{
	const hm_jv *ty = hm__jv_get(ref, "type"), *nm;
	const char *ns;
	size_t i;
	int hit = 0;

	if (ty && ty->type == HM_JV_STRING && strcmp(ty->s, "function") && strcmp(ty->s, "tool")) {
		if (!(ns = hosted_ns(ty->s)))
			return 0;
		for (i = 0; i < q->n; i++)
			if (q->t[i].builtin && !strncmp(q->t[i].recipient, ns, strlen(ns)) &&
			    (q->t[i].recipient[strlen(ns)] == '.' || !q->t[i].recipient[strlen(ns)]))
				q->t[i].allowed = hit = 1;
		return hit;
	}
	nm = hm__jv_get(hm__jv_get(ref, "function"), "name");
	if (!nm)
		nm = hm__jv_get(ref, "name");
	if (!nm || nm->type != HM_JV_STRING)
		return 0;
	for (i = 0; i < q->n; i++)
		if (names(&q->t[i], nm->s, nm->len))
			q->t[i].allowed = hit = 1;
	return hit;
}

static void
allow_none(greq *q)
{
	size_t i;

	for (i = 0; i < q->n; i++)
		q->t[i].allowed = 0;
}

static hm_status
tool_choice(greq *q, const hm_jv *tc)
{
	const hm_jv *ty, *at, *list, *mode;
	size_t i;

	q->mode = TC_AUTO;
	q->mode_why = "auto";
	if (!tc || tc->type == HM_JV_NULL)
		return HM_OK;
	if (tc->type == HM_JV_STRING) {
		if (!strcmp(tc->s, "auto"))
			return HM_OK;
		if (!strcmp(tc->s, "none")) {
			q->mode = TC_NONE;
			q->mode_why = "none";
			return HM_OK;
		}
		if (!strcmp(tc->s, "required") || !strcmp(tc->s, "any")) {
			q->mode = TC_REQUIRED;
			q->mode_why = "required";
			return HM_OK;
		}
		return fail(q, "tool_choice: '%s' is not auto, none or required", tc->s);
	}
	if (tc->type != HM_JV_OBJECT || !(ty = hm__jv_get(tc, "type")) || ty->type != HM_JV_STRING)
		return fail(q, "tool_choice: must be a string or an object with a `type`%s", NULL);
	if (!strcmp(ty->s, "auto"))
		return HM_OK;
	if (!strcmp(ty->s, "none")) {
		q->mode = TC_NONE;
		q->mode_why = "none";
		return HM_OK;
	}
	if (!strcmp(ty->s, "any") || !strcmp(ty->s, "required")) {
		q->mode = TC_REQUIRED;
		q->mode_why = "required (any)";
		return HM_OK;
	}
	if (!strcmp(ty->s, "allowed_tools")) {
		/* Chat nests it in allowed_tools; Responses has it in place. */
		at = hm__jv_get(tc, "allowed_tools");
		if (!at)
			at = tc;
		mode = hm__jv_get(at, "mode");
		list = hm__jv_get(at, "tools");
		if (!list || list->type != HM_JV_ARRAY)
			return fail(q, "tool_choice: allowed_tools needs a list of `tools`%s", NULL);
		allow_none(q);
		for (i = 0; i < list->n; i++)
			if (!allow_ref(q, list->v[i])) {
				const hm_jv *nm = hm__jv_get(hm__jv_get(list->v[i], "function"), "name");

				if (!nm)
					nm = hm__jv_get(list->v[i], "name");
				if (!nm)
					nm = hm__jv_get(list->v[i], "type");
				return fail(q, "tool_choice: allowed tool '%s' is not among the request's tools",
				    nm && nm->type == HM_JV_STRING ? nm->s : "?");
			}
		if (mode && mode->type == HM_JV_STRING && !strcmp(mode->s, "required")) {
			q->mode = TC_REQUIRED;
			q->mode_why = "allowed_tools, required";
		} else if (!mode || (mode->type == HM_JV_STRING && !strcmp(mode->s, "auto")))
			q->mode_why = "allowed_tools, auto";
		else
			return fail(q, "tool_choice: allowed_tools mode must be auto or required%s", NULL);
		return HM_OK;
	}
	/* One tool by name: {type:function, function:{name}}, {type:function, name}, {type:tool, name}, a hosted type. */
	allow_none(q);
	if (!allow_ref(q, tc)) {
		const hm_jv *nm = hm__jv_get(hm__jv_get(tc, "function"), "name");

		if (!nm)
			nm = hm__jv_get(tc, "name");
		if (!nm && strcmp(ty->s, "function") && strcmp(ty->s, "tool") && !hosted_ns(ty->s))
			return fail(q, "tool_choice: unknown type '%s'", ty->s);
		return fail(q, "tool_choice: tool '%s' is not among the request's tools",
		    nm && nm->type == HM_JV_STRING ? nm->s : ty->s);
	}
	q->mode = TC_REQUIRED;
	q->mode_why = "one named tool";
	return HM_OK;
}

/* The request's own switch for reasoning: Anthropic's thinking disabled, or channels without analysis. */
static int
analysis_allowed(const hm_conversation *c, const hm_jv *top)
{
	const hm_jv *th = hm__jv_get(top, "thinking");
	size_t i, j, k;

	if (th && th->type == HM_JV_OBJECT && hm__jv_get(th, "type") &&
	    hm__jv_get(th, "type")->type == HM_JV_STRING && !strcmp(hm__jv_get(th, "type")->s, "disabled"))
		return 0;
	for (i = 0; i < c->n; i++)
		for (j = 0; j < c->msgs[i].ncontent; j++) {
			const hm_system_content *s = c->msgs[i].content[j].sys;

			if (c->msgs[i].content[j].type != HM_CONTENT_SYSTEM || !s || !s->has_channels)
				continue;
			for (k = 0; k < s->nchannels; k++)
				if (s->channels[k].p && !strcmp(s->channels[k].p, "analysis"))
					return 1;
			return 0;
		}
	return 1;
}

static int
json_object_format(const hm_jv *top)
{
	const hm_jv *f = hm__jv_get(top, "response_format"), *ty;

	if (!f)
		f = hm__jv_get(hm__jv_get(top, "text"), "format");
	ty = hm__jv_get(f, "type");
	return ty && ty->type == HM_JV_STRING && !strcmp(ty->s, "json_object");
}

/* ---------------------------------------------------------------- the EBNF family */

static void
alt(hm_gw *g, hm_buf *b, int *first)
{
	if (!*first)
		hm__adds(&g->nomem, b, "| ");
	*first = 0;
}

static void
comment(hm_gw *g, const char *fmt, const char *a, const char *b2)
{
	char line[512];

	snprintf(line, sizeof line, fmt, a ? a : "", b2 ? b2 : "");
	hm__adds(&g->nomem, &g->rules, g->form == HM_GRAMMAR_LARK ? "// " : "# ");
	hm__adds(&g->nomem, &g->rules, line);
	hm__putc(&g->nomem, &g->rules, '\n');
}

static int
tails_have_calls(const greq *q)
{
	size_t i;

	if (q->mode == TC_NONE)
		return 0;
	for (i = 0; i < q->n; i++)
		if (q->t[i].allowed)
			return 1;
	return 0;
}

static hm_status
call_rule(hm_gw *g, const greq *q, const gtool *t, const hm_jv *doc, unsigned *id)
{
	hm_buf b = {0}, r = {0};
	unsigned args = 0;
	hm_status st = HM_OK;

	(void)q;
	if (!t->code && (st = hm__gw_schema(g, doc, t->params, &args)) != HM_OK)
		return st;
	*id = g->next++;
	hm__gw_rule_begin_id(g, &b, *id);
	hm__adds(&g->nomem, &r, " to=");
	hm__adds(&g->nomem, &r, t->recipient);
	/* channel first, as the models write it */
	hm__adds(&g->nomem, &b, "(");
	hm__gw_special(g, &b, "<|channel|>");
	if (t->builtin)
		hm__adds(&g->nomem, &b, "(\"analysis\" | \"commentary\") ");
	else
		hm__gw_lit(g, &b, "commentary", 10);
	if (r.p)
		hm__gw_lit(g, &b, r.p, r.len);
	/* recipient first, as the reference renders it */
	hm__adds(&g->nomem, &b, "| ");
	if (r.p)
		hm__gw_lit(g, &b, r.p, r.len);
	hm__gw_special(g, &b, "<|channel|>");
	if (t->builtin)
		hm__adds(&g->nomem, &b, "(\"analysis\" | \"commentary\") ");
	else
		hm__gw_lit(g, &b, "commentary", 10);
	hm__adds(&g->nomem, &b, ") ");
	if (t->builtin)
		hm__adds(&g->nomem, &b, "\" code\"? ");
	else {
		hm__gw_lit(g, &b, " ", 1);
		hm__gw_special(g, &b, "<|constrain|>");
		hm__gw_lit(g, &b, "json", 4);
	}
	hm__gw_special(g, &b, "<|message|>");
	if (t->code)
		hm__adds(&g->nomem, &b, hm__gw_shared(g, HM_GR_TEXT));
	else
		hm__gw_ref(g, &b, args);
	while (b.len && b.p[b.len - 1] == ' ')
		b.p[--b.len] = '\0';
	hm__putc(&g->nomem, &b, '\n');
	if (b.p)
		hm__add(&g->nomem, &g->rules, b.p, b.len);
	hm_buf_free(&b);
	hm_buf_free(&r);
	return g->nomem ? HM_ENOMEM : st;
}

static void
header(hm_gw *g, const greq *q, const char *form)
{
	size_t i, n = 0, all = q->n;
	char buf[160];

	for (i = 0; i < q->n; i++)
		n += q->t[i].allowed && q->mode != TC_NONE;
	comment(g, "harmony-tools grammar (%s): the completion after <|start|>assistant", form, NULL);
	snprintf(buf, sizeof buf, "%zu of %zu tools callable", n, all);
	comment(g, "tool_choice: %s; %s", q->mode_why, buf);
	comment(g, "analysis: %s; final answer: %s", q->analysis ? "allowed" : "left out",
	    q->mode == TC_REQUIRED ? "none (a call is required)" :
	    q->fmt == FMT_SCHEMA ? "the response format's schema" :
	    q->fmt == FMT_OBJECT ? "a JSON object" : "text");
	comment(g, "stop tokens: <|return|> 200002 and <|call|> 200012, given to the engine as ids%s%s", "",
	    " (the grammar ends before them)");
}

static void
notes(hm_gw *g)
{
	static const struct { unsigned bit; const char *what; } nn[] = {
		{HM_GN_UNIQUE, "uniqueItems"}, {HM_GN_MULTIPLE, "multipleOf"},
		{HM_GN_BOUNDS, "numeric bounds other than the sign, or a length beside a pattern"},
		/*
		 * a schema without $schema is 2020-12's, where format only
		 * annotates: the check after must be asked to assert it (the
		 * tools' words for that are theirs: harmony-tools(1))
		 */
		{HM_GN_FORMAT, "format (2020-12 only annotates it: have the check assert formats)"},
		{HM_GN_NOT, "not, if/then/else"},
		{HM_GN_ALLOF, "allOf of several schemas (any value)"},
		{HM_GN_PATTERN, "a pattern the rules cannot write (any string)"},
		{HM_GN_PROPS, "patternProperties, propertyNames, min/maxProperties, dependencies"},
		{HM_GN_CONTAINS, "contains"}, {HM_GN_ONEOF, "oneOf's exactly-one (held as anyOf)"},
		{HM_GN_REF, "a $ref outside the document, or nesting past 64 (any value)"},
	};
	hm_buf b = {0};
	size_t i;

	for (i = 0; i < sizeof nn / sizeof nn[0]; i++)
		if (g->notes & nn[i].bit) {
			if (b.len)
				hm__adds(&g->nomem, &b, "; ");
			hm__adds(&g->nomem, &b, nn[i].what);
		}
	if (g->notes & HM_GN_ORDER)
		comment(g, "object properties are written in the order their schema declares them%s", "", NULL);
	if (g->notes & HM_GN_EXTRA)
		comment(g, "properties a schema does not declare are written only where additionalProperties is true or a schema%s", "", NULL);
	if (g->notes & HM_GN_PATTERNS)
		comment(g, "patterns: a class or . never matches a quote, backslash or control character%s", "", NULL);
	if (b.p)
		comment(g, "not held by the grammar (check the output against the schema after): %s", b.p, NULL);
	hm_buf_free(&b);
}

static hm_status
write_rules(greq *q, hm_grammar_form form, const hm_conversation *c, hm_buf *out, int *nomem)
{
	hm_gw g;
	hm_buf root = {0}, tail = {0};
	unsigned *ids = NULL, fid = 0;
	size_t i;
	int calls = tails_have_calls(q), first = 1, leads;
	hm_status st = HM_OK;
	const hm_jv *doc = NULL;
	static const char *const fname[] = {"structural tag", "xgrammar EBNF", "llama.cpp GBNF", "llguidance Lark"};

	(void)c;
	memset(&g, 0, sizeof g);
	g.form = form;
	/* the shared rules and tools come after the header: written into their own buffer */
	if (q->n && !(ids = calloc(q->n, sizeof *ids)))
		return HM_ENOMEM;
	for (i = 0; i < q->n && st == HM_OK; i++)
		if (calls && q->t[i].allowed) {
			doc = q->t[i].params;
			st = call_rule(&g, q, &q->t[i], doc, &ids[i]);
		}
	if (st == HM_OK && q->mode != TC_REQUIRED && q->fmt == FMT_SCHEMA)
		st = hm__gw_schema(&g, q->schema, q->schema, &fid);
	if (st != HM_OK)
		goto out;
	leads = q->analysis || calls;
	hm__gw_rule_begin(&g, &root, "root");
	if (leads)
		hm__adds(&g.nomem, &root, "lead* ");
	hm__adds(&g.nomem, &root, "tail\n");
	if (leads) {
		int lf = 1;

		hm__gw_rule_begin(&g, &root, "lead");
		hm__adds(&g.nomem, &root, "(");
		if (q->analysis) {
			hm__gw_special(&g, &root, "<|channel|>");
			hm__gw_lit(&g, &root, "analysis", 8);
			lf = 0;
		}
		if (calls) {
			if (!lf)
				hm__adds(&g.nomem, &root, "| ");
			hm__gw_special(&g, &root, "<|channel|>");
			hm__gw_lit(&g, &root, "commentary", 10);
		}
		hm__adds(&g.nomem, &root, ") ");
		hm__gw_special(&g, &root, "<|message|>");
		hm__adds(&g.nomem, &root, hm__gw_shared(&g, HM_GR_TEXT));
		hm__putc(&g.nomem, &root, ' ');
		hm__gw_special(&g, &root, "<|end|>");
		hm__gw_special(&g, &root, "<|start|>");
		hm__gw_lit(&g, &root, "assistant", 9);
		while (root.len && root.p[root.len - 1] == ' ')
			root.p[--root.len] = '\0';
		hm__putc(&g.nomem, &root, '\n');
	}
	hm__gw_rule_begin(&g, &tail, "tail");
	if (q->mode != TC_REQUIRED) {
		alt(&g, &tail, &first);
		hm__gw_special(&g, &tail, "<|channel|>");
		hm__gw_lit(&g, &tail, "final", 5);
		hm__gw_special(&g, &tail, "<|message|>");
		if (q->fmt == FMT_SCHEMA) {
			hm__adds(&g.nomem, &tail, hm__gw_shared(&g, HM_GR_WS));
			hm__putc(&g.nomem, &tail, ' ');
			hm__gw_ref(&g, &tail, fid);
		} else if (q->fmt == FMT_OBJECT) {
			hm__gw_shared(&g, HM_GR_VAL);
			hm__adds(&g.nomem, &tail, "ws jobj ");
		} else
			hm__adds(&g.nomem, &tail, hm__gw_shared(&g, HM_GR_TEXT));
		hm__putc(&g.nomem, &tail, ' ');
	}
	for (i = 0; i < q->n; i++)
		if (calls && q->t[i].allowed) {
			alt(&g, &tail, &first);
			hm__gw_ref(&g, &tail, ids[i]);
		}
	while (tail.len && tail.p[tail.len - 1] == ' ')
		tail.p[--tail.len] = '\0';
	hm__putc(&g.nomem, &tail, '\n');
	{
		hm_buf body = g.rules;

		memset(&g.rules, 0, sizeof g.rules);
		header(&g, q, fname[form]);
		notes(&g);
		if (root.p)
			hm__add(&g.nomem, &g.rules, root.p, root.len);
		if (tail.p)
			hm__add(&g.nomem, &g.rules, tail.p, tail.len);
		if (body.p)
			hm__add(&g.nomem, &g.rules, body.p, body.len);
		hm_buf_free(&body);
	}
	if (g.rules.p)
		hm__add(nomem, out, g.rules.p, g.rules.len);
	if (g.nomem)
		st = HM_ENOMEM;
out:
	hm_buf_free(&root);
	hm_buf_free(&tail);
	free(ids);
	hm__gw_free(&g);
	return st;
}

/* ---------------------------------------------------------------- xgrammar's structural tag */

static void
st_str(int *nomem, hm_buf *b, const char *s)
{
	hm__json_str(nomem, b, s, strlen(s));
}

/* {"type":"tag","begin":BEGIN,"content":{"type":"json_schema","json_schema":S},"end":""} */
static void
st_tag(int *nomem, hm_buf *b, const char *begin, const hm_jv *schema, const char *dflt)
{
	hm__adds(nomem, b, "{\"type\":\"tag\",\"begin\":");
	st_str(nomem, b, begin);
	hm__adds(nomem, b, ",\"content\":{\"type\":\"json_schema\",\"json_schema\":");
	if (schema)
		hm__jv_write_to(nomem, b, schema);
	else
		hm__adds(nomem, b, dflt);
	hm__adds(nomem, b, "},\"end\":\"\"}");
}

/* {"type":"grammar","grammar":EBNF}: root ::= PREFIX t, with t the text rule. */
static void
st_grammar(int *nomem, hm_buf *b, const char *root_body)
{
	hm_gw g;
	hm_buf e = {0};

	memset(&g, 0, sizeof g);
	g.form = HM_GRAMMAR_EBNF;
	hm__gw_rule_begin(&g, &e, "root");
	hm__adds(&g.nomem, &e, root_body);
	hm__putc(&g.nomem, &e, '\n');
	hm__gw_shared(&g, HM_GR_TEXT);
	if (g.rules.p)
		hm__add(&g.nomem, &e, g.rules.p, g.rules.len);
	if (g.nomem)
		*nomem = 1;
	hm__adds(nomem, b, "{\"type\":\"grammar\",\"grammar\":");
	if (e.p)
		hm__json_str(nomem, b, e.p, e.len);
	hm__adds(nomem, b, "}");
	hm_buf_free(&e);
	hm__gw_free(&g);
}

static void
st_sep(int *nomem, hm_buf *b, int *first)
{
	if (!*first)
		hm__putc(nomem, b, ',');
	*first = 0;
}

static hm_status
write_structural_tag(greq *q, hm_buf *out, int *nomem)
{
	hm_buf tails = {0}, s = {0};
	int calls = tails_have_calls(q), first = 1, ntails = 0;
	size_t i;

	if (q->mode != TC_REQUIRED) {
		st_sep(nomem, &tails, &first);
		ntails++;
		if (q->fmt == FMT_SCHEMA)
			st_tag(nomem, &tails, "<|channel|>final<|message|>", q->schema, NULL);
		else if (q->fmt == FMT_OBJECT)
			st_tag(nomem, &tails, "<|channel|>final<|message|>", NULL, "{\"type\":\"object\"}");
		else
			st_grammar(nomem, &tails, "\"<|channel|>final<|message|>\" t");
	}
	for (i = 0; calls && i < q->n; i++) {
		const gtool *t = &q->t[i];
		hm_buf b = {0};

		if (!t->allowed)
			continue;
		if (t->code) {
			/* code is text: a grammar element */
			hm_gw e;
			hm_buf to = {0};

			/* the recipient as an EBNF literal, escaped */
			memset(&e, 0, sizeof e);
			e.form = HM_GRAMMAR_EBNF;
			hm__adds(&e.nomem, &to, " to=");
			hm__adds(&e.nomem, &to, t->recipient);
			hm__adds(nomem, &b, "(\"<|channel|>\" (\"analysis\" | \"commentary\") ");
			if (to.p)
				hm__gw_lit(&e, &b, to.p, to.len);
			hm__adds(nomem, &b, "| ");
			if (to.p)
				hm__gw_lit(&e, &b, to.p, to.len);
			hm__adds(nomem, &b, "\"<|channel|>\" (\"analysis\" | \"commentary\")) \" code\"? \"<|message|>\" t");
			if (e.nomem)
				*nomem = 1;
			hm_buf_free(&to);
			hm__gw_free(&e);
			st_sep(nomem, &tails, &first);
			ntails++;
			if (b.p)
				st_grammar(nomem, &tails, b.p);
		} else if (t->builtin) {
			static const char *const fmt[] = {
			    "<|channel|>analysis to=%s code<|message|>", "<|channel|>analysis to=%s<|message|>",
			    " to=%s<|channel|>analysis code<|message|>", " to=%s<|channel|>analysis<|message|>"};
			size_t k;

			for (k = 0; k < 4; k++) {
				char begin[400];

				snprintf(begin, sizeof begin, fmt[k], t->recipient);
				st_sep(nomem, &tails, &first);
				ntails++;
				st_tag(nomem, &tails, begin, t->params, "{\"type\":\"object\"}");
			}
		} else {
			char *begin = malloc(strlen(t->recipient) + 80);

			if (!begin) {
				*nomem = 1;
				break;
			}
			sprintf(begin, "<|channel|>commentary to=%s <|constrain|>json<|message|>", t->recipient);
			st_sep(nomem, &tails, &first);
			st_tag(nomem, &tails, begin, t->params, "{\"type\":\"object\"}");
			sprintf(begin, " to=%s<|channel|>commentary <|constrain|>json<|message|>", t->recipient);
			st_sep(nomem, &tails, &first);
			st_tag(nomem, &tails, begin, t->params, "{\"type\":\"object\"}");
			ntails += 2;
			free(begin);
		}
		hm_buf_free(&b);
	}
	hm__adds(nomem, &s, "{\"type\":\"structural_tag\",\"format\":");
	if (q->analysis || calls) {
		hm_buf lead = {0};

		hm__adds(nomem, &lead, "((");
		if (q->analysis)
			hm__adds(nomem, &lead, "\"<|channel|>analysis\"");
		if (calls)
			hm__adds(nomem, &lead, q->analysis ? " | \"<|channel|>commentary\"" :
			    "\"<|channel|>commentary\"");
		hm__adds(nomem, &lead, ") \"<|message|>\" t \"<|end|><|start|>assistant\")*");
		hm__adds(nomem, &s, "{\"type\":\"sequence\",\"elements\":[");
		if (lead.p)
			st_grammar(nomem, &s, lead.p);
		hm__putc(nomem, &s, ',');
		hm_buf_free(&lead);
	}
	if (ntails > 1)
		hm__adds(nomem, &s, "{\"type\":\"or\",\"elements\":[");
	if (tails.p)
		hm__add(nomem, &s, tails.p, tails.len);
	if (ntails > 1)
		hm__adds(nomem, &s, "]}");
	if (q->analysis || calls)
		hm__adds(nomem, &s, "]}");
	hm__adds(nomem, &s, "}\n");
	if (s.p)
		hm__add(nomem, out, s.p, s.len);
	hm_buf_free(&s);
	hm_buf_free(&tails);
	return *nomem ? HM_ENOMEM : HM_OK;
}

/* ---------------------------------------------------------------- the request */

static hm_status
read_request(greq *q, const hm_request *r, const hm_jv *top, const hm_grammar_opts *o)
{
	const hm_conversation *c = r->conv;
	hm_jv *tcv = NULL;
	const hm_jv *tc;
	size_t i, j;
	hm_status st = HM_OK;

	for (i = 0; i < c->n && st == HM_OK; i++)
		for (j = 0; j < c->msgs[i].ncontent && st == HM_OK; j++) {
			const hm_content *ct = &c->msgs[i].content[j];

			if (ct->type == HM_CONTENT_SYSTEM && ct->sys && ct->sys->tools.present)
				st = add_tools(q, &ct->sys->tools, 1);
			else if (ct->type == HM_CONTENT_DEVELOPER && ct->dev) {
				if (ct->dev->tools.present || ct->dev->tools.n)
					st = add_tools(q, &ct->dev->tools, 0);
				if (ct->dev->format_schema) {
					q->fmt = FMT_SCHEMA;
					q->schema = ct->dev->format_schema;
					q->fmt_name = ct->dev->format_name.p;
				}
			}
		}
	if (st != HM_OK)
		return st;
	if (q->fmt == FMT_TEXT && json_object_format(top))
		q->fmt = FMT_OBJECT;
	q->analysis = !o->no_analysis && analysis_allowed(c, top);
	tc = hm__jv_get(top, "tool_choice");
	if (o->tool_choice) {
		char msg[200];

		if (!(tcv = hm__jv_parse_ex(o->tool_choice, strlen(o->tool_choice), NULL, 1,
		    HM_JV_NODUP, msg, sizeof msg, NULL))) {
			if (!msg[0])
				return HM_ENOMEM;
			if (!strchr(o->tool_choice, '"') && !strchr(o->tool_choice, '{')) {
				/* a bare word: auto, none, required, any */
				if (!(tcv = hm__jv_str(o->tool_choice, strlen(o->tool_choice))))
					return HM_ENOMEM;
			} else
				return fail(q, "tool_choice: %s", msg);
		}
		tc = tcv;
	}
	st = tool_choice(q, tc);
	hm__jv_free(tcv);
	if (st != HM_OK)
		return st;
	if (q->mode == TC_REQUIRED && !tails_have_calls(q))
		return fail(q, "tool_choice: %s, but the request declares no tools",
		    q->mode_why);
	return HM_OK;
}

/* Past the JSON value at buf[i] (text the request reader has already accepted). */
static size_t
skip_value(const char *buf, size_t len, size_t i)
{
	size_t depth = 0;

	do {
		while (i < len && strchr(" \t\r\n,:", buf[i]))
			i++;
		if (i >= len)
			return len;
		if (buf[i] == '"') {
			for (i++; i < len && buf[i] != '"'; i++)
				if (buf[i] == '\\')
					i++;
			i++;
		} else if (buf[i] == '{' || buf[i] == '[') {
			depth++;
			i++;
		} else if (buf[i] == '}' || buf[i] == ']') {
			depth--;
			i++;
		} else
			while (i < len && !strchr(" \t\r\n,:]}", buf[i]))
				i++;
	} while (depth && i < len);
	return i;
}

/*
 * The request's members the conversation does not keep (tool_choice,
 * response_format and text for json_object, thinking) as an object of
 * their own: parsed alone, the rest of the request (its tools, its
 * messages) skipped, not read a second time.  NULL when the request is
 * not an object or has none of them.
 */
static hm_status
top_members(const char *buf, size_t len, hm_jv **out)
{
	static const char *const keys[] = {"tool_choice", "response_format", "text", "thinking"};
	size_t i = 0, k, kstart, kend;
	hm_jv *top = NULL, *v;
	char msg[8];

	*out = NULL;
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i >= len || buf[i] != '{')
		return HM_OK;
	i++;
	for (;;) {
		while (i < len && strchr(" \t\r\n,", buf[i]))
			i++;
		if (i >= len || buf[i] != '"')
			break;
		kstart = i + 1;
		i = skip_value(buf, len, i);
		kend = i - 1;
		while (i < len && strchr(" \t\r\n:", buf[i]))
			i++;
		for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
			if (kend - kstart == strlen(keys[k]) && !memcmp(buf + kstart, keys[k], kend - kstart))
				break;
		if (k == sizeof keys / sizeof keys[0]) {
			i = skip_value(buf, len, i);
			continue;
		}
		if (!top && !(top = hm__jv_new(HM_JV_OBJECT)))
			return HM_ENOMEM;
		if (hm__jv_read(buf, len, &i, 0, HM_JV_NODUP, &v, msg, sizeof msg, NULL) != HM_OK ||
		    hm__jv_set(top, keys[k], v) != HM_OK) {
			hm__jv_free(top);
			return HM_ENOMEM; /* the text was read once already: only memory can fail */
		}
	}
	*out = top;
	return HM_OK;
}

/*
 * The request reader's warnings, less the two that say a prompt cannot
 * enforce a format: the grammar is what enforces it.
 */
typedef struct warn_pass {
	hm_warn_fn *fn;
	void *ctx;
} warn_pass;

static void
warn_filter(void *ctx, size_t line, const char *msg)
{
	const warn_pass *w = ctx;

	if (strstr(msg, "is not enforced by a prompt") || strstr(msg, "json_object is not rendered"))
		return;
	w->fn(w->ctx, line, msg);
}

hm_status
hm_grammar_from_request(const char *buf, size_t len, const hm_grammar_opts *given,
                        char **out, size_t *outlen, hm_error *err)
{
	hm_grammar_opts o = HM_GRAMMAR_OPTS_INIT;
	hm_request_opts ro = HM_REQUEST_OPTS_INIT;
	warn_pass wp;
	hm_request r;
	hm_jv *top = NULL;
	greq q;
	hm_buf b = {0};
	hm_status st;
	size_t i;
	int nomem = 0;

	*out = NULL;
	if (outlen)
		*outlen = 0;
	if (err)
		memset(err, 0, sizeof *err);
	if (hm__opts_take(&o, sizeof o, given, err) != HM_OK)
		return HM_EINPUT;
	if (o.form < HM_GRAMMAR_STRUCTURAL_TAG || o.form > HM_GRAMMAR_LARK) {
		hm__seterr(err, "unknown grammar form %d", (int)o.form);
		return HM_EINPUT;
	}
	ro.browser = o.browser;
	ro.python = o.python;
	wp.fn = o.warn;
	wp.ctx = o.warn_ctx;
	ro.warn = o.warn ? warn_filter : NULL;
	ro.warn_ctx = &wp;
	if ((st = hm_request_from_json(buf, len, o.from, &ro, &r, err)) != HM_OK)
		return st;
	if (r.dialect != HM_DIALECT_HARMONY && (st = top_members(buf, len, &top)) != HM_OK) {
		hm_request_free(&r);
		return st;
	}
	memset(&q, 0, sizeof q);
	q.err = err;
	st = read_request(&q, &r, top, &o);
	if (st == HM_OK) {
		if (o.form == HM_GRAMMAR_STRUCTURAL_TAG)
			st = write_structural_tag(&q, &b, &nomem);
		else
			st = write_rules(&q, o.form, r.conv, &b, &nomem);
	}
	if (st == HM_OK && nomem)
		st = HM_ENOMEM;
	for (i = 0; i < q.n; i++)
		free(q.t[i].recipient);
	free(q.t);
	hm__jv_free(top);
	hm_request_free(&r);
	if (st != HM_OK) {
		hm_buf_free(&b);
		return st;
	}
	if (!b.p && !(b.p = calloc(1, 1)))
		return HM_ENOMEM;
	*out = b.p;
	if (outlen)
		*outlen = b.len;
	return HM_OK;
}

static const char *const form_names[] = {"structural-tag", "ebnf", "gbnf", "lark"};

const char *
hm_grammar_form_name(hm_grammar_form v)
{
	return v >= HM_GRAMMAR_STRUCTURAL_TAG && v <= HM_GRAMMAR_LARK ? form_names[v] : "?";
}

hm_grammar_form
hm_grammar_form_from_name(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof form_names / sizeof form_names[0]; i++)
		if (!strcmp(name, form_names[i]))
			return (hm_grammar_form)i;
	return HM_GRAMMAR_UNKNOWN;
}
