/*
 * test_json_lax - the lenient grammar of the library's JSON reader
 * (HM_JV_LAX), which log records, id records and summary lines are read
 * in, against cJSON 1.7, which read them before it: on the same bytes both
 * take a value or both refuse it (but for a raw control character in a
 * string, which the lenient grammar now refuses there, as RFC 8259 does); a value taken is the same (types,
 * numbers, strings to their first NUL, members in order) and ends at the
 * same byte; a refusal is placed at the same byte (the column the id
 * reader reports).  The bytes: the record and id corpora of fixtures/fuzz,
 * the log of fixtures/parse/records, forms written here (nesting to 1001
 * levels, long numbers, byte order marks, escapes), random sequences of
 * JSON pieces, and seeded mutations of all of them.
 */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>

#include "json_val_int.h"
#include "unit.h"

static int
same_value(const cJSON *c, const hm_jv *v)
{
	const cJSON *e;
	size_t i = 0;

	switch (v->type) {
	case HM_JV_NULL:
		return cJSON_IsNull(c);
	case HM_JV_TRUE:
		return cJSON_IsTrue(c);
	case HM_JV_FALSE:
		return cJSON_IsFalse(c);
	case HM_JV_NUMBER:
		return cJSON_IsNumber(c) && c->valuedouble == v->num &&
		    !signbit(c->valuedouble) == !signbit(v->num);
	case HM_JV_STRING:
		return cJSON_IsString(c) && strlen(c->valuestring) == v->len &&
		    !memcmp(c->valuestring, v->s, v->len);
	case HM_JV_ARRAY:
	case HM_JV_OBJECT:
		if (v->type == HM_JV_ARRAY ? !cJSON_IsArray(c) : !cJSON_IsObject(c))
			return 0;
		cJSON_ArrayForEach(e, c) {
			if (i >= v->n || !same_value(e, v->v[i]))
				return 0;
			if (v->type == HM_JV_OBJECT && (strlen(e->string) != v->klen[i] ||
			    memcmp(e->string, v->k[i], v->klen[i])))
				return 0;
			i++;
		}
		return i == v->n;
	}
	return 0;
}

static size_t cases, differ;

/*
 * The first raw control character inside a string of b[0..n), or n: the
 * one place the lenient grammar parts from cJSON's on purpose (cJSON took
 * it, and a NUL cut the string; RFC 8259 has it an error).  Looked at only
 * where cJSON read past it, so the strings are the grammar's.
 */
static size_t
raw_control(const char *b, size_t n)
{
	size_t i;
	int instr = 0;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)b[i];

		if (!instr)
			instr = c == '"';
		else if (c < 0x20)
			return i;
		else if (c == '\\')
			i++;
		else if (c == '"')
			instr = 0;
	}
	return n;
}

/* One input read both ways; 0 when they disagree (the first few said). */
static int
one(const char *b, size_t n)
{
	const char *end = NULL, *ep;
	size_t pos = 0, at = 0, ctl;
	char msg[64];
	cJSON *c = cJSON_ParseWithLengthOpts(b, n, &end, 0);
	hm_jv *v;
	int ok;

	ep = cJSON_GetErrorPtr();
	v = hm__jv_parse_ex(b, n, &pos, 0, HM_JV_LAX, msg, sizeof msg, &at);
	if (!v && !msg[0]) {
		/* out of memory: nothing to compare */
		cJSON_Delete(c);
		return 1;
	}
	ctl = raw_control(b, n);
	if (ctl < (c ? (size_t)(end - b) : ep ? (size_t)(ep - b) : 0))
		ok = !v && at == ctl; /* refused at the control character */
	else
		ok = !c == !v && (c ? same_value(c, v) && (size_t)(end - b) == pos :
		    !n || (ep && (size_t)(ep - b) == at));
	cases++;
	if (!ok && differ++ < 5)
		fprintf(stderr, "differ (cJSON %s, end/error %ld; lenient %s, %zu): %.*s\n",
		    c ? "value" : "error", c ? (long)(end - b) : ep ? (long)(ep - b) : -1L,
		    v ? "value" : "error", v ? pos : at, (int)(n < 120 ? n : 120), b);
	cJSON_Delete(c);
	hm__jv_free(v);
	return ok;
}

static uint64_t seed = 0x2545F4914F6CDD1Dull;

static unsigned
rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed >> 32) % n;
}

/* s[0..n) and k mutations of it: bytes changed, dropped, put in, the end cut. */
static void
with_mutations(const char *s, size_t n, int k)
{
	static const char pieces[] = "{}[]\":,\\u0123456789-+.eE \t\n\r\v\x01\xEF\xBB\xBF\x80ntrufalsDdcF";
	char *m = malloc(n + 8);
	int i, op, ops;

	one(s, n);
	for (i = 0; m && i < k; i++) {
		size_t len = n, p;

		memcpy(m, s, n);
		for (ops = 1 + (int)rnd(3); ops-- > 0;) {
			char ch = pieces[rnd(sizeof pieces - 1)];

			op = (int)rnd(4);
			if (op == 0 && len)
				m[rnd((unsigned)len)] = ch;
			else if (op == 1 && len) {
				p = rnd((unsigned)len);
				memmove(m + p, m + p + 1, len - p - 1);
				len--;
			} else if (op == 2 && len < n + 4) {
				p = rnd((unsigned)len + 1);
				memmove(m + p + 1, m + p, len - p);
				m[p] = ch;
				len++;
			} else if (op == 3)
				len = rnd((unsigned)len + 1);
		}
		one(m, len);
	}
	free(m);
}

