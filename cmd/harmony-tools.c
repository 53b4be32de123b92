/* harmony-tools - tool definitions and the tool-call loop for Harmony. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "harmony.h"

static const char usage_text[] =
"Usage: harmony-tools [OPTION]... COMMAND [FILE]...\n"
"Tool definitions and tool calls for Harmony prompts.\n"
"\n"
"Commands:\n"
"  render      tool definitions to the Harmony '# Tools' text\n"
"  convert     tool definitions from one shape to another (--from, --to)\n"
"  calls       messages NDJSON to one line per tool call\n"
"  result      a tool's output (standard input) to a Harmony tool message line\n"
"  validate    a verdict for each NDJSON value against the JSON Schema --schema\n"
"  grammar     a request to the grammar of its completion, for constrained\n"
"              decoding (--to: ebnf, gbnf, lark or structural-tag)\n"
"\n"
"Options:\n"
"      --call-id=ID      result: record the call id in the message\n"
"      --builtin=LIST    grammar: add builtin tools: browser, python or both\n"
"      --check=FILE      calls: check calls against the tool definitions in FILE\n"
"      --formats=WHEN    validate, calls --check: the format keyword asserts\n"
"                        (assert), only annotates (annotate), or does as the\n"
"                        schema's draft\n"
"                        says (draft, the default: asserts in drafts 4 to 7,\n"
"                        annotates in 2019-09 and 2020-12, the draft of a\n"
"                        schema without $schema)\n"
"      --from=SHAPE      render, convert: chat, responses, mcp, anthropic,\n"
"                        harmony or auto (default); grammar: the request's\n"
"                        dialect: harmony, chat, responses, anthropic or auto\n"
"  -h, --help            show this help and exit\n"
"      --name=NAME       result: the tool's name (NAME or NAMESPACE.NAME)\n"
"      --namespace=NAME  the tools' namespace (default: a Harmony namespace's\n"
"                        own name, else functions)\n"
"      --no-analysis     grammar: leave the analysis channel out\n"
"      --pretty          indent JSON output (convert, calls, result) for people\n"
"  -q, --quiet           no warnings\n"
"      --schema=FILE     validate: the JSON Schema\n"
"      --schema-dir=URI=DIR  validate: read the schema documents whose URIs\n"
"                        begin with URI from DIR (never fetched); repeatable\n"
"      --strict          validate: a schema keyword its draft does not have is\n"
"                        an error (else an annotation)\n"
"      --to=SHAPE        convert: chat, responses, mcp, anthropic, harmony;\n"
"                        grammar: ebnf (default), gbnf, lark, structural-tag\n"
"      --tool-choice=JSON  grammar: this tool_choice, not the request's\n"
"                        (auto, none, required, or a JSON object)\n"
"  -V, --version         print the version and exit\n"
"\n"
"Exit status: 0 ok, 1 bad input, 2 usage error, 3 I/O error.\n";

enum cmd { C_RENDER, C_CONVERT, C_CALLS, C_RESULT, C_VALIDATE, C_GRAMMAR };

struct tools_opt {
	enum cmd cmd;
	hm_tool_shape from, to;
	const char *ns, *check, *name, *call_id, *schema;
	int ns_given; /* --namespace: overrides a Harmony namespace's own name */
	int quiet;    /* -q: no warnings */
	const char **schema_dirs; /* --schema-dir: URI prefix, directory, ..., NULL */
	size_t nschema_dirs;
	int strict;   /* --strict: unknown schema keywords are errors */
	int formats, formats_given; /* --formats: hm_schema_opts.formats */
	hm_grammar_opts grammar; /* grammar: the form, dialect, tool_choice, builtins */
};

/* The one state of a harmony-tools run, owned by main. */
struct tools_ctx {
	struct tools_opt opt;  /* the command and its options */
	int status;            /* the exit status so far (CLI_OK, CLI_BAD) */
	hm_buf out;            /* output not yet written */
	int pretty_json;       /* --pretty, and the output is JSON */
	hm_namespace checked;  /* calls --check: the tools the calls are checked against */
	unsigned long ncalls;  /* calls: Chat tool calls so far in this record */
};

