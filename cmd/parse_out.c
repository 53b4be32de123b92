/*
 * parse_out.c - harmony-parse's record side: each record (or the one
 * stream) through a parser into the writer and out to stdout, the places
 * warnings name, the warnings themselves and their summary, error lines
 * in the place of bad records.  The input side (parse_input.c,
 * parse_plain.c) calls into it; it calls nothing of theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/*
 * --strict gives the reference's result: nothing for a stream it rejects.
 * So a record's output waits for its end, except events, which are the
 * parser's trace up to its error.
 */
int
holds_record(struct parse_ctx *c)
{
	return c->opt.strict && c->opt.to != HM_TO_EVENTS;
}

int
streaming_shape(struct parse_ctx *c)
{
	return c->opt.to == HM_TO_EVENTS || c->opt.to == HM_TO_CHAT_STREAM ||
	    c->opt.to == HM_TO_RESPONSES_STREAM || c->opt.to == HM_TO_TEXT ||
	    c->opt.to == HM_TO_MESSAGES || c->opt.to == HM_TO_ANTHROPIC_STREAM ||
	    c->opt.to == HM_TO_ANSWER;
}

/*
 * Write what the writer has (indented by it with --pretty) to stdout, or
 * drop it (keep 0).  Returns the bytes written.
 */
static size_t
put_out(struct parse_ctx *c, int keep)
{
	size_t n;
	const char *s = hm_writer_output(c->wr, &n);

	if (!s)
		cli_oom();
	if (!keep)
		n = 0;
	if (n)
		cli_write(s, n);
	hm_writer_consume(c->wr);
	return n;
}

void
write_out(struct parse_ctx *c, int flush)
{
	/* --summary: the records' lines are not shown, only the summary. */
	if (put_out(c,
	    !(c->opt.summary && c->opt.to == HM_TO_STATS && !c->flush_summary)) && flush)
		cli_flush();
}

/*
 * The writer's flush function (hm_writer_set_flush_fn): a long text it
 * writes goes out in slices, so that a shape holding a completion holds
 * its text once, not again escaped in the output.  Only where the output
 * would go out after the event anyway: never while the record may yet be
 * dropped (--strict holds it; a failed record of a log becomes its error
 * line), and in a log or a whole shape only at the record's end, where
 * nothing can fail it any more.
 */
void
flush_some(void *arg, hm_writer *w)
{
	struct parse_ctx *c = arg;

	(void)w;
	if (holds_record(c) || c->rec.failed)
		return;
	if (c->rec.at_done || (!(c->wflags & HM_WRITER_RECORDS) && streaming_shape(c)))
		write_out(c, 0);
}

/*
 * Where the input came from: from position `at` (a token index, or a byte
 * offset for text) on, it was read at file:line.  A warning names the
 * place of the token it is about; marks before what the parser may still
 * name are forgotten, so this stays small.
 */

void
mark_add(struct parse_ctx *c, uint64_t at, const char *file, size_t line)
{
	if (c->mk.len > c->mk.head && c->mk.v[c->mk.len - 1].at == at) {
		c->mk.v[c->mk.len - 1].file = file;
		c->mk.v[c->mk.len - 1].line = line;
		return;
	}
	if (c->mk.len == c->mk.cap && c->mk.head) {
		memmove(c->mk.v, c->mk.v + c->mk.head,
		    (c->mk.len - c->mk.head) * sizeof *c->mk.v);
		c->mk.len -= c->mk.head;
		c->mk.head = 0;
	}
	if (c->mk.len == c->mk.cap) {
		size_t cap = c->mk.cap ? c->mk.cap * 2 : 64;
		struct parse_mark *v = realloc(c->mk.v, cap * sizeof *v);

		if (!v)
			cli_oom();
		c->mk.v = v;
		c->mk.cap = cap;
	}
	c->mk.v[c->mk.len].at = at;
	c->mk.v[c->mk.len].file = file;
	c->mk.v[c->mk.len++].line = line;
}

static void
mark_reset(struct parse_ctx *c, const char *file, size_t line)
{
	c->mk.head = c->mk.len = 0;
	mark_add(c, 0, file, line);
}

