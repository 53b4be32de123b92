/*
 * grammar_int.h - the grammar writer's state, shared by the completion's
 * grammar (grammar.c) and JSON Schema to grammar rules (grammar_schema.c).
 *
 * One writer makes one grammar in one of three rule syntaxes: xgrammar's
 * EBNF, llama.cpp's GBNF and llguidance's Lark.  They differ in little:
 * how a rule is defined (`::=` or `:`), how a character class is written
 * (`[...]` or the regex `/[...]/`), how a bounded repetition is written
 * (`{m,n}` or `~ m..n`), the comment mark and the start rule's name; the
 * writer's helpers hide that, so the rules are made once.
 */
#ifndef HM_GRAMMAR_INT_H
#define HM_GRAMMAR_INT_H

#include <stddef.h>

#include "harmony.h"
#include "json_val_int.h"

/* What a schema asked for that its rules do not hold (one bit a keyword). */
enum {
	HM_GN_UNIQUE = 1u << 0,      /* uniqueItems */
	HM_GN_MULTIPLE = 1u << 1,    /* multipleOf */
	HM_GN_BOUNDS = 1u << 2,      /* minimum, maximum ... beyond the sign */
	HM_GN_FORMAT = 1u << 3,      /* format */
	HM_GN_NOT = 1u << 4,         /* not, if/then/else */
	HM_GN_ALLOF = 1u << 5,       /* allOf of more than one schema */
	HM_GN_PATTERN = 1u << 6,     /* a pattern its regex rules cannot write */
	HM_GN_PROPS = 1u << 7,       /* patternProperties, propertyNames, min/maxProperties, dependent* */
	HM_GN_CONTAINS = 1u << 8,    /* contains */
	HM_GN_ONEOF = 1u << 9,       /* oneOf's "exactly one" (held as anyOf) */
	HM_GN_ORDER = 1u << 10,      /* properties written in their declared order only */
	HM_GN_REF = 1u << 11,        /* a $ref outside the document: any value */
	HM_GN_EXTRA = 1u << 12,      /* properties not declared, allowed by default: not written */
	HM_GN_PATTERNS = 1u << 13,   /* a pattern was written (its classes narrowed) */
};

/* A node's rule, once made (the schema's nodes are named by pointer). */
typedef struct hm_gmemo {
	const hm_jv *node; /* NULL: a free slot */
	unsigned id;       /* its rule is r<id> */
} hm_gmemo;

typedef struct hm_gw {
	hm_grammar_form form;
	int nomem;           /* the one out-of-memory flag of the writer's buffers */
	hm_buf rules;        /* the rules made so far, one a line */
	unsigned next;       /* the next rule number */
	unsigned notes;      /* HM_GN_* bits over every schema written */
	unsigned have;       /* which shared rules (HM_GR_*) are already in rules */
	const hm_jv *doc;    /* the schema document $ref resolves in */
	hm_gmemo *memo;      /* open addressing by node pointer */
	size_t memocap, memon;
	unsigned depth;      /* nesting of schema_rule, bounded */
	hm_buf tmp;          /* scratch for one literal's JSON text */
	hm_buf body[65];     /* a rule body being written, one a nesting level (reused) */
} hm_gw;

/* Shared rules, written once when first used. */
enum {
	HM_GR_WS = 1u << 0,
	HM_GR_STR = 1u << 1,
	HM_GR_NUM = 1u << 2,
	HM_GR_INT = 1u << 3,
	HM_GR_VAL = 1u << 4,
	HM_GR_TEXT = 1u << 5,
	HM_GR_CHR = 1u << 6,
};

/* The writer's syntax pieces. */
void hm__gw_rule_begin(hm_gw *g, hm_buf *b, const char *name);
/* A rule named r<id>. */
void hm__gw_rule_begin_id(hm_gw *g, hm_buf *b, unsigned id);
/* The reference to rule r<id>. */
void hm__gw_ref(hm_gw *g, hm_buf *b, unsigned id);
/* A quoted literal of s[0..n) (UTF-8). */
void hm__gw_lit(hm_gw *g, hm_buf *b, const char *s, size_t n);
/* A literal of a JSON string's text: `"` s `"`, s escaped as JSON. */
void hm__gw_json_lit(hm_gw *g, hm_buf *b, const char *s, size_t n);
/*
 * A character class: body is the class's inside in the common syntax
 * (`^"\\\x00-\x1f`), written [body] or /[body]/.
 */
void hm__gw_class(hm_gw *g, hm_buf *b, const char *body, size_t n);
/* A special token (<|channel|>): by its text, or llguidance's token syntax. */
void hm__gw_special(hm_gw *g, hm_buf *b, const char *text);
/* Make a shared rule (HM_GR_*) if not made; its name. */
const char *hm__gw_shared(hm_gw *g, unsigned which);

/*
 * The rule for schema node s (a JSON Schema, or NULL: any JSON value) in
 * document doc: its number in *id.  HM_ENOMEM only; what cannot be held
 * is noted in g->notes and left looser.
 */
hm_status hm__gw_schema(hm_gw *g, const hm_jv *doc, const hm_jv *s, unsigned *id);
/* A value rule of any JSON value. */
hm_status hm__gw_any(hm_gw *g, unsigned *id);
void hm__gw_free(hm_gw *g);

#endif