/* The end of a record: write it (indented under --pretty) and flush. */
static void
out_write(struct tools_ctx *tc)
{
	cli_write_json(&tc->out, tc->pretty_json);
}

static void
warn_cb(void *ctx, size_t line, const char *msg)
{
	cli_warn((const char *)ctx, line ? line : 1, "%s", msg);
}

/* Read every input file's tool definitions into ns; 0 when all were good. */
static int
read_tools(struct tools_ctx *tc, cli_input *in, hm_tool_shape from, hm_namespace *ns)
{
	hm_tools_read_opts o;
	char *buf = NULL;
	size_t len, cap = 0;
	hm_error e;
	hm_status st;
	int rc = 0;

	o = (hm_tools_read_opts)HM_TOOLS_READ_OPTS_INIT;
	o.from = from;
	o.name_given = tc->opt.ns_given;
	o.warn = tc->opt.quiet ? NULL : warn_cb;
	while (cli_input_next_file(in)) {
		len = 0;
		if (cli_read_all(in, &buf, &len, &cap) < 0) {
			rc = -1;
			continue;
		}
		o.warn_ctx = (void *)in->name;
		/* as harmony-render words it */
		if (!len || strspn(buf, " \t\r\n") == len) {
			cli_error(in->name, 1, "empty input: no tool definitions");
			tc->status = CLI_BAD;
			rc = -1;
			continue;
		}
		e.line = 0;
		if ((st = hm_tools_read(buf, len, &o, ns, &e)) == HM_ENOMEM)
			cli_oom();
		if (st != HM_OK) {
			cli_error_json(in->name, 1, e.line, &e, "");
			tc->status = CLI_BAD;
			rc = -1;
		}
	}
	free(buf);
	if (in->failed)
		rc = -1;
	/* The default name, unless --namespace or the input gave one. */
	if (!ns->name.p && (hm_str_set(&ns->name, "functions", 9) != HM_OK ||
	    hm_str_set(&ns->key, "functions", 9) != HM_OK))
		cli_oom();
	return rc;
}

static void
ns_init(struct tools_ctx *tc, hm_namespace *ns)
{
	memset(ns, 0, sizeof *ns);
	if (tc->opt.ns_given && (hm_str_set(&ns->name, tc->opt.ns, strlen(tc->opt.ns)) != HM_OK ||
	    hm_str_set(&ns->key, tc->opt.ns, strlen(tc->opt.ns)) != HM_OK))
		cli_oom();
}

/*
 * render and convert write one block for all their input: with a bad
 * file it would be missing tools, so nothing is written.
 */
static void
run_render(struct tools_ctx *tc, cli_input *in)
{
	hm_namespace ns;
	char *t;
	size_t n;

	ns_init(tc, &ns);
	if (read_tools(tc, in, tc->opt.from, &ns) == 0) {
		if (!(t = hm_render_namespace(&ns, &n)))
			cli_oom();
		hm_buf_adds(&tc->out, "# Tools\n\n");
		hm_buf_add(&tc->out, t, n);
		hm_buf_addc(&tc->out, '\n');
		free(t);
		out_write(tc);
	}
	hm_namespace_free(&ns);
}

static void
run_convert(struct tools_ctx *tc, cli_input *in)
{
	hm_namespace ns;
	char *t;
	size_t n;

	ns_init(tc, &ns);
	if (read_tools(tc, in, tc->opt.from, &ns) == 0) {
		if (!(t = hm_tools_write(&ns, tc->opt.to, &n)))
			cli_oom();
		hm_buf_add(&tc->out, t, n);
		hm_buf_addc(&tc->out, '\n');
		free(t);
		out_write(tc);
	}
	hm_namespace_free(&ns);
}

