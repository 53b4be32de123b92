/* harmony-render - a request (Harmony, Chat, Responses, Anthropic) to the exact prompt. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "harmony.h"
#include "store.h"

static const char usage_text[] =
"Usage: harmony-render [OPTION]... [FILE]...\n"
"Render a request as the exact Harmony prompt of the reference (token ids).\n"
"Each FILE (or standard input) holds one request; with --lines, each line does.\n"
"\n"
"Options:\n"
"      --builtin=LIST          add builtin tools to the system message:\n"
"                              browser, python or browser,python\n"
"      --continue              leave the last message open for the model to\n"
"                              continue (a prefill of the assistant's)\n"
"      --date=DATE             'Current date: DATE' line (YYYY-MM-DD or 'today');\n"
"                              none by default, so output is deterministic\n"
"      --from=DIALECT          harmony, chat, responses, anthropic or\n"
"                              auto (default)\n"
"  -h, --help                  show this help and exit\n"
"      --header-order=ORDER    assistant tool calls: reference (default; to=\n"
"                              before <|channel|>) or model (channel first,\n"
"                              as models write them)\n"
"      --identity=TEXT         the model identity line of the system message\n"
"      --keep-analysis         never drop analysis messages\n"
"      --knowledge-cutoff=TEXT\n"
"                              'Knowledge cutoff:' value (default 2024-06)\n"
"      --lines                 one request per input line (NDJSON), one output\n"
"                              line each\n"
"      --mode=MODE             completion (default), conversation, training\n"
"      --next-role=ROLE        completion: role of the next message (default\n"
"                              assistant)\n"
"      --pretty                indent JSON output (--to json, harmony) for people\n"
"  -q, --quiet                 no warnings\n"
"      --reasoning-effort=E    low, medium or high (overrides the request)\n"
"      --store=DIR             the turns harmony-parse --store kept in DIR:\n"
"                              previous_response_id, and assistant turns that\n"
"                              come back without their reasoning or ids\n"
"      --to=FORMAT             ids (default), json, text, harmony (the\n"
"                              conversation as Harmony JSON, nothing rendered)\n"
"                              or html (the tokens as a page for a browser)\n"
"  -V, --version               print the version and exit\n"
"\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error.\n";

enum to { TO_IDS, TO_JSON, TO_TEXT, TO_HARMONY, TO_HTML };

/* The options as given. */
struct render_opt {
	hm_dialect from;
	hm_render_opts render;
	hm_request_opts req;
	enum to to;
	int lines;
	int cont;               /* --continue */
	char date[16];
};

/* The run's one context: its options, its output, what one request hands the next. */
struct render_ctx {
	struct render_opt opt;
	int status;
	hm_buf out;
	int pretty_json;        /* --pretty, and the output is JSON */
	hm_ids ids;
	hm_encoder *enc;        /* made on first use, kept for the run */
	hm_html *page;          /* --to html: the page, a section a request */
	const char *rec_file;   /* where the record being read starts */
	size_t rec_line;
};

/*
 * --to html: a request's section (rc->ids NULL: one that could not be read,
 * its heading saying why), into rc->out.  The rc->page's head comes with the first.
 */
static void
put_page(struct render_ctx *rc, const char *file, size_t line, const char *why, const hm_ids *v)
{
	hm_buf label = { 0 };
	const char *p;
	size_t n;

	if (!rc->page) {
		hm_buf_adds(&label, "harmony-render ");
		hm_buf_adds(&label, file);
		if (label.oom || !(rc->page = hm_html_new(label.p, 0)))
			cli_oom();
		hm_buf_reset(&label);
	}
	hm_buf_adds(&label, file);
	if (line) {
		hm_buf_adds(&label, " line ");
		hm_buf_addu(&label, line);
	}
	if (why) {
		hm_buf_adds(&label, ": ");
		hm_buf_adds(&label, why);
	}
	if (label.oom || hm_html_add_ids(rc->page, label.p, v ? v->v : NULL, v ? v->len : 0) != HM_OK)
		cli_oom();
	p = hm_html_output(rc->page, &n);
	hm_buf_add(&rc->out, p, n);
	hm_html_consume(rc->page);
	hm_buf_free(&label);
}