/* Each line of a file (and the whole of a small one), with k mutations each. */
static size_t
file_lines(const char *path, int k)
{
	size_t n, i, start = 0, lines = 0;
	char *b = unit_slurp(path, &n);

	if (!b)
		return 0;
	if (n < 4096)
		with_mutations(b, n, k);
	for (i = 0; i <= n; i++)
		if (i == n || b[i] == '\n') {
			if (i > start && i - start < 8192) {
				with_mutations(b + start, i - start, k);
				lines++;
			}
			start = i + 1;
		}
	free(b);
	return lines;
}

static size_t
dir_lines(const char *dir, int k)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t lines = 0;
	char path[1024];

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
			lines += file_lines(path, k);
		}
	closedir(d);
	return lines;
}

/* Nesting of depth levels: arrays, objects, and unclosed. */
static void
nested(int depth)
{
	size_t n = (size_t)depth * 6 + 2, i;
	char *b = malloc(n), *p = b;

	if (!b)
		return;
	for (i = 0; i < (size_t)depth; i++)
		*p++ = '[';
	for (i = 0; i < (size_t)depth; i++)
		*p++ = ']';
	one(b, (size_t)(p - b));
	one(b, (size_t)depth);
	for (p = b, i = 0; i < (size_t)depth; i++)
		memcpy(p, "{\"a\":", 5), p += 5;
	*p++ = '1';
	for (i = 0; i < (size_t)depth; i++)
		*p++ = '}';
	one(b, (size_t)(p - b));
	free(b);
}

int
main(void)
{
	static const char *const forms[] = {
		"{\"tokens\":[1,2,3]}", "  {\"a\":1} trailing", "{x}", "[1,]", "{\"a\":1,}", "{,}",
		"\xEF\xBB\xBF{\"records\":1}", "\xEF\xBB\xBF{}", "\xEF\xBB\xBF" "1", "\v\f{\"a\":\x01[1]}",
		"{\"a\\u0000b\":\"x\\u0000y\"}", "{\"a\":\"\\uD83D\\uDE00\",\"b\":\"\\u00e9\\u4e2d\"}",
		"{\"a\":\"\\uDE00\"}", "{\"a\":\"\\uD83Dx\"}", "{\"a\":\"\\uD83D\\u0041\"}", "{\"a\":\"\\uZZZZ\"}",
		"{\"a\":\"\\u12\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\", "{\"a\":\"abc", "{\"a\":\"\x80\xff\x01\"}",
		"[01,-0,-.5,1.,1e5,1e,1e+,2.5e-3,1e400,-1e400,1e-400,+1]", "[-]", "[--1]", "[1-2]", "[1.5.3]",
		"[nul]", "[tru,e]", "[null,true,false]", "{\"a\" 1}", "{\"a\":}", "{\"a\":1 \"b\":2}", "",
		"   ", "{", "[", "{\"", "{\"a\"", "{\"a\":", "{\"a\":1", "[1", "[1,", "{\"records\":1}\n{}",
		"[111111111111111111111111111111111111111111111111111111111111111111111111]",
		"[123456789012345,1234567890123456,99999999999999999999,-000123,0000]",
	};
	static const char *const pieces[] = {
		"{", "}", "[", "]", ",", ":", "\"a\"", "\"tokens\"", "\"\\u0041\"", "\"\\uD83D\\uDE00\"",
		"\"\\uDE00\"", "\"\\\"", "\"\\x\"", "\"\\u00\"", "\"\\u0000z\"", "1", "-1", "01", "1.5",
		"-", ".5", "1e", "1e+5", "2.5e-3", "true", "false", "null", "nul", " ", "\t", "\n", "\v",
		"\x7f", "\xc3\xa9", "\xff", "\"ab\ncd\"", "\"", "\\", "-0", "1e400", "-.e", "+1",
		"123456789012345678", "\x01",
	};
	size_t i, lines = 0;
	char buf[512];
	int depth;

	for (i = 0; i < sizeof forms / sizeof forms[0]; i++)
		with_mutations(forms[i], strlen(forms[i]), 200);
	for (depth = 998; depth <= 1002; depth++)
		nested(depth);
	nested(127);
	nested(128);
	for (i = 0; i < 60000; i++) {
		size_t n = 0, k = 1 + rnd(24);

		if (rnd(10) < 6)
			buf[n++] = '{';
		while (k-- > 0) {
			const char *p = pieces[rnd(sizeof pieces / sizeof pieces[0])];
			size_t pl = strlen(p);

			memcpy(buf + n, p, pl);
			n += pl;
		}
		one(buf, n);
	}
	lines += dir_lines("fixtures/fuzz/records", 40);
	lines += dir_lines("fixtures/fuzz/ids", 40);
	lines += file_lines("fixtures/parse/records/log.ndjson", 40);
	CHECK_MSG(lines >= 10, "the corpora of fixtures/ were not found (%zu lines): run from the top directory", lines);
	CHECK_MSG(cases > 100000, "%zu inputs only", cases);
	CHECK_MSG(differ == 0, "%zu of %zu inputs read differently", differ, cases);
	return UNIT_DONE("test_json_lax");
}