/* ------------------------------------------------------------ calls */

static const hm_tool *
find_tool(struct tools_ctx *tc, const char *ns, size_t nslen, const char *name, size_t namelen)
{
	size_t i;

	if (nslen != tc->checked.name.len || memcmp(ns, tc->checked.name.p, nslen))
		return NULL;
	for (i = 0; i < tc->checked.ntools; i++)
		if (tc->checked.tools[i].name.len == namelen &&
		    !memcmp(tc->checked.tools[i].name.p, name, namelen))
			return &tc->checked.tools[i];
	return NULL;
}

static int
has_prefix(const char *s, const char *pfx)
{
	return !strncmp(s, pfx, strlen(pfx));
}

/*
 * Whether harmony-parse --to chat lists a call to r among tool_calls (and
 * so gives it an id): builtin tools (browser, python, container) show up
 * there as reasoning, every other recipient is a function or MCP call.
 */
static int
is_chat_call(const char *r)
{
	return !has_prefix(r, "browser") && !has_prefix(r, "python") &&
	    !has_prefix(r, "container");
}

/*
 * A recipient's namespace and tool name, as harmony-parse reads them:
 * functions.NAME is NAME in functions (NAME may hold dots); a bare NAME
 * is a function too, except the builtins (python); else the name is the
 * part after the last dot (mcp.srv.tool: tool in mcp.srv).
 */
static void
split_recipient(const char *r, size_t n, const char **ns, size_t *nslen,
                const char **name, size_t *namelen)
{
	const char *dot;

	if (has_prefix(r, "functions.")) {
		*ns = r;
		*nslen = 9;
		*name = r + 10;
		*namelen = n - 10;
	} else if (!memchr(r, '.', n)) {
		*ns = is_chat_call(r) ? "functions" : r;
		*nslen = is_chat_call(r) ? 9 : n;
		*name = r;
		*namelen = n;
	} else {
		for (dot = r + n; dot[-1] != '.'; dot--)
			;
		*ns = r;
		*nslen = (size_t)(dot - 1 - r);
		*name = dot;
		*namelen = n - (size_t)(dot - r);
	}
}

static void
one_call(struct tools_ctx *tc, const hm_message *m, const char *file, size_t line)
{
	const char *r = m->recipient.p, *ns, *name;
	size_t nslen, namelen, i;
	hm_buf args = {0};
	char idbuf[32];
	hm_error e;

	if (m->role != HM_ROLE_ASSISTANT || !r || !strcmp(r, "all") ||
	    !strcmp(r, "assistant") || !strcmp(r, "user"))
		return;
	split_recipient(r, m->recipient.len, &ns, &nslen, &name, &namelen);
	for (i = 0; i < m->ncontent; i++)
		if (m->content[i].type == HM_CONTENT_TEXT)
			hm_buf_add(&args, m->content[i].text.p, m->content[i].text.len);
	if (args.oom) /* not "not JSON": the arguments are lost */
		cli_oom();
	hm_buf_adds(&tc->out, "{\"call_id\":");
	if (is_chat_call(r)) {
		snprintf(idbuf, sizeof idbuf, "call_%lu", tc->ncalls++);
		hm_buf_addc(&tc->out, '"');
		hm_buf_adds(&tc->out, idbuf);
		hm_buf_addc(&tc->out, '"');
	} else {
		idbuf[0] = '\0';
		hm_buf_adds(&tc->out, "null");
	}
	hm_buf_adds(&tc->out, ",\"name\":");
	if (namelen)
		hm_buf_json_str(&tc->out, name, namelen);
	else
		hm_buf_adds(&tc->out, "null");
	hm_buf_adds(&tc->out, ",\"namespace\":");
	hm_buf_json_str(&tc->out, ns, nslen);
	hm_buf_adds(&tc->out, ",\"arguments\":");
	/* Call arguments are any JSON, numbers past a double's range too. */
	switch (hm_json_compact(&tc->out, args.p ? args.p : "", args.len)) {
	case HM_OK:
		break;
	case HM_ENOMEM: /* not "not JSON": the arguments would change */
		cli_oom();
		break;
	default:
		hm_buf_json_str(&tc->out, args.p ? args.p : "", args.len);
	}
	e.msg[0] = '\0';
	if (!namelen) {
		snprintf(e.msg, sizeof e.msg, "recipient '%s' names no tool", r);
	} else if (tc->opt.check) {
		const hm_tool *t = find_tool(tc, ns, nslen, name, namelen);

		if (!t)
			snprintf(e.msg, sizeof e.msg, "unknown tool %.*s.%.*s", (int)nslen, ns,
			    (int)namelen, name);
		else {
			/* --formats: the tool's schema read with it (else as hm_tool_check reads it) */
			hm_schema_opts o = HM_SCHEMA_OPTS_INIT;

			o.formats = tc->opt.formats;
			if (hm_tool_check_opts(t, args.p ? args.p : "", args.len,
			    tc->opt.formats_given ? &o : NULL, NULL, &e) == HM_ENOMEM)
				cli_oom();
		}
	}
	if (e.msg[0]) {
		cli_error(file, line, "%s%s%s: %s", idbuf, *idbuf ? " " : "", r, e.msg);
		tc->status = CLI_BAD;
		hm_buf_adds(&tc->out, ",\"error\":");
		hm_buf_json_str(&tc->out, e.msg, strlen(e.msg));
	}
	hm_buf_adds(&tc->out, "}\n");
	hm_buf_free(&args);
}