/* The end of a record: write it (indented under --pretty) and flush. */
static void
out_write(struct render_ctx *rc)
{
	cli_write_json(&rc->out, rc->pretty_json);
}

static void
put_str(struct render_ctx *rc, const hm_str *s)
{
	if (s->p)
		hm_buf_json_str(&rc->out, s->p, s->len);
	else
		hm_buf_adds(&rc->out, "null");
}

static void
put_ids(struct render_ctx *rc, const hm_ids *v, char sep)
{
	size_t i;

	for (i = 0; i < v->len; i++) {
		if (i)
			hm_buf_addc(&rc->out, sep);
		hm_buf_addu(&rc->out, v->v[i]);
	}
}

/* The record written for one good request. */
static void
put_result(struct render_ctx *rc, const hm_request *r)
{
	const uint32_t *stops;
	size_t nstops, i;

	if (rc->opt.to == TO_HTML) {
		put_page(rc, rc->rec_file, rc->opt.lines ? rc->rec_line : 0, NULL, &rc->ids);
		return;
	}
	if (rc->opt.to == TO_IDS) {
		put_ids(rc, &rc->ids, ' ');
		hm_buf_addc(&rc->out, '\n');
		return;
	}
	if (rc->opt.to == TO_HARMONY) {
		char *t;
		size_t n;

		if (!(t = hm_conversation_to_json(r->conv, &n)))
			cli_oom();
		hm_buf_add(&rc->out, t, n);
		hm_buf_addc(&rc->out, '\n');
		free(t);
		return;
	}
	if (rc->opt.to == TO_TEXT) {
		char *t;
		size_t n;
		hm_error e;

		if (hm_render_text(r->conv, &rc->opt.render, &t, &n, &e) != HM_OK)
			cli_oom(); /* the same render just succeeded */
		hm_buf_add(&rc->out, t, n);
		hm_buf_addc(&rc->out, '\n');
		free(t);
		return;
	}
	hm_buf_adds(&rc->out, "{\"tokens\":[");
	put_ids(rc, &rc->ids, ',');
	hm_buf_adds(&rc->out, "],\"stop_token_ids\":[");
	nstops = hm_stop_tokens_for_actions(&stops);
	for (i = 0; i < nstops; i++) {
		if (i)
			hm_buf_addc(&rc->out, ',');
		hm_buf_addu(&rc->out, stops[i]);
	}
	hm_buf_adds(&rc->out, "],\"selection_text\":");
	put_str(rc, &r->selection_text);
	hm_buf_adds(&rc->out, r->harmony_model ? ",\"harmony_model\":true" : ",\"harmony_model\":false");
	hm_buf_adds(&rc->out, ",\"model\":");
	put_str(rc, &r->model);
	hm_buf_adds(&rc->out, ",\"dialect\":\"");
	hm_buf_adds(&rc->out, hm_dialect_name(r->dialect));
	hm_buf_adds(&rc->out, "\",\"num_tokens\":");
	hm_buf_addu(&rc->out, rc->ids.len);
	hm_buf_adds(&rc->out, "}\n");
}

/*
 * A bad request at file:line (--lines: its line), its text starting on
 * line first: on stderr, and with --lines in the request's place.
 */