/* The mark in force at position at. */
static const struct parse_mark *
mark_find(struct parse_ctx *c, uint64_t at)
{
	size_t lo = c->mk.head, hi = c->mk.len;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->mk.v[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return &c->mk.v[lo];
}

/* The input ends at position end: an event there is about the last token read. */
static void
mark_trim(struct parse_ctx *c, uint64_t end)
{
	while (c->mk.len > c->mk.head + 1 && c->mk.v[c->mk.len - 1].at >= end && end > 0)
		c->mk.len--;
}

static void
mark_prune(struct parse_ctx *c, uint64_t oldest)
{
	while (c->mk.head + 1 < c->mk.len && c->mk.v[c->mk.head + 1].at < oldest)
		c->mk.head++;
}

static const char *
where(struct parse_ctx *c, uint64_t at)
{
	snprintf(c->where, sizeof c->where, "%s %llu",
	    (c->wflags & HM_WRITER_TEXT_INPUT) ? "byte" : "token",
	    (unsigned long long)at);
	return c->where;
}

enum { OUT_CHUNK = 1 << 16, WARN_FIRST = 10 };


/*
 * Warnings: all of them, or (--warnings=summary, the default) the first
 * WARN_FIRST with their record's id, then at the end a count per failure
 * mode.
 */

static int
warn_mode(struct parse_ctx *c)
{
	if (c->opt.quiet)
		return W_NONE;
	if (c->opt.warnings != W_DEFAULT)
		return c->opt.warnings;
	return W_SUMMARY;
}

static void
warning(struct parse_ctx *c, const hm_event *ev)
{
	const struct parse_mark *m = mark_find(c, ev->at);
	int mode = warn_mode(c),
	    code = ev->code >= 0 && ev->code < HM_F_CODES ? ev->code : 0;

	if (mode == W_NONE)
		return;
	c->wn.by[code]++;
	if (!c->wn.first[code]) {
		if (!(c->wn.first[code] = malloc(ev->text.len + 1)))
			cli_oom();
		memcpy(c->wn.first[code], ev->text.p, ev->text.len);
		c->wn.first[code][ev->text.len] = '\0';
	}
	if (mode == W_SUMMARY && c->wn.shown >= WARN_FIRST) {
		c->wn.hidden++;
		return;
	}
	c->wn.shown++;
	if (mode == W_SUMMARY && c->rec.id)
		cli_warn(m->file, m->line, "%s: %.*s (F%d) in record %s",
		    where(c, ev->at),
		    (int)ev->text.len, ev->text.p, ev->code, c->rec.id);
	else
		cli_warn(m->file, m->line, "%s: %.*s (F%d)", where(c, ev->at),
		    (int)ev->text.len, ev->text.p, ev->code);
}

/* A warning of the writer's (no failure mode of the parser): counted alike. */
static void
writer_warning(struct parse_ctx *c, const char *msg, uint64_t at)
{
	const struct parse_mark *m = mark_find(c, at);
	int mode = warn_mode(c);

	if (mode == W_NONE)
		return;
	if (mode == W_SUMMARY && c->wn.shown >= WARN_FIRST) {
		c->wn.hidden++;
		return;
	}
	c->wn.shown++;
	if (mode == W_SUMMARY && c->rec.id)
		cli_warn(m->file, m->line, "%s: %s in record %s", where(c, at), msg,
		    c->rec.id);
	else
		cli_warn(m->file, m->line, "%s: %s", where(c, at), msg);
}

/*
 * A record that gives a carried member twice: a warning of the input's,
 * no failure mode of the parser, so it has a cap of its own (the first
 * WARN_FIRST, then a count at the end) and leaves the F-codes' alone: a
 * log whose every record repeats a member still shows its parse warnings.
 */
void
dup_warning(struct parse_ctx *c, const char *file, size_t line, const char *name, size_t n)
{
	int mode = warn_mode(c);

	if (mode == W_NONE)
		return;
	if (mode == W_SUMMARY && c->wn.dup_shown >= WARN_FIRST) {
		c->wn.dup_hidden++;
		return;
	}
	c->wn.dup_shown++;
	cli_warn(file, line, "duplicate key \"%.*s\" (each value carried as given: which "
	    "is meant cannot be told)", (int)(n > 64 ? 64 : n), name);
}

/* The end: what the warnings not shown were about. */
void
warn_summary(struct parse_ctx *c)
{
	int k;

	if (c->wn.dup_hidden)
		cli_warn(NULL, 0, "%llu more records with a duplicate key not shown "
		    "(--warnings=all shows them)", (unsigned long long)c->wn.dup_hidden);
	if (c->wn.hidden)
		cli_warn(NULL, 0, "%llu more warnings not shown (--warnings=all shows "
		    "them); by failure mode:", (unsigned long long)c->wn.hidden);
	for (k = 0; k < HM_F_CODES; k++) {
		if (c->wn.hidden && c->wn.by[k])
			cli_warn(NULL, 0, "F%d: %llu warnings (the first: %s)", k,
			    (unsigned long long)c->wn.by[k], c->wn.first[k]);
		free(c->wn.first[k]);
	}
}

/* Whether w occurs in the n bytes at p. */
static int
has_word(const char *p, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; p && i + k <= n; i++)
		if (!memcmp(p + i, w, k))
			return 1;
	return 0;
}

