/*
 * json_schema_int.h - the JSON Schema validator's parts shared inside the
 * library: the regular expressions of `pattern` (json_regex.c), checking
 * a parsed value against a parsed schema (json_schema.c, for tools_io.c),
 * and the validator's own files: its keywords (json_schema.c), its
 * references and documents (json_schema_ref.c), formats
 * (json_schema_fmt.c), numbers (json_schema_num.c) and the bundled
 * metaschemas (json_schema_meta.c, written by tools/gen_metaschemas.py).
 */
#ifndef HM_JSONSCHEMA_INT_H
#define HM_JSONSCHEMA_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"
#include "json_val_int.h"

/*
 * A compiled ECMA-262 regular expression, the subset without lookaround
 * and backreferences (see libharmony(3), "JSON Schema"), matched by a
 * Thompson NFA: time is at most (program size) x (text length) steps and
 * memory the program's size, whatever the pattern and the text, so a
 * hostile pattern or value cannot make it backtrack for ever.  The same
 * program also runs as a DFA built as texts need it (a table look-up an
 * ASCII byte; at most 256 states, some 300 bytes each, kept with the
 * regex), the NFA taking over where the DFA cannot go.
 */
typedef struct hm_re hm_re;

/*
 * Compile pat[0..len) (UTF-8) into *out: HM_EINPUT with err[0..errsz)
 * saying what is wrong or unsupported; HM_ENOMEM.
 */
hm_status hm__re_compile(const char *pat, size_t len, hm_re **out, char *err,
                         size_t errsz);
/*
 * 1 when re matches somewhere in s[0..len) (UTF-8), 0 when not; out of
 * memory sets *nomem (the caller's flag) and is 0.
 */
int hm__re_search(const hm_re *re, const char *s, size_t len, int *nomem);
/*
 * The same by the NFA alone: hm__re_search runs the pattern as a DFA,
 * built as texts need it (json_regex.c), where the pattern and the text
 * allow; test_regex holds the two to the same answers.
 */
int hm__re_search_nfa(const hm_re *re, const char *s, size_t len, int *nomem);
void hm__re_free(hm_re *re);
/*
 * Whether pat[0..len) is an ECMA-262 pattern (the `regex` format): one
 * that compiles, or that is refused only for what the matcher does not
 * run (backreferences, lookaround); out of memory sets *nomem and is 0.
 */
int hm__re_valid(const char *pat, size_t len, int *nomem);

/* Whether JSON number text s[0..n) is a whole number, exactly (1.0, 1e400: yes). */
int hm__json_is_integer(const char *s, size_t n);

/*
 * Check value against schema (both parsed trees; schema borrowed).  Returns
 * HM_OK (valid), HM_EINPUT (not valid, or the schema cannot be used:
 * *problems counts the problems, msg gets the first few, "; "-separated,
 * each "PATH: KEYWORD: what"), HM_ENOMEM.
 */
hm_status hm__schema_check_jv(const hm_jv *schema, const hm_jv *value,
                              size_t *problems, hm_buf *msg);

/* ------------------------------------------------------------ the validator's parts */

/* A bundled metaschema: its URI (no fragment) and its JSON text in pieces. */
struct hm__metaschema {
	const char *uri;
	const char *const *text; /* NULL-terminated */
};
/* The bundled metaschema named uri[0..n) (an empty fragment allowed), or NULL. */
const struct hm__metaschema *hm__metaschema_find(const char *uri, size_t n);

/* Length of a URI's scheme and colon ("http:"), or 0 for a relative reference (json_schema_ref.c). */
size_t hm__uri_scheme_len(const char *u, size_t n);

/*
 * Whether s[0..n) is a valid f (format name): 1 yes, 0 no, -1 a format
 * this validator does not know (an annotation only); out of memory sets
 * *nomem and is 0.
 */
int hm__schema_format(const char *f, const char *s, size_t n, int *nomem);

/* An open-addressing map from pointers to pointers. */
typedef struct hm__ptrmap {
	const void **k;
	void **v;
	size_t cap, n;
} hm__ptrmap;
void **hm__ptrmap_find(const hm__ptrmap *m, const void *key);
hm_status hm__ptrmap_put(hm__ptrmap *m, const void *key, void *val);
void hm__ptrmap_free(hm__ptrmap *m);

/* The vocabularies a resource's keywords come from (2019-09 and later). */
#define HM__VOC_APPLICATOR 1u
#define HM__VOC_VALIDATION 2u
#define HM__VOC_UNEVALUATED 4u
#define HM__VOC_FORMAT 8u      /* format-assertion: formats assert */
#define HM__VOC_DEFAULT 7u

/*
 * A schema resource: a document, or a subschema with its own `$id`.  Its
 * draft and vocabularies decide which keywords apply inside it.
 */
typedef struct hm__res {
	const hm_jv *node;
	char *uri;          /* absolute, no fragment ("" for a root without $id) */
	int draft;          /* 4, 6, 7, 2019, 2020 */
	unsigned voc;       /* HM__VOC_* */
	int formats;        /* `format` asserts */
} hm__res;

/* One reference keyword: its absolute target and, once found, the node. */
typedef struct hm__ref {
	char *uri;
	const hm_jv *target;
	int tried;
	char *why;            /* NULL, or why the document it names could not be used */
} hm__ref;

