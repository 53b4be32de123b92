/*
 * response_format.c - structured output: a request's response format
 * (Chat's `response_format`, Responses' `text.format`) read into the
 * developer content, which renders it as the `# Response Formats`
 * section (render.c).
 */
#include <stdlib.h>
#include <string.h>

#include "dialect_int.h"

/* The format object of the request, or NULL; *where names it. */
static const hm_jv *
format_of(hm_dialect from, const hm_jv *top, const char **where)
{
	if (!top)
		return NULL;
	if (from == HM_DIALECT_CHAT) {
		*where = "response_format";
		return hm__jv_get(top, "response_format");
	}
	if (from == HM_DIALECT_RESPONSES) {
		*where = "text.format";
		return hm__jv_get(hm__jv_get(top, "text"), "format");
	}
	return NULL;
}

hm_status
hm__dl_response_format(conv *k, hm_dialect from, const hm_jv *top, hm_developer_content *d,
                       int *has)
{
	const char *where = "";
	const hm_jv *f = format_of(from, top, &where), *ty, *js, *name, *desc, *schema, *strict;

	*has = 0;
	if (hm__dl_is_null(f))
		return HM_OK;
	if (f->type != HM_JV_OBJECT)
		return hm__dl_fail_at(k, f, "%s: must be an object, not %s", where, hm__dl_a_type(f));
	ty = hm__jv_get(f, "type");
	if (hm__dl_streq(ty, "text"))
		return HM_OK;
	if (hm__dl_streq(ty, "json_object")) {
		if (!d)
			hm__dl_warn_at(k, f, "%s: json_object is not rendered: Harmony has no JSON mode "
			    "(ask for JSON in the instructions, or give a json_schema)", where);
		return HM_OK;
	}
	if (!hm__dl_streq(ty, "json_schema"))
		return hm__dl_fail_at(k, f, "%s: unknown type '%s' (text, json_object or json_schema)",
		    where, hm__dl_is_str(ty) ? ty->s : "?");
	/* Chat nests the format in json_schema; Responses has it in place. */
	js = from == HM_DIALECT_CHAT ? hm__jv_get(f, "json_schema") : f;
	if (!js || js->type != HM_JV_OBJECT)
		return hm__dl_fail_at(k, f, "%s: json_schema needs a `json_schema` object", where);
	name = hm__jv_get(js, "name");
	desc = hm__jv_get(js, "description");
	schema = hm__jv_get(js, "schema");
	strict = hm__jv_get(js, "strict");
	if (!hm__dl_is_str(name) || !name->len)
		return hm__dl_fail_at(k, js, "%s: json_schema needs a `name`", where);
	if (!hm__dl_is_null(desc) && !hm__dl_is_str(desc))
		return hm__dl_fail_at(k, desc, "%s: description must be a string, not %s", where,
		    hm__dl_a_type(desc));
	if (hm__dl_is_null(schema) || (schema->type != HM_JV_OBJECT && schema->type != HM_JV_TRUE &&
	    schema->type != HM_JV_FALSE))
		return hm__dl_fail_at(k, js, "%s: json_schema needs a `schema` object", where);
	if (!d) {
		if (strict && strict->type == HM_JV_TRUE)
			hm__dl_warn_at(k, strict, "%s: strict is not enforced by a prompt: the schema "
			    "is rendered for the model to follow, the answer is not constrained", where);
		*has = 1;
		return HM_OK;
	}
	if (hm__dl_set(k, &d->format_name, name->s, name->len) != HM_OK ||
	    (hm__dl_is_str(desc) && desc->len &&
	    hm__dl_set(k, &d->format_description, desc->s, desc->len) != HM_OK))
		return k->st;
	if (!(d->format_schema = hm__jv_copy(schema)))
		return hm__dl_bad(k, HM_ENOMEM);
	*has = 1;
	return HM_OK;
}