/*
 * Whether a line is a record of its own (a Conversation or a list of
 * messages, as harmony-parse --lines writes) rather than one message of a
 * stream (as harmony-parse writes one completion).
 */
static int
is_record(const char *line, size_t len)
{
	size_t i = 0;
	cJSON *v;
	int rec;

	while (i < len && strchr(" \t\r", line[i]))
		i++;
	if (i < len && line[i] == '[')
		return 1;
	if (!(v = cJSON_ParseWithLength(line, len)))
		return 0;
	rec = cJSON_GetObjectItemCaseSensitive(v, "messages") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(v, "role") == NULL;
	cJSON_Delete(v);
	return rec;
}

static void
run_calls(struct tools_ctx *tc, cli_input *in)
{
	char *line = NULL;
	size_t cap = 0, len, i;
	int in_stream = 0;

	if (tc->opt.check) {
		char *cargv[1];
		cli_input cin;

		cargv[0] = (char *)tc->opt.check;
		ns_init(tc, &tc->checked);
		if (!cli_input_init(&cin, cargv, 1))
			read_tools(tc, &cin, HM_TOOLS_AUTO, &tc->checked);
		cli_input_close(&cin);
		if (cin.failed)
			exit(cli_finish(CLI_IO));
		if (tc->status != CLI_OK)
			exit(cli_finish(tc->status));
	}
	while (cli_input_line(in, &line, &cap, &len)) {
		hm_request r;
		hm_error e;
		hm_status st;

		if (len == 0 || strspn(line, " \t\r") == len)
			continue;
		st = hm_request_from_json(line, len, HM_DIALECT_HARMONY, NULL, &r, &e);
		if (st == HM_ENOMEM)
			cli_oom();
		if (st != HM_OK) {
			/* ids are what harmony-parse reads: say so */
			if (hm_ids_detect(line, len))
				cli_error(in->name, in->line, "%s; these look like token ids: parse them "
				          "first (harmony-parse FILE | harmony-tools calls)", e.msg);
			else
				cli_error_json(in->name, in->line, in->line, &e, "");
			tc->status = CLI_BAD;
			continue;
		}
		/* Ids count from call_0 in each record, as harmony-parse numbers them. */
		if (is_record(line, len)) {
			tc->ncalls = 0;
			in_stream = 0;
		} else if (!in_stream) {
			tc->ncalls = 0;
			in_stream = 1;
		}
		for (i = 0; i < r.conv->n; i++)
			one_call(tc, &r.conv->msgs[i], in->name, in->line);
		hm_request_free(&r);
		out_write(tc);
	}
	free(line);
	hm_namespace_free(&tc->checked);
}