typedef struct hm__problem {
	size_t path, keyword, msg; /* offsets into the problem text */
} hm__problem;

struct hm_schema {
	char doc_err[200];    /* why the last document read for a reference was not used ("" none) */
	hm_jv *root;          /* owned, unless borrowed */
	int borrowed;
	int opt_draft;        /* the draft asked for (0: by $schema) */
	int opt_formats;      /* 1, 0, HM_FORMATS_DRAFT */
	int strict;           /* unknown keywords are errors */
	int formats_plain;    /* the root has no $schema (meta_check allows draft-07's forms) */
	int no_meta;          /* a metaschema: not checked against its draft's */
	/* a document added for references checked against its draft's
	 * metaschema (json_schema_load.c's, set when the schema is read) */
	hm_status (*check_doc)(hm_schema *s, const hm_jv *doc, hm_error *err);
	size_t max_steps;
	hm_jv **docs;         /* documents added or read (owned) */
	size_t ndocs;
	struct hm__idx *idx;  /* documents, $id, $anchor, $dynamicAnchor, by URI */
	size_t nidx, capidx;
	hm__res **res;        /* resources; res[0] the root's */
	size_t nres;
	hm__ptrmap resof;     /* schema object -> the hm__res it is in */
	int track;            /* resources differ or refs are dynamic: look nodes up */
	hm__ptrmap refs;      /* schema object -> hm__ref of its $ref */
	hm__ptrmap drefs;     /* schema object -> hm__ref of $dynamicRef/$recursiveRef */
	hm__ptrmap res_re;    /* pattern string -> hm_re (compiled on first use) */
	hm__ptrmap kws;       /* schema node -> it compiled (json_schema.c's kw, on first use) */
	void *root_kw;        /* the root's, in kws */
	char **dirs;          /* URI prefix, directory, ... (owned) */
	size_t ndirs;
	hm_buf text;          /* the problems' strings, NUL-separated */
	hm__problem *probs;
	size_t nprobs, nkept;
	/*
	 * The schema's one out-of-memory flag: set where an allocation fails
	 * while it is built, indexed, resolved or used to validate (the
	 * validation's buffers name it too); each public entry point clears
	 * it first and checks it on the way out.
	 */
	int nomem;
};

/*
 * References and documents (json_schema_ref.c).  ref resolved against
 * base (RFC 3986 section 5.2, dot segments removed, an empty fragment
 * dropped) into *out (malloc'd); HM_ENOMEM sets *nomem.
 */
hm_status hm__uri_resolve(int *nomem, const char *base, const char *ref, size_t reflen,
                          char **out);
/*
 * Add doc (owned by the caller or s->docs) under uri and index it: its
 * resources, $id, anchors and references.  draft: the draft of a
 * document without `$schema` of its own.  HM_EINPUT (err) when its
 * `$schema` is unknown or needs a vocabulary not known; HM_ENOMEM.
 */
hm_status hm__schema_add_doc(hm_schema *s, const hm_jv *doc, const char *uri, int draft,
                             hm_error *err);
/*
 * The node absolute URI u names, reading the document from a bundled
 * metaschema or a mapped directory when it is not known yet; NULL when
 * none (*nomem set when out of memory).
 */
const hm_jv *hm__schema_resolve(hm_schema *s, const char *u);
/* The node idx names by uri[0..len) exactly, or NULL. */
const hm_jv *hm__schema_idx_find(const hm_schema *s, const char *uri, size_t len);
/* The resource node sch is in (s->res[0] when not indexed). */
const hm__res *hm__schema_res_of(const hm_schema *s, const hm_jv *sch);
/* Members whose values are data, not schemas: not indexed. */
int hm__schema_data_member(const char *k);
void hm__schema_refs_free(hm_schema *s);
/* json_schema.c for json_schema_load.c: the compiled nodes freed; a value
 * checked (problems kept in s); cut()'s length of a quoted piece; a
 * value's type as a word; the drafts a validating keyword is in (0: not one). */
void hm__schema_compiled_free(hm_schema *s);
hm_status hm__schema_run(hm_schema *s, const hm_jv *v);
int hm__schema_cut(const char *str, size_t n, size_t max);
const char *hm__schema_type_word(const hm_jv *v);
int hm__schema_keyword_drafts(const char *k, int *lo, int *hi);
/* The draft a document is read in: its $schema's (0: not a draft's own
 * metaschema), else the schema's (json_schema_ref.c). */
int hm__schema_doc_draft(const hm_schema *s, const hm_jv *doc);


/*
 * Numbers (json_schema_num.c), on the JSON text's decimal value
 * (hm__num_cmp: json_val_int.h, for hm__jv_equal).
 */
/*
 * Whether a is a multiple of m (m > 0), exactly (both texts NUL-terminated):
 * 1 or 0; -1 when the two have too many digits to tell at a bounded cost
 * (their digits' product past 4,000,000); -2 out of memory.
 */
int hm__num_multiple(const char *a, size_t an, const char *m, size_t mn);
/* A hash that numbers of the same value share. */
uint64_t hm__num_hash(const char *a, size_t an);
/* Whether a JSON number text is greater than zero. */
int hm__num_positive(const char *a, size_t an);

#endif