void
schema_load(struct parse_ctx *c)
{
	char *cargv[1], *buf = NULL;
	size_t len = 0, cap = 0;
	cli_input in;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_error e;
	hm_status st;

	cargv[0] = (char *)c->opt.schema;
	if (!cli_input_init(&in, cargv, 1))
		while (cli_input_next_file(&in))
			cli_read_all(&in, &buf, &len, &cap);
	cli_input_close(&in);
	if (in.failed)
		exit(cli_finish(CLI_IO));
	e.line = 0;
	o.dirs = c->opt.schema_dirs;
	o.strict = c->opt.schema_strict;
	if (c->opt.formats_given)
		o.formats = c->opt.formats;
	if ((st = hm_schema_from_format(buf ? buf : "", len, &o, &c->sc.s, &e)) == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK) {
		cli_error(c->opt.schema, e.line ? e.line : 1, "%s", e.msg);
		exit(cli_finish(CLI_BAD));
	}
	/*
	 * The grammar's header leaves format to this check, but a schema
	 * without $schema (2020-12) only annotates it: a second copy that
	 * asserts formats tells the answers that break one, and the summary
	 * says how to make the check assert them.
	 */
	if (!c->opt.formats_given && has_word(buf, len, "\"format\"")) {
		o.formats = 1;
		if (hm_schema_from_format(buf, len, &o, &c->sc.asserting, &e) == HM_ENOMEM)
			cli_oom();
	}
	free(buf);
}

void
schema_summary(struct parse_ctx *c)
{
	if (c->sc.s && !c->opt.quiet)
		cli_warn(NULL, 0, "--schema: %llu valid, %llu invalid, %llu missing structured answers",
		    (unsigned long long)c->sc.valid, (unsigned long long)c->sc.invalid,
		    (unsigned long long)c->sc.missing);
	if (c->sc.format_only && !c->opt.quiet)
		cli_warn(NULL, 0, "--schema: %llu of the valid answers break a format, which their schema's "
		    "draft only annotates (2019-09, 2020-12, the draft without $schema); "
		    "--formats=assert asserts formats", (unsigned long long)c->sc.format_only);
	hm_schema_free(c->sc.s);
	hm_schema_free(c->sc.asserting);
	hm_buf_free(&c->sc.answer);
}

/*
 * --schema: gather the completion's last final answer (an assistant message
 * on final to nobody), check it when the completion is done; each problem
 * is a warning naming its path and keyword.
 */