/* ------------------------------------------------------------ result */

static void
run_result(struct tools_ctx *tc, cli_input *in)
{
	char *buf = NULL, *t;
	size_t len = 0, cap = 0, n;
	hm_conversation *c = hm_conversation_new();
	hm_message *m;
	hm_buf name = {0};

	if (!c)
		cli_oom();
	while (cli_input_next_file(in))
		cli_read_all(in, &buf, &len, &cap);
	if (in->failed)
		exit(cli_finish(CLI_IO));
	/* Like $(...): the output's trailing newlines are not part of it. */
	while (len && buf[len - 1] == '\n')
		len--;
	if (hm_utf8_valid_prefix(buf ? buf : "", len) != len) {
		cli_error(in->name, 0, "the tool output is not valid UTF-8");
		exit(cli_finish(CLI_BAD));
	}
	if (!strchr(tc->opt.name, '.')) {
		hm_buf_adds(&name, tc->opt.ns);
		hm_buf_addc(&name, '.');
	}
	hm_buf_adds(&name, tc->opt.name);
	if (name.oom || !(m = hm_conversation_push(c, HM_ROLE_TOOL)) ||
	    hm_str_set(&m->name, name.p, name.len) != HM_OK ||
	    hm_str_set(&m->recipient, "assistant", 9) != HM_OK ||
	    hm_str_set(&m->channel, "commentary", 10) != HM_OK ||
	    hm_message_add_text(m, buf ? buf : "", len) != HM_OK ||
	    !(t = hm_message_to_json(m, &n)))
		cli_oom();
	hm_buf_add(&tc->out, t, n - 1); /* without the closing brace */
	if (tc->opt.call_id) {
		hm_buf_adds(&tc->out, ",\"call_id\":");
		hm_buf_json_str(&tc->out, tc->opt.call_id, strlen(tc->opt.call_id));
	}
	hm_buf_adds(&tc->out, "}\n");
	out_write(tc);
	free(t);
	free(buf);
	hm_buf_free(&name);
	hm_conversation_free(c);
}

/* ------------------------------------------------------------ validate */

/* Read --schema into a validator; exits on a bad or unreadable schema. */
static hm_schema *
load_schema(struct tools_ctx *tc)
{
	char *cargv[1], *buf = NULL;
	size_t len = 0, cap = 0;
	cli_input cin;
	hm_schema *s = NULL;
	hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
	hm_error e;
	hm_status st;

	cargv[0] = (char *)tc->opt.schema;
	if (!cli_input_init(&cin, cargv, 1))
		while (cli_input_next_file(&cin))
			cli_read_all(&cin, &buf, &len, &cap);
	cli_input_close(&cin);
	if (cin.failed)
		exit(cli_finish(CLI_IO));
	e.line = 0;
	o.dirs = tc->opt.schema_dirs;
	o.strict = tc->opt.strict;
	if (tc->opt.formats_given)
		o.formats = tc->opt.formats;
	/* a schema, or a response format or a request that holds one, as harmony-parse --schema */
	if ((st = hm_schema_from_format(buf ? buf : "", len, &o, &s, &e)) == HM_ENOMEM)
		cli_oom();
	free(buf);
	if (st != HM_OK) {
		cli_error(tc->opt.schema, e.line ? e.line : 1, "%s", e.msg);
		exit(cli_finish(CLI_BAD));
	}
	return s;
}

/*
 * One verdict a value: {"valid":true}, or {"valid":false,"errors":[{"path":
 * ...,"keyword":...,"message":...}]} with the first problem on standard
 * error, or {"valid":false,"error":"not JSON: ..."}.
 */