static void
put_error(struct render_ctx *rc, const char *file, size_t first, size_t line,
    const hm_error *e, const char *more)
{
	char msg[sizeof e->msg + 64]; /* the message and the tool's words for its hint */

	snprintf(msg, sizeof msg, "%s%s", e->msg, more);
	cli_error_json(file, first, line, e, more);
	rc->status = CLI_BAD;
	if (rc->opt.to == TO_HTML) { /* a section saying so, in its place */
		put_page(rc, file, line, msg, NULL);
		return;
	}
	if (!rc->opt.lines)
		return;
	if (rc->opt.to == TO_JSON || rc->opt.to == TO_HARMONY) {
		hm_buf_adds(&rc->out, "{\"error\":");
		hm_buf_json_str(&rc->out, msg, strlen(msg));
		hm_buf_adds(&rc->out, ",\"line\":");
		hm_buf_addu(&rc->out, line);
		hm_buf_adds(&rc->out, "}\n");
	} else
		hm_buf_addc(&rc->out, '\n');
}


static void
warn_cb(void *ctx, size_t line, const char *msg)
{
	const struct render_ctx *rc = ctx;

	/* With --lines a record is one line: its number is the line. */
	cli_warn(rc->rec_file, rc->opt.lines ? rc->rec_line : line ? line : 1, "%s", msg);
}

/* One request; line is the record's line with --lines, else 0. */
static void
render_one(struct render_ctx *rc, const char *buf, size_t len, const char *file, size_t line)
{
	hm_request r;
	hm_error e;
	hm_status st;

	memset(&e, 0, sizeof e);
	rc->rec_file = file;
	rc->rec_line = line;
	st = hm_request_from_json(buf, len, rc->opt.from, &rc->opt.req, &r, &e);
	if (st == HM_OK) {
		rc->ids.len = 0;
		/* one encoder for the run: its caches stay warm */
		if (!rc->enc && !(rc->enc = hm_encoder_new()))
			cli_oom();
		/* a prefill in the request, or --continue */
		rc->opt.render.continue_last = rc->opt.cont || hm_conversation_continues(r.conv);
		st = hm_render_with(rc->enc, r.conv, &rc->opt.render, &rc->ids, &e);
		if (st == HM_OK)
			put_result(rc, &r);
		hm_request_free(&r);
	}
	if (st == HM_ENOMEM)
		cli_oom();
	if (st != HM_OK)
		put_error(rc, file, line ? line : 1, line ? line : e.line ? e.line : 1, &e, cli_hint(e.hint));
	out_write(rc);
}

/* The errors of no request at all. */
static const hm_error empty_line = { "empty line: no request", 0, 0, (size_t)-1, HM_HINT_NONE };
static const hm_error empty_input = { "empty input: no request", 0, 0, (size_t)-1, HM_HINT_NONE };

/* A real date YYYY-MM-DD (years 0001 to 9999). */
static int
valid_date(const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int i, y, m, d;

	for (i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : !(s[i] >= '0' && s[i] <= '9'))
			return 0;
	if (s[10])
		return 0;
	for (y = 0, i = 0; i < 4; i++)
		y = y * 10 + (s[i] - '0');
	m = (s[5] - '0') * 10 + (s[6] - '0');
	d = (s[8] - '0') * 10 + (s[9] - '0');
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
		return 0;
	return !(m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)));
}

static int
blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return 0;
	return 1;
}

static void
parse_builtins(struct render_ctx *rc, const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == 7 && !strncmp(p, "browser", 7))
			rc->opt.req.browser = 1;
		else if (n == 6 && !strncmp(p, "python", 6))
			rc->opt.req.python = 1;
		else if (n)
			cli_usage_error("--builtin takes browser and/or python, not '%.*s'", (int)n, p);
		p += n;
		if (*p == ',')
			p++;
	}
}