static void
schema_event(struct parse_ctx *c, const hm_event *ev)
{
	hm_schema_problem p;
	hm_error e;
	hm_status st;
	size_t i;

	switch (ev->type) {
	case HM_EV_START:
		c->sc.in = ev->role && !strcmp(ev->role, "assistant") && !ev->recipient.len &&
		    ev->channel.len == 5 && !memcmp(ev->channel.p, "final", 5);
		if (c->sc.in) {
			hm_buf_reset(&c->sc.answer);
			c->sc.seen = 1;
		}
		break;
	case HM_EV_DELTA:
		if (c->sc.in)
			hm_buf_add(&c->sc.answer, ev->text.p, ev->text.len);
		break;
	case HM_EV_END:
		c->sc.in = 0;
		break;
	case HM_EV_DONE:
		if (!c->sc.seen) {
			c->sc.missing++;
			hm_writer_count_answer(c->wr, 2);
			if (!c->opt.quiet)
				cli_warn(c->rec.file, c->rec.line, "--schema: no final answer to check");
			break;
		}
		if (c->sc.answer.oom)
			cli_oom();
		st = hm_schema_validate(c->sc.s, c->sc.answer.p ? c->sc.answer.p : "",
		    c->sc.answer.len, &e);
		if (st == HM_ENOMEM)
			cli_oom();
		if (st == HM_OK)
			c->sc.valid++;
		else
			c->sc.invalid++;
		if (st == HM_OK && c->sc.asserting) {
			hm_status fs = hm_schema_validate(c->sc.asserting, c->sc.answer.p ?
			    c->sc.answer.p : "", c->sc.answer.len, &e);

			if (fs == HM_ENOMEM)
				cli_oom();
			c->sc.format_only += fs != HM_OK;
		}
		hm_writer_count_answer(c->wr, st == HM_OK ? 0 : 1);
		if (c->opt.quiet)
			;
		else if (st == HM_EINPUT && !hm_schema_nproblems(c->sc.s))
			cli_warn(c->rec.file, c->rec.line, "--schema: the final answer is %s", e.msg);
		for (i = 0; !c->opt.quiet && hm_schema_problem_get(c->sc.s, i, &p); i++)
			cli_warn(c->rec.file, c->rec.line, "--schema: %s: %s: %s",
			    *p.path ? p.path : "(root)", p.keyword, p.message);
		c->sc.seen = c->sc.in = 0;
		hm_buf_reset(&c->sc.answer);
		break;
	default:
		break;
	}
}

void
tool_choice_load(struct parse_ctx *c)
{
	hm_error e;
	hm_status st;

	if (!c->opt.tool_choice || !strcmp(c->opt.tool_choice, "record"))
		return;
	st = hm_tool_choice_new(c->opt.tool_choice, strlen(c->opt.tool_choice), &c->tc.opt, &e);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		cli_usage_error("--tool-choice: %s", e.msg);
}

void
tool_choice_free(struct parse_ctx *c)
{
	hm_tool_choice_free(c->tc.opt);
	hm_tool_choice_free(c->tc.rec);
	hm_buf_free(&c->tc.why);
}

/* The first way this completion breaks the tool_choice (later ones add nothing). */
static void
breach(struct parse_ctx *c, const char *what, const hm_span *rcpt)
{
	if (c->tc.why.len)
		return;
	hm_buf_adds(&c->tc.why, what);
	if (rcpt)
		hm_buf_add(&c->tc.why, rcpt->p, rcpt->len);
	hm_buf_adds(&c->tc.why, " under tool_choice ");
	hm_buf_adds(&c->tc.why, hm_tool_choice_describe(c->tc.cur));
	if (c->tc.why.oom)
		cli_oom();
}

/*
 * --tool-choice: each call of the completion checked as it starts; at its
 * end (before DONE reaches the writer) one F23 warning for a completion
 * that broke it, which the writer counts as it counts the parser's.
 */
static void
tool_choice_event(struct parse_ctx *c, const hm_event *ev)
{
	hm_event w;

	if (ev->type == HM_EV_START && ev->role && !strcmp(ev->role, "assistant")) {
		if (ev->recipient.len) {
			c->tc.calls++;
			if (!hm_tool_choice_allows(c->tc.cur, ev->recipient.p, ev->recipient.len))
				breach(c, "a call to ", &ev->recipient);
		} else if (ev->channel.len == 5 && !memcmp(ev->channel.p, "final", 5))
			c->tc.answered = 1;
		return;
	}
	if (ev->type != HM_EV_DONE)
		return;
	if (!c->tc.calls && hm_tool_choice_requires(c->tc.cur))
		breach(c, c->tc.answered ? "a final answer and no call" : "no call", NULL);
	if (c->tc.why.len) {
		memset(&w, 0, sizeof w);
		w.type = HM_EV_WARNING;
		w.code = HM_F_TOOL_CHOICE;
		w.at = ev->at;
		w.text.p = c->tc.why.p;
		w.text.len = c->tc.why.len;
		warning(c, &w);
		if (hm_writer_event(c->wr, &w) != HM_OK)
			cli_oom();
	}
	c->tc.calls = 0;
	c->tc.answered = 0;
	hm_buf_reset(&c->tc.why);
}