static void
run_validate(struct tools_ctx *tc, cli_input *in)
{
	hm_schema *s = load_schema(tc);
	char *line = NULL;
	size_t cap = 0, len, i;
	hm_schema_problem p;

	while (cli_input_line(in, &line, &cap, &len)) {
		hm_error e;
		hm_status st;

		if (len == 0 || strspn(line, " \t\r") == len)
			continue;
		if ((st = hm_schema_validate(s, line, len, &e)) == HM_ENOMEM)
			cli_oom();
		if (st == HM_OK) {
			hm_buf_adds(&tc->out, "{\"valid\":true}\n");
		} else if (!hm_schema_nproblems(s)) {
			hm_buf_adds(&tc->out, "{\"valid\":false,\"error\":");
			hm_buf_json_str(&tc->out, e.msg, strlen(e.msg));
			hm_buf_adds(&tc->out, "}\n");
		} else {
			hm_buf_adds(&tc->out, "{\"valid\":false,\"errors\":[");
			for (i = 0; hm_schema_problem_get(s, i, &p); i++) {
				hm_buf_adds(&tc->out, i ? ",{\"path\":" : "{\"path\":");
				hm_buf_json_str(&tc->out, p.path, strlen(p.path));
				hm_buf_adds(&tc->out, ",\"keyword\":");
				hm_buf_json_str(&tc->out, p.keyword, strlen(p.keyword));
				hm_buf_adds(&tc->out, ",\"message\":");
				hm_buf_json_str(&tc->out, p.message, strlen(p.message));
				hm_buf_addc(&tc->out, '}');
			}
			hm_buf_addc(&tc->out, ']');
			if (hm_schema_nproblems(s) > i) {
				hm_buf_adds(&tc->out, ",\"more\":");
				hm_buf_addu(&tc->out, hm_schema_nproblems(s) - i);
			}
			hm_buf_adds(&tc->out, "}\n");
		}
		/* the verdict first, then what is wrong with it */
		out_write(tc);
		if (st != HM_OK) {
			cli_error(in->name, in->line, "%s", e.msg);
			tc->status = CLI_BAD;
		}
	}
	free(line);
	hm_schema_free(s);
}

/* ------------------------------------------------------------ grammar */

/* The grammar of the request in the input (all files as one request). */
static void
run_grammar(struct tools_ctx *tc, cli_input *in)
{
	char *buf = NULL, *g = NULL;
	size_t len = 0, cap = 0, n = 0;
	hm_error e;
	hm_status st;

	while (cli_input_next_file(in))
		cli_read_all(in, &buf, &len, &cap);
	if (in->failed)
		exit(cli_finish(CLI_IO));
	tc->opt.grammar.warn = tc->opt.quiet ? NULL : warn_cb;
	tc->opt.grammar.warn_ctx = (void *)in->name;
	if ((st = hm_grammar_from_request(buf ? buf : "", len, &tc->opt.grammar, &g, &n, &e)) == HM_ENOMEM)
		cli_oom();
	free(buf);
	if (st != HM_OK) {
		cli_error_json(in->name, e.line ? e.line : 1, e.line, &e, "");
		tc->status = CLI_BAD;
		return;
	}
	hm_buf_add(&tc->out, g, n);
	free(g);
	out_write(tc);
}

static hm_tool_shape
parse_shape(const char *s, const char *what)
{
	int v = hm_tool_shape_from_name(s);

	if (v < 0)
		cli_usage_error("%s must be chat, responses, mcp, anthropic, harmony or auto, not '%s'", what, s);
	return (hm_tool_shape)v;
}