int
main(int argc, char **argv)
{
	enum {
		O_BUILTIN = 256, O_CONTINUE, O_DATE, O_FROM, O_HEADER_ORDER, O_IDENTITY, O_KEEP, O_CUTOFF,
		O_LINES, O_MODE, O_NEXT_ROLE, O_PRETTY, O_EFFORT, O_STORE, O_TO,
	};
	static const struct option longopts[] = {
		{ "builtin", required_argument, NULL, O_BUILTIN },
		{ "continue", no_argument, NULL, O_CONTINUE },
		{ "date", required_argument, NULL, O_DATE },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "header-order", required_argument, NULL, O_HEADER_ORDER },
		{ "identity", required_argument, NULL, O_IDENTITY },
		{ "keep-analysis", no_argument, NULL, O_KEEP },
		{ "knowledge-cutoff", required_argument, NULL, O_CUTOFF },
		{ "lines", no_argument, NULL, O_LINES },
		{ "mode", required_argument, NULL, O_MODE },
		{ "next-role", required_argument, NULL, O_NEXT_ROLE },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "reasoning-effort", required_argument, NULL, O_EFFORT },
		{ "store", required_argument, NULL, O_STORE },
		{ "to", required_argument, NULL, O_TO },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct render_ctx ctx, *rc = &ctx;
	cli_input in;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int c, d, pretty = 0;

	memset(rc, 0, sizeof *rc);
	rc->status = CLI_OK;
	cli_init("harmony-render");
	{
		hm_render_opts ro = HM_RENDER_OPTS_INIT;
		hm_request_opts qo = HM_REQUEST_OPTS_INIT;

		rc->opt.render = ro;
		rc->opt.req = qo;
	}
	rc->opt.req.warn = warn_cb; /* none under -q: see below */
	rc->opt.req.warn_ctx = rc;
	rc->opt.render.mode = HM_RENDER_COMPLETION;
	rc->opt.render.next_role = HM_ROLE_ASSISTANT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_BUILTIN:
			parse_builtins(rc, optarg);
			break;
		case O_CONTINUE:
			rc->opt.cont = 1;
			break;
		case O_DATE:
			if (!strcmp(optarg, "today")) {
				time_t now = time(NULL);
				struct tm tm;

				if (!localtime_r(&now, &tm) ||
				    !strftime(rc->opt.date, sizeof rc->opt.date, "%Y-%m-%d", &tm))
					cli_usage_error("cannot read the clock for --date=today");
				rc->opt.req.date = rc->opt.date;
			} else if (valid_date(optarg))
				rc->opt.req.date = optarg;
			else
				cli_usage_error("--date must be a date YYYY-MM-DD or 'today', not '%s'", optarg);
			break;
		case O_FROM:
			if ((d = hm_dialect_from_name(optarg)) < 0)
				cli_usage_error("--from must be harmony, chat, responses, anthropic or auto, not '%s'", optarg);
			rc->opt.from = (hm_dialect)d;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_HEADER_ORDER:
			if (!strcmp(optarg, "model"))
				rc->opt.render.model_headers = 1;
			else if (!strcmp(optarg, "reference"))
				rc->opt.render.model_headers = 0;
			else
				cli_usage_error("--header-order must be reference or model, not '%s'", optarg);
			break;
		case O_IDENTITY:
			rc->opt.req.identity = optarg;
			break;
		case O_KEEP:
			rc->opt.render.keep_analysis = 1;
			break;
		case O_CUTOFF:
			rc->opt.req.cutoff = optarg;
			break;
		case O_LINES:
			rc->opt.lines = 1;
			break;
		case O_MODE:
			if (!strcmp(optarg, "completion"))
				rc->opt.render.mode = HM_RENDER_COMPLETION;
			else if (!strcmp(optarg, "conversation"))
				rc->opt.render.mode = HM_RENDER_CONVERSATION;
			else if (!strcmp(optarg, "training"))
				rc->opt.render.mode = HM_RENDER_TRAINING;
			else
				cli_usage_error("--mode must be completion, conversation or training, not '%s'", optarg);
			break;
		case O_NEXT_ROLE:
			if ((d = hm_role_from_name(optarg)) < 0)
				cli_usage_error("--next-role must be user, assistant, system, developer or tool, not '%s'", optarg);
			rc->opt.render.next_role = (hm_role)d;
			break;
		case O_PRETTY:
			pretty = 1;
			break;
		case 'q':
			rc->opt.req.warn = NULL;
			break;
		case O_EFFORT:
			if (!strcmp(optarg, "low"))
				rc->opt.req.effort = HM_EFFORT_LOW;
			else if (!strcmp(optarg, "medium"))
				rc->opt.req.effort = HM_EFFORT_MEDIUM;
			else if (!strcmp(optarg, "high"))
				rc->opt.req.effort = HM_EFFORT_HIGH;
			else
				cli_usage_error("--reasoning-effort must be low, medium or high, not '%s'", optarg);
			break;
		case O_STORE:
			/* made when missing: a server's first request comes before any turn */
			if (store_open(optarg)) {
				cli_error(NULL, 0, "--store: %s: %s", optarg, strerror(errno));
				return cli_finish(CLI_IO);
			}
			rc->opt.req.lookup = store_lookup;
			rc->opt.req.lookup_ctx = optarg;
			break;
		case O_TO:
			if (!strcmp(optarg, "ids"))
				rc->opt.to = TO_IDS;
			else if (!strcmp(optarg, "json"))
				rc->opt.to = TO_JSON;
			else if (!strcmp(optarg, "text"))
				rc->opt.to = TO_TEXT;
			else if (!strcmp(optarg, "harmony"))
				rc->opt.to = TO_HARMONY;
			else if (!strcmp(optarg, "html"))
				rc->opt.to = TO_HTML;
			else
				cli_usage_error("--to must be ids, json, text, harmony or html, not '%s'", optarg);
			break;
		case 'V':
			printf("harmony-render %s\n", HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			cli_bad_option(argv, c);
		}
	}
	if (rc->opt.cont && rc->opt.render.mode == HM_RENDER_TRAINING)
		cli_usage_error("--continue leaves the last message open; --mode training renders whole messages");
	if (rc->opt.lines && rc->opt.to == TO_TEXT)
		cli_usage_error("--to text spans lines; with --lines use --to ids or json");
	if (rc->opt.lines && pretty)
		cli_usage_error("--pretty spans lines; --lines writes one line per request");
	rc->pretty_json = pretty && (rc->opt.to == TO_JSON || rc->opt.to == TO_HARMONY);

	if (cli_input_init(&in, argv + optind, argc - optind))
		return cli_finish(CLI_IO);
	if (rc->opt.lines) {
		while (cli_input_line(&in, &buf, &cap, &len)) {
			if (blank(buf, len)) {
				put_error(rc, in.name, in.line, in.line, &empty_line, "");
				out_write(rc);
				continue;
			}
			render_one(rc, buf, len, in.name, in.line);
		}
	} else {
		while (cli_input_next_file(&in)) {
			len = 0;
			if (cli_read_all(&in, &buf, &len, &cap) < 0)
				continue;
			if (blank(buf, len)) {
				put_error(rc, in.name, 1, 1, &empty_input, "");
				continue;
			}
			render_one(rc, buf, len, in.name, 0);
		}
	}
	if (rc->opt.to == TO_HTML) { /* the rc->page's end (and head, when no request came) */
		const char *p;
		size_t n;

		if (!rc->page && !(rc->page = hm_html_new("harmony-render", 0)))
			cli_oom();
		if (hm_html_finish(rc->page) != HM_OK)
			cli_oom();
		p = hm_html_output(rc->page, &n);
		hm_buf_add(&rc->out, p, n);
		out_write(rc);
		hm_html_free(rc->page);
	}
	cli_input_close(&in);
	free(buf);
	hm_buf_free(&rc->out);
	hm_ids_free(&rc->ids);
	hm_encoder_free(rc->enc);
	if (in.failed)
		rc->status = CLI_IO;
	return cli_finish(rc->status);
}
