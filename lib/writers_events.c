/*
 * writers_events.c - the events shape: each parser event as it is, one
 * NDJSON line ({"type","at",...}, the record's carried fields first); no
 * message is kept.
 */
#include <stddef.h>

#include "harmony.h"
#include "writers_int.h"

static void
ev_span(hm_buf *b, const char *key, hm_span s)
{
	if (!s.p)
		return;
	hm_buf_addc(b, ',');
	hm__w_key(b, key);
	hm__w_str(b, s.p, s.len);
}

static void
ev_event(hm_writer *w, const hm_event *ev)
{
	hm_buf *b = &w->out;

	hm__w_fields_prefix(w);
	hm_buf_add(b, "\"type\":", 7);
	hm__w_strz(b, hm_event_type_name(ev->type));
	hm_buf_add(b, ",\"at\":", 6);
	hm_buf_addu(b, ev->at);
	switch (ev->type) {
	case HM_EV_START:
		hm_buf_add(b, ",\"role\":", 8);
		hm__w_strz(b, ev->role);
		ev_span(b, "name", ev->name);
		ev_span(b, "recipient", ev->recipient);
		ev_span(b, "channel", ev->channel);
		ev_span(b, "content_type", ev->content_type);
		break;
	case HM_EV_DELTA:
		ev_span(b, "text", ev->text);
		break;
	case HM_EV_END:
		hm_buf_add(b, ",\"stop\":", 8);
		hm__w_strz(b, hm_stop_name(ev->stop));
		break;
	case HM_EV_WARNING:
		hm_buf_add(b, ",\"code\":\"F", 10);
		hm_buf_addu(b, (unsigned)ev->code);
		hm_buf_addc(b, '"');
		ev_span(b, "message", ev->text);
		break;
	case HM_EV_ERROR:
		ev_span(b, "message", ev->text);
		break;
	case HM_EV_DONE:
		hm_buf_adds(b, ev->truncated ? ",\"truncated\":true" : ",\"truncated\":false");
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	hm_buf_add(b, "}\n", 2);
}

static const struct hm_wkey ev_keys[] = {
	HM__W_KEY("at"), HM__W_KEY("code"), HM__W_KEY("name"), HM__W_KEY("role"),
	HM__W_KEY("stop"), HM__W_KEY("text"), HM__W_KEY("type"), HM__W_KEY("channel"),
	HM__W_KEY("message"), HM__W_KEY("recipient"), HM__W_KEY("truncated"),
	HM__W_KEY("content_type"), { 0, NULL },
};

const struct hm_wshape hm__w_events = {
	.name = "events",
	.keys = ev_keys,
	.flags = HM_WS_EVENTS,
	.event = ev_event,
};