int
main(int argc, char **argv)
{
	enum { O_CALL_ID = 256, O_CHECK, O_FROM, O_NAME, O_NAMESPACE, O_PRETTY, O_SCHEMA, O_TO,
		O_SCHEMA_DIR, O_STRICT, O_BUILTIN, O_NO_ANALYSIS, O_TOOL_CHOICE, O_FORMATS };
	static const struct option longopts[] = {
		{ "builtin", required_argument, NULL, O_BUILTIN },
		{ "call-id", required_argument, NULL, O_CALL_ID },
		{ "check", required_argument, NULL, O_CHECK },
		{ "formats", required_argument, NULL, O_FORMATS },
		{ "from", required_argument, NULL, O_FROM },
		{ "help", no_argument, NULL, 'h' },
		{ "name", required_argument, NULL, O_NAME },
		{ "namespace", required_argument, NULL, O_NAMESPACE },
		{ "no-analysis", no_argument, NULL, O_NO_ANALYSIS },
		{ "pretty", no_argument, NULL, O_PRETTY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "schema", required_argument, NULL, O_SCHEMA },
		{ "schema-dir", required_argument, NULL, O_SCHEMA_DIR },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "to", required_argument, NULL, O_TO },
		{ "tool-choice", required_argument, NULL, O_TOOL_CHOICE },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const cmds[] = { "render", "convert", "calls", "result", "validate", "grammar" };
	struct tools_ctx ctx = { .opt = { .to = HM_TOOLS_AUTO, .ns = "functions" }, .status = CLI_OK };
	struct tools_ctx *tc = &ctx;
	cli_input in;
	int c, i, to_given = 0, pretty = 0, grammar_opt = 0;
	const char *from_arg = NULL, *to_arg = NULL;

	cli_init("harmony-tools");
	tc->opt.grammar = (hm_grammar_opts)HM_GRAMMAR_OPTS_INIT;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hqV", longopts, NULL)) != -1) {
		switch (c) {
		case O_CALL_ID: tc->opt.call_id = optarg; break;
		case O_CHECK: tc->opt.check = optarg; break;
		case O_BUILTIN:
			/* grammar's, as harmony-render's --builtin */
			if (strcmp(optarg, "browser") && strcmp(optarg, "python") &&
			    strcmp(optarg, "browser,python") && strcmp(optarg, "python,browser"))
				cli_usage_error("--builtin must be browser, python or browser,python, not '%s'", optarg);
			tc->opt.grammar.browser = strstr(optarg, "browser") != NULL;
			tc->opt.grammar.python = strstr(optarg, "python") != NULL;
			grammar_opt = 1;
			break;
		case O_FROM: from_arg = optarg; break;
		case O_NO_ANALYSIS: tc->opt.grammar.no_analysis = 1; grammar_opt = 1; break;
		case O_TOOL_CHOICE: tc->opt.grammar.tool_choice = optarg; grammar_opt = 1; break;
		case 'h':
			fputs(usage_text, stdout);
			return cli_finish(CLI_OK);
		case O_NAME: tc->opt.name = optarg; break;
		case O_NAMESPACE:
			if (!*optarg)
				cli_usage_error("--namespace must not be empty");
			tc->opt.ns = optarg;
			tc->opt.ns_given = 1;
			break;
		case O_PRETTY: pretty = 1; break;
		case 'q': tc->opt.quiet = 1; break;
		case O_SCHEMA: tc->opt.schema = optarg; break;
		case O_SCHEMA_DIR: cli_schema_dir(optarg, &tc->opt.schema_dirs, &tc->opt.nschema_dirs); break;
		case O_FORMATS: tc->opt.formats = cli_schema_formats(optarg); tc->opt.formats_given = 1; break;
		case O_STRICT: tc->opt.strict = 1; break;
		case O_TO: to_arg = optarg; break;
		case 'V':
			printf("harmony-tools %s\n", HM_VERSION);
			return cli_finish(CLI_OK);
		default:
			cli_bad_option(argv, c);
		}
	}
	if (optind >= argc)
		cli_usage_error("missing command (render, convert, calls, result, validate, grammar)");
	for (i = 0; i < 6 && strcmp(argv[optind], cmds[i]); i++)
		;
	if (i == 6)
		cli_usage_error("unknown command '%s'", argv[optind]);
	tc->opt.cmd = (enum cmd)i;
	optind++;
	/* grammar reads a request: --from is its dialect, --to the grammar's form */
	if (tc->opt.cmd == C_GRAMMAR) {
		if (from_arg && (int)(tc->opt.grammar.from = hm_dialect_from_name(from_arg)) < 0)
			cli_usage_error("--from must be harmony, chat, responses, anthropic or auto, not '%s'", from_arg);
		if (to_arg && (int)(tc->opt.grammar.form = hm_grammar_form_from_name(to_arg)) < 0)
			cli_usage_error("--to must be ebnf, gbnf, lark or structural-tag, not '%s'", to_arg);
		from_arg = to_arg = NULL;
	} else if (grammar_opt)
		cli_usage_error("--builtin, --no-analysis and --tool-choice go with grammar");
	if (from_arg)
		tc->opt.from = parse_shape(from_arg, "--from");
	if (to_arg) {
		tc->opt.to = parse_shape(to_arg, "--to");
		if (tc->opt.to == HM_TOOLS_AUTO)
			cli_usage_error("--to must name a shape, not auto");
		to_given = 1;
	}
	if (tc->opt.cmd == C_CONVERT && !to_given)
		cli_usage_error("convert needs --to");
	if (tc->opt.cmd != C_CONVERT && to_given)
		cli_usage_error("--to goes with convert");
	if (tc->opt.from != HM_TOOLS_AUTO && tc->opt.cmd != C_CONVERT && tc->opt.cmd != C_RENDER)
		cli_usage_error("--from goes with render and convert");
	if (tc->opt.check && tc->opt.cmd != C_CALLS)
		cli_usage_error("--check goes with calls");
	if (tc->opt.cmd == C_VALIDATE && !tc->opt.schema)
		cli_usage_error("validate needs --schema");
	if (tc->opt.schema && tc->opt.cmd != C_VALIDATE)
		cli_usage_error("--schema goes with validate");
	if ((tc->opt.schema_dirs || tc->opt.strict) && tc->opt.cmd != C_VALIDATE)
		cli_usage_error("--schema-dir and --strict go with validate");
	if (tc->opt.formats_given && tc->opt.cmd != C_VALIDATE &&
	    !(tc->opt.cmd == C_CALLS && tc->opt.check))
		cli_usage_error("--formats goes with validate and calls --check");
	if (tc->opt.cmd == C_RESULT && !tc->opt.name)
		cli_usage_error("result needs --name");
	if (tc->opt.name && (!*tc->opt.name || *tc->opt.name == '.' || tc->opt.name[strlen(tc->opt.name) - 1] == '.'))
		cli_usage_error("--name must name a tool (NAME or NAMESPACE.NAME), not '%s'", tc->opt.name);
	if (tc->opt.call_id && !*tc->opt.call_id)
		cli_usage_error("--call-id must not be empty");
	if (tc->opt.cmd != C_RESULT && (tc->opt.name || tc->opt.call_id))
		cli_usage_error("--name and --call-id go with result");

	tc->pretty_json = pretty && tc->opt.cmd != C_RENDER;

	if (cli_input_init(&in, argv + optind, argc - optind))
		return cli_finish(CLI_IO);
	switch (tc->opt.cmd) {
	case C_RENDER: run_render(tc, &in); break;
	case C_CONVERT: run_convert(tc, &in); break;
	case C_CALLS: run_calls(tc, &in); break;
	case C_RESULT: run_result(tc, &in); break;
	case C_VALIDATE: run_validate(tc, &in); break;
	case C_GRAMMAR: run_grammar(tc, &in); break;
	}
	cli_input_close(&in);
	hm_buf_free(&tc->out);
	free(tc->opt.schema_dirs);
	if (in.failed)
		tc->status = CLI_IO;
	return cli_finish(tc->status);
}