void
drain(struct parse_ctx *c)
{
	hm_event ev;
	size_t pending;
	const char *msg;
	uint64_t at;

	while (hm_parser_next(c->rec.p, &ev)) {
		const struct parse_mark *m;

		if (ev.type == HM_EV_ERROR && ev.code == HM_ENOMEM)
			cli_oom();
		if (ev.type == HM_EV_WARNING)
			warning(c, &ev);
		else if (ev.type == HM_EV_ERROR) {
			m = mark_find(c, ev.at);
			cli_error(m->file, m->line, "%s: %.*s", where(c, ev.at),
			    (int)ev.text.len, ev.text.p);
			hm_buf_reset(&c->rec.err);
			hm_buf_add(&c->rec.err, ev.text.p, ev.text.len);
			c->rec.failed = 1;
			c->status = CLI_BAD;
		}
		if (c->sc.s)
			schema_event(c, &ev);
		if (c->tc.cur)
			tool_choice_event(c, &ev);
		c->rec.at_done = ev.type == HM_EV_DONE;
		if (hm_writer_event(c->wr, &ev) != HM_OK)
			cli_oom();
		c->rec.at_done = 0;
		if ((msg = hm_writer_warning(c->wr, &at)))
			writer_warning(c, msg, at);
		/* Output of a long feed goes out as it grows, not all at its end. */
		if (!(c->wflags & HM_WRITER_RECORDS) && streaming_shape(c) && !holds_record(c) &&
		    hm_writer_output(c->wr, &pending) && pending >= OUT_CHUNK)
			write_out(c, 0);
	}
	mark_prune(c, hm_parser_oldest(c->rec.p));
	if (!(c->wflags & HM_WRITER_RECORDS) && streaming_shape(c) && !holds_record(c))
		write_out(c, 1);
}

/* --tool-choice: the one this record is checked against (the record's own with "record"). */
static void
tool_choice_record(struct parse_ctx *c, const char *fields, const char *file, size_t line)
{
	hm_error e;
	hm_status st;

	c->tc.calls = 0;
	c->tc.answered = 0;
	hm_buf_reset(&c->tc.why);
	if (c->tc.opt) {
		c->tc.cur = c->tc.opt;
		return;
	}
	hm_tool_choice_free(c->tc.rec);
	c->tc.rec = NULL;
	st = hm_tool_choice_from_members(fields ? fields : "", fields ? strlen(fields) : 0,
	    &c->tc.rec, &e);
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK && !c->opt.quiet)
		cli_warn(file, line, "--tool-choice: not checked: %s", e.msg);
	c->tc.cur = c->tc.rec;
}

void
rec_begin(struct parse_ctx *c, const char *file, size_t line, const char *fields)
{
	if (c->rec.parser)
		hm_parser_reset(c->rec.parser);
	else {
		/* The API objects' usage needs output tokens, for text too. */
		c->rec.parser = hm_parser_new(c->opt.role, (c->opt.strict ? HM_PARSE_STRICT : 0) |
		    (c->opt.to == HM_TO_ANTHROPIC || c->opt.to == HM_TO_ANTHROPIC_STREAM ||
		    c->opt.to == HM_TO_CHAT_COMPLETION || c->opt.to == HM_TO_CHAT_STREAM ||
		    c->opt.to == HM_TO_RESPONSES || c->opt.to == HM_TO_RESPONSES_STREAM ?
		    HM_PARSE_COUNT : 0));
		if (!c->rec.parser)
			cli_oom();
		/* Shapes that print deltas as they come keep one per token. */
		hm_parser_set_merge(c->rec.parser, c->opt.to != HM_TO_EVENTS &&
		    c->opt.to != HM_TO_CHAT_STREAM && c->opt.to != HM_TO_RESPONSES_STREAM &&
		    c->opt.to != HM_TO_ANTHROPIC_STREAM);
		if (c->opt.marker && hm_parser_set_marker(c->rec.parser, c->opt.marker,
		    strlen(c->opt.marker)) != HM_OK)
			cli_oom();
		if (c->opt.cont && hm_parser_set_continue(c->rec.parser,
		    strcmp(c->opt.cont, "none") ? c->opt.cont : NULL,
		    strlen(c->opt.cont)) != HM_OK)
			cli_oom();
	}
	if (c->opt.tool_choice)
		tool_choice_record(c, fields, file, line);
	c->rec.p = c->rec.parser;
	c->rec.file = file;
	c->rec.line = line;
	c->rec.failed = 0;
	mark_reset(c, file, line);
	c->rec.records++;
	if (hm_writer_begin(c->wr, fields ? fields : "",
	    fields ? strlen(fields) : 0) != HM_OK)
		cli_oom();
}

