/*
 * store.c - --store=DIR: the turns harmony-parse wrote, for harmony-render
 * to find again (a Responses previous_response_id; a Chat or Anthropic
 * assistant turn that came back without its reasoning or its ids).
 *
 * The layout, plain files a shell can read (harmony-tokens decode FILE):
 *   DIR/responses/ID   the response's whole ids: its prompt, then its
 *                      completion to the end of its last message
 *                      (written when the record carries its prompt's ids);
 *                      a second line: its calls' ids, in order
 *   DIR/calls/ID       for each tool call id, the ids of the completion
 *                      that made the call
 *   DIR/tmp/           files being written
 * Each file is a line of decimal ids (and a responses file the line of
 * its call ids).  It is written under tmp/ and
 * renamed into place, so a reader sees a whole file or none, and any
 * number of workers may write at once (the same id twice: the last
 * rename wins, whole).  Nothing is changed once written; ids that are
 * not made of [A-Za-z0-9_-] (and at most 200 bytes) are not stored.
 * Expiry is the operator's: any file may be removed at any time (find
 * DIR -type f -mmin +1440 -delete); a response removed is then an
 * unknown previous_response_id, a call a turn rendered from its fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "store.h"

static const char *const subdirs[] = { "responses", "calls", "tmp" };

int
store_open(const char *dir)
{
	char p[4096];
	size_t i;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	for (i = 0; i < sizeof subdirs / sizeof subdirs[0]; i++) {
		if ((size_t)snprintf(p, sizeof p, "%s/%s", dir, subdirs[i]) >= sizeof p) {
			errno = ENAMETOOLONG;
			return -1;
		}
		if (mkdir(p, 0777) && errno != EEXIST)
			return -1;
	}
	return 0;
}

/* Whether key[0..n) can name a file: [A-Za-z0-9_-], 1 to 200 bytes. */
static int
key_ok(const char *key, size_t n)
{
	size_t i;

	if (!n || n > 200)
		return 0;
	for (i = 0; i < n; i++) {
		char c = key[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

/* Write a (then b) as one line of ids to DIR/SUB/KEY, through tmp/ and a rename. */
static void
put(const char *dir, const char *sub, const char *key, size_t klen, const uint32_t *a, size_t na,
    const uint32_t *b, size_t nb, const char *calls, size_t ncalls)
{
	char tmp[4096], dst[4096];
	FILE *f;
	size_t i;
	int ok;

	if (!key_ok(key, klen))
		return;
	snprintf(dst, sizeof dst, "%s/%s/%.*s", dir, sub, (int)klen, key);
	/* unique among workers (pid); one worker has one file open at a time */
	snprintf(tmp, sizeof tmp, "%s/tmp/%.*s.%ld", dir, (int)klen, key, (long)getpid());
	if (!(f = fopen(tmp, "w"))) {
		cli_warn(NULL, 0, "--store: %s: %s", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < na + nb; i++)
		fprintf(f, i ? " %u" : "%u", (unsigned)(i < na ? a[i] : b[i - na]));
	fputc('\n', f);
	if (calls) {
		for (i = 0; i < ncalls; i++, calls += strlen(calls) + 1)
			fprintf(f, i ? " %s" : "%s", calls);
		fputc('\n', f);
	}
	ok = !ferror(f);
	if (fclose(f) || !ok || rename(tmp, dst)) {
		cli_warn(NULL, 0, "--store: %s: %s", dst, strerror(errno));
		unlink(tmp);
	}
}

void
store_turn(void *ctx, const hm_turn *t)
{
	const char *dir = ctx, *c = t->call_ids;
	size_t i;

	for (i = 0; i < t->ncalls; i++, c += strlen(c) + 1)
		if (!key_ok(c, strlen(c)))
			return; /* ids of our own make: never */
	if (t->prompt)
		put(dir, "responses", t->id, t->id_len, t->prompt, t->nprompt, t->ids, t->nids,
		    t->call_ids, t->ncalls);
	for (i = 0, c = t->call_ids; i < t->ncalls; i++, c += strlen(c) + 1)
		put(dir, "calls", c, strlen(c), t->ids, t->nids, NULL, 0, NULL, 0);
}

hm_status
store_lookup(void *ctx, int kind, const char *key, size_t len, hm_ids *out, hm_buf *calls)
{
	const char *dir = ctx;
	char p[4096];
	FILE *f;
	hm_status st = HM_OK;
	unsigned long v;
	int ch, bad = 0;

	out->len = 0;
	if (!key_ok(key, len))
		return HM_EINPUT;
	snprintf(p, sizeof p, "%s/%s/%.*s", dir, kind == HM_LOOKUP_RESPONSE ? "responses" : "calls",
	    (int)len, key);
	if (!(f = fopen(p, "r"))) {
		if (errno != ENOENT)
			cli_warn(NULL, 0, "--store: %s: %s", p, strerror(errno));
		return HM_EINPUT;
	}
	/* the line of ids */
	while (st == HM_OK && !bad && (ch = fgetc(f)) != EOF && ch != '\n') {
		if (ch == ' ')
			continue;
		if (ch < '0' || ch > '9' || ungetc(ch, f) == EOF || fscanf(f, "%lu", &v) != 1 ||
		    v >= HM_N_TOKENS)
			bad = 1;
		else
			st = hm_ids_push(out, (uint32_t)v);
	}
	/* a responses file: the line of its call ids */
	if (calls)
		hm_buf_reset(calls);
	while (st == HM_OK && !bad && calls && (ch = fgetc(f)) != EOF && ch != '\n') {
		char b = ch == ' ' ? '\0' : (char)ch;

		if (ch == ' ' || ch == '_' || ch == '-' || (ch >= '0' && ch <= '9') ||
		    (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
			hm_buf_add(calls, &b, 1);
		else
			bad = 1;
		if (calls->oom)
			st = HM_ENOMEM;
	}
	if (calls && calls->len && st == HM_OK)
		hm_buf_add(calls, "", 1);
	if (ferror(f))
		bad = 1;
	fclose(f);
	if (st == HM_OK && bad) {
		/* not a file the store wrote: as if it were not there */
		cli_warn(NULL, 0, "--store: %s: not a line of token ids: left alone", p);
		out->len = 0;
		return HM_EINPUT;
	}
	return st;
}
