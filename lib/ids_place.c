/*
 * ids_place.c - where a token falls in the Harmony structure of a token
 * stream, and one member of a JSON record; for `harmony-tokens diff`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf_int.h"
#include "harmony.h"
#include "json_val_int.h"

/* Set a field to a copy of s[0..n) (NULL: absent): HM_OK or HM_ENOMEM. */
static hm_status
setfield(hm_str *dst, const char *s, size_t n)
{
	free(dst->p);
	dst->p = NULL;
	dst->len = 0;
	if (!s)
		return HM_OK;
	if (!(dst->p = malloc(n + 1)))
		return HM_ENOMEM;
	memcpy(dst->p, s, n);
	dst->p[n] = '\0';
	dst->len = n;
	return HM_OK;
}

void
hm_place_free(hm_place *pl)
{
	setfield(&pl->role, NULL, 0);
	setfield(&pl->channel, NULL, 0);
	setfield(&pl->recipient, NULL, 0);
}

/*
 * The words of an unfinished header at ids[s..n) (s is its <|start|>):
 * the role is the text up to the first special token or blank, the
 * channel the text after <|channel|> up to the next special token.
 * HM_ENOMEM when out of memory: nomem is the one flag of this reading,
 * set by the appends to its scratch b and by the fields' copies.
 */
static hm_status
unfinished_header(const uint32_t *ids, size_t n, size_t s, hm_place *pl)
{
	hm_buf b = { 0 };
	size_t i, k, blen;
	const char *t;
	int nomem = 0;

	for (i = s + 1; i < n && !hm_is_special(ids[i]); i++) {
		t = hm_token_bytes(ids[i], &k);
		hm__add(&nomem, &b, t, k);
	}
	for (blen = 0; blen < b.len && b.p[blen] != ' ' && b.p[blen] != '\t' &&
	     b.p[blen] != '\n'; blen++)
		;
	if (setfield(&pl->role, blen ? b.p : NULL, blen) != HM_OK)
		nomem = 1;
	for (; i < n && ids[i] != HM_TOK_CHANNEL; i++)
		if (ids[i] == HM_TOK_MESSAGE)
			break;
	if (i < n && ids[i] == HM_TOK_CHANNEL) {
		hm_buf_reset(&b);
		for (i++; i < n && !hm_is_special(ids[i]); i++) {
			t = hm_token_bytes(ids[i], &k);
			hm__add(&nomem, &b, t, k);
		}
		if (setfield(&pl->channel, b.p ? b.p : "", b.len) != HM_OK)
			nomem = 1;
	}
	hm_buf_free(&b);
	return nomem ? HM_ENOMEM : HM_OK;
}