/*
 * A record that could not be read or parsed: an error line in its place,
 * with the record's id when it has one.
 */
void
rec_error_line(struct parse_ctx *c, const char *msg, size_t line, const char *id)
{
	hm_buf b = { 0 };

	c->inp.errors++;
	if (!(c->wflags & HM_WRITER_RECORDS))
		return;
	hm_writer_abort(c->wr);
	hm_writer_consume(c->wr);
	/* metrics, report: the summary alone has no room for it (stderr has it) */
	if (c->opt.to == HM_TO_METRICS || c->opt.to == HM_TO_REPORT)
		return;
	if (c->opt.to == HM_TO_HTML) {
		/* the page says it where the record would be */
		hm_buf_adds(&b, "<section class=\"rec error\"><h2>line ");
		hm_buf_addu(&b, line);
		hm_buf_adds(&b, ": not read</h2>\n<p>");
		hm_html_escape(&b, msg, strlen(msg));
		hm_buf_adds(&b, "</p></section>\n");
		if (b.oom || hm_writer_put(c->wr, b.p, b.len) != HM_OK)
			cli_oom();
		put_out(c, 1);
		hm_buf_free(&b);
		return;
	}
	if (c->opt.to == HM_TO_TEXT) {
		if (hm_writer_put(c->wr, "\n", 1) != HM_OK)
			cli_oom();
		put_out(c, 1);
		return;
	}
	hm_buf_addc(&b, '{');
	if (id) {
		hm_buf_adds(&b, "\"id\":");
		hm_buf_adds(&b, id);
		hm_buf_addc(&b, ',');
	}
	hm_buf_adds(&b, "\"error\":");
	hm_buf_json_str(&b, msg, strlen(msg));
	hm_buf_adds(&b, ",\"line\":");
	hm_buf_addu(&b, line);
	hm_buf_adds(&b, "}\n");
	if (b.oom || hm_writer_put(c->wr, b.p, b.len) != HM_OK)
		cli_oom();
	/* --summary: the summary line alone (the error is on stderr). */
	put_out(c, !(c->opt.summary && c->opt.to == HM_TO_STATS));
	hm_buf_free(&b);
}

void
rec_end(struct parse_ctx *c)
{
	if (!c->rec.p)
		return;
	mark_trim(c, hm_parser_position(c->rec.p));
	hm_parser_finish(c->rec.p);
	drain(c);
	if (c->rec.failed && (c->wflags & HM_WRITER_RECORDS)) {
		c->rec.err.p[c->rec.err.len] = '\0';
		rec_error_line(c, c->rec.err.p, c->rec.line, c->rec.id);
	} else if (c->rec.failed && holds_record(c))
		hm_writer_abort(c->wr);
	write_out(c, 1);
	c->rec.p = NULL; /* the parser is kept for the next record */
}

void
feed_ids(struct parse_ctx *c, const uint32_t *v, size_t n)
{
	if (((c->wflags & HM_WRITER_TOKENS) || c->opt.to == HM_TO_HTML || c->opt.store) &&
	    hm_writer_record_ids(c->wr, v, n) != HM_OK)
		cli_oom();
	if (hm_parser_feed(c->rec.p, v, n) != HM_OK)
		cli_oom();
	drain(c);
}

/* Text of the record: to the parser (and --with-tokens' writer), not yet drained. */
void
feed_text(struct parse_ctx *c, const char *s, size_t n)
{
	if (((c->wflags & HM_WRITER_TOKENS) || c->opt.to == HM_TO_HTML || c->opt.store) &&
	    hm_writer_record_text(c->wr, s, n) != HM_OK)
		cli_oom();
	if (hm_parser_feed_text(c->rec.p, s, n) != HM_OK)
		cli_oom();
}

