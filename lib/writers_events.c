/*
 * writers_events.c - the events shape: each parser event as it is, one
 * NDJSON line ({"type","at",...}, the record's carried fields first); no
 * message is kept.
 */
#include <stddef.h>

#include "harmony.h"
#include "writers_int.h"

static void
ev_span(int *nomem, hm_buf *b, const char *key, hm_span s)
{
	if (!s.p)
		return;
	hm__putc(nomem, b, ',');
	hm__w_key(nomem, b, key);
	hm__json_str(nomem, b, s.p, s.len);
}

static void
ev_event(hm_writer *w, const hm_event *ev)
{
	hm_buf *b = &w->out;

	hm__w_fields_prefix(w);
	hm__add(&w->nomem, b, "\"type\":", 7);
	hm__w_strz(&w->nomem, b, hm_event_type_name(ev->type));
	hm__add(&w->nomem, b, ",\"at\":", 6);
	hm__addu(&w->nomem, b, ev->at);
	switch (ev->type) {
	case HM_EV_START:
		hm__add(&w->nomem, b, ",\"role\":", 8);
		hm__w_strz(&w->nomem, b, ev->role);
		ev_span(&w->nomem, b, "name", ev->name);
		ev_span(&w->nomem, b, "recipient", ev->recipient);
		ev_span(&w->nomem, b, "channel", ev->channel);
		ev_span(&w->nomem, b, "content_type", ev->content_type);
		break;
	case HM_EV_DELTA:
		ev_span(&w->nomem, b, "text", ev->text);
		break;
	case HM_EV_END:
		hm__add(&w->nomem, b, ",\"stop\":", 8);
		hm__w_strz(&w->nomem, b, hm_stop_name(ev->stop));
		break;
	case HM_EV_WARNING:
		hm__add(&w->nomem, b, ",\"code\":\"F", 10);
		hm__addu(&w->nomem, b, (unsigned)ev->code);
		hm__putc(&w->nomem, b, '"');
		ev_span(&w->nomem, b, "message", ev->text);
		break;
	case HM_EV_ERROR:
		ev_span(&w->nomem, b, "message", ev->text);
		break;
	case HM_EV_DONE:
		hm__adds(&w->nomem, b,
		    ev->truncated ? ",\"truncated\":true" : ",\"truncated\":false");
		break;
	case HM_EV_UNKNOWN:
		break;
	}
	hm__add(&w->nomem, b, "}\n", 2);
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