hm_status
hm_ids_place(const uint32_t *ids, size_t n, size_t index, hm_place *pl)
{
	hm_parser *p = hm_parser_new("auto", 0);
	size_t fed = 0, msgno = 0, start = 0, first_delta = (size_t)-1, after = 0;
	int done = 0, found = 0;
	hm_event ev;

	hm_place_free(pl);
	memset(pl, 0, sizeof *pl);
	pl->part = HM_PLACE_OUTSIDE;
	if (!p)
		return HM_ENOMEM;
	/*
	 * Feed in slices and pull after each, so the event queue stays short,
	 * and stop as soon as the message holding index has ended.
	 */
	while (!done && !found) {
		if (fed < n) {
			size_t k = n - fed < 512 ? n - fed : 512;

			if (hm_parser_feed(p, ids + fed, k) != HM_OK) {
				hm_parser_free(p);
				return HM_ENOMEM;
			}
			fed += k;
		} else {
			hm_parser_finish(p);
		}
		while (!found && hm_parser_next(p, &ev)) {
			if (ev.type == HM_EV_ERROR && ev.code == HM_ENOMEM) {
				hm_parser_free(p);
				return HM_ENOMEM;
			}
			switch (ev.type) {
			case HM_EV_START:
				if (ev.at > index) {
					found = 1;      /* before this message */
					break;
				}
				msgno++;
				start = (size_t)ev.at;
				first_delta = (size_t)-1;
				pl->message = msgno;
				if (setfield(&pl->role, ev.role, ev.role ? strlen(ev.role) : 0) != HM_OK ||
				    setfield(&pl->channel, ev.channel.p, ev.channel.len) != HM_OK ||
				    setfield(&pl->recipient, ev.recipient.p, ev.recipient.len) != HM_OK) {
					hm_parser_free(p);
					hm_place_free(pl);
					return HM_ENOMEM;
				}
				break;
			case HM_EV_DELTA:
				if (first_delta == (size_t)-1)
					first_delta = (size_t)ev.at;
				break;
			case HM_EV_END: {
				int stop = ev.stop == HM_STOP_END || ev.stop == HM_STOP_RETURN ||
				           ev.stop == HM_STOP_CALL;
				/* a stop token is the message's last; otherwise at is past it */
				size_t last = stop ? (size_t)ev.at : (size_t)ev.at - 1, cs, i;

				if (!stop && ev.at == 0)
					break;  /* an empty message before any token */
				after = last + 1;
				if (index > last)
					break;
				found = 1;
				if (stop && index == last) {
					pl->part = HM_PLACE_STOP;
					break;
				}
				/*
				 * The content starts after the header's <|message|>.
				 * Without one, text with no header at all is content;
				 * else the header ends where the content was found
				 * (a delta may come late, when text was held).
				 */
				for (i = start; i <= last && ids[i] != HM_TOK_MESSAGE; i++)
					;
				if (i <= last)
					cs = i + 1;
				else if (ids[start] != HM_TOK_START && ids[start] != HM_TOK_CHANNEL)
					cs = start;
				else
					cs = first_delta;
				pl->part = index < cs ? HM_PLACE_HEADER : HM_PLACE_CONTENT;
				break;
			}
			case HM_EV_DONE:
				done = 1;
				break;
			default:
				break;
			}
		}
	}
	hm_parser_free(p);
	if (pl->part != HM_PLACE_OUTSIDE)
		return HM_OK;
	/* in no finished message: maybe a header the stream ends inside */
	pl->message = msgno;
	hm_place_free(pl);
	if (!found && index < n) {
		size_t i, s = (size_t)-1;

		for (i = after; i <= index; i++)
			if (ids[i] == HM_TOK_START)
				s = i;
		if (s != (size_t)-1) {
			for (i = s; i < n && ids[i] != HM_TOK_MESSAGE; i++)
				;
			if (i == n) {
				pl->part = HM_PLACE_HEADER;
				pl->message = msgno + 1;
				pl->unfinished = 1;
				return unfinished_header(ids, n, s, pl);
			}
		}
	}
	return HM_OK;
}

hm_status
hm_record_field(const char *buf, size_t len, const char *key, char **val,
                hm_error *err)
{
	char msg[120];
	size_t errpos = 0;
	hm_jv *root, *v;
	hm_buf b = { 0 };
	hm_status st;
	int nomem = 0;

	*val = NULL;
	msg[0] = '\0';
	while (errpos < len && (buf[errpos] == ' ' || buf[errpos] == '\t' ||
	       buf[errpos] == '\r' || buf[errpos] == '\n'))
		errpos++;
	if (errpos == len || buf[errpos] != '{') {
		if (err) {
			err->col = errpos + 1;
			err->index = (size_t)-1;
			snprintf(err->msg, sizeof err->msg,
			         "not a JSON object (looking for field \"%.64s\")", key);
		}
		return HM_EINPUT;
	}
	errpos = 0;
	st = hm__jv_read(buf, len, NULL, 1, HM_JV_NUMTEXT, &root, msg, sizeof msg, &errpos);
	if (st == HM_ENOMEM)
		return st;
	if (st != HM_OK) {
		if (err) {
			err->col = errpos + 1;
			err->index = (size_t)-1;
			snprintf(err->msg, sizeof err->msg, "not a JSON object: %s", msg);
		}
		return HM_EINPUT;
	}
	if (!hm__jv_is(root, HM_JV_OBJECT) || !(v = hm__jv_get(root, key))) {
		if (err) {
			err->col = 1;
			err->index = (size_t)-1;
			snprintf(err->msg, sizeof err->msg, hm__jv_is(root, HM_JV_OBJECT) ?
			         "no field \"%.64s\"" : "not a JSON object (looking for field \"%.64s\")",
			         key);
		}
		hm__jv_free(root);
		return HM_EINPUT;
	}
	/* the member read, given twice: an error, as in the record readers */
	if (hm__jv_count(root, key) > 1) {
		if (err) {
			err->col = 1;
			err->index = (size_t)-1;
			snprintf(err->msg, sizeof err->msg, "duplicate member \"%.64s\" (the one "
			    "read: which of them is meant cannot be told)", key);
		}
		hm__jv_free(root);
		return HM_EINPUT;
	}
	hm__jv_write_to(&nomem, &b, v);
	hm__jv_free(root);
	if (nomem || !b.p) {
		hm_buf_free(&b);
		return HM_ENOMEM;
	}
	*val = b.p;
	return HM_OK;
}
