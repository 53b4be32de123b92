/*
 * test_schema_suite - the whole official JSON Schema Test Suite, run as a
 * new user would: drafts 2020-12 and 2019-09 from ../shared (the draft
 * chosen by each schema's own `$schema`), drafts 7, 6 and 4 from Debian's
 * json-schema-test-suite package (no `$schema` there: the draft is given).
 * Remote references resolve from the suite's remotes/ directory through
 * the options' URI-to-directory map, nothing fetched.
 *
 * Every required test (the files directly in a draft's directory) must
 * pass, and so must the optional files listed in OPTIONAL below (formats
 * asserted for optional/format/).  A line per draft and part on standard
 * output: "suite DRAFT PART PASSED/TOTAL".  A test listed in
 * fixtures/jsonschema/suite-gaps.txt (FILE|GROUP|TEST, a tab, the reason;
 * GROUP and TEST may be * for all) is run all the same and counted as
 * skipped with its reason when it fails; a test listed by name that
 * passes is a failure (the list must shrink as the gaps close).  A suite that is not
 * there is skipped, with the reason, never counted as passed.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harmony.h"
#include "json_val_int.h"
#include "unit.h"

#define SHARED "../shared/json-schema-test-suite"
#define DEBIAN "/usr/share/json-schema-test-suite"
#define GAPS "fixtures/jsonschema/suite-gaps.txt"

static int unit_skip;
static char *gaps;

typedef struct part {
	const char *root;   /* the suite: tests/ and remotes/ under it */
	const char *dir;    /* the draft's directory under tests/ */
	hm_schema_draft draft;
} part;

static const part PARTS[] = {
	{ SHARED, "draft2020-12", HM_DRAFT_AUTO },
	{ SHARED, "draft2019-09", HM_DRAFT_AUTO },
	{ DEBIAN, "draft7", HM_DRAFT_7 },
	{ DEBIAN, "draft6", HM_DRAFT_6 },
	{ DEBIAN, "draft4", HM_DRAFT_4 },
};

/* The optional files that must pass too (under each draft's optional/). */
static const char *const OPTIONAL[] = {
	"bignum.json", "ecmascript-regex.json", "non-bmp-regex.json", "float-overflow.json",
	"zeroTerminatedFloats.json", "format-assertion.json", "format.json", NULL,
};

static char *
to_text(const hm_jv *v)
{
	hm_buf b = {0};

	hm__jv_write(&b, v);
	hm_buf_addc(&b, '\0');
	return b.oom ? NULL : b.p;
}

/* The reason fixtures/jsonschema/suite-gaps.txt gives for a test, or NULL. */
static const char *
gap_reason(const char *file, const char *group, const char *test, char *why, size_t n,
           int *exact)
{
	char key[1200];
	const char *p, *e;
	size_t kl;

	if (!gaps)
		return NULL;
	for (int whole = 0; whole < 3; whole++) {
		/* FILE|GROUP|TEST, FILE|GROUP|*, FILE|*|* */
		snprintf(key, sizeof key, "%s|%s|%s\t", file, whole > 1 ? "*" : group,
		    whole ? "*" : test);
		kl = strlen(key);
		for (p = gaps; (p = strstr(p, key)); p += kl)
			if (p == gaps || p[-1] == '\n') {
				e = strchr(p + kl, '\n');
				snprintf(why, n, "%.*s", (int)(e ? (size_t)(e - p - kl) : strlen(p + kl)),
				    p + kl);
				*exact = !whole;
				return why;
			}
	}
	return NULL;
}

/* Run one suite file; counts into *passed / *total. */
static void
run_file(const part *pt, const char *rel, int formats, int *passed, int *total)
{
	char path[1024], remotes[600], err[200], why[300];
	const char *dirs[3];
	size_t len, g, t;
	char *buf;
	hm_jv *groups;

	snprintf(path, sizeof path, "%s/tests/%s/%s", pt->root, pt->dir, rel);
	snprintf(remotes, sizeof remotes, "%s/remotes", pt->root);
	dirs[0] = "http://localhost:1234/";
	dirs[1] = remotes;
	dirs[2] = NULL;
	if (!(buf = unit_slurp(path, &len))) {
		CHECK_MSG(0, "cannot read %s", path);
		return;
	}
	groups = hm__jv_parse_ex(buf, len, NULL, 1, HM_JV_NUMTEXT, err, sizeof err, NULL);
	CHECK_MSG(groups && groups->type == HM_JV_ARRAY, "%s: %s", path, err);
	for (g = 0; groups && g < groups->n; g++) {
		const hm_jv *grp = groups->v[g], *tests = hm__jv_get(grp, "tests");
		char *stext = to_text(hm__jv_get(grp, "schema"));
		hm_schema_opts o = HM_SCHEMA_OPTS_INIT;
		hm_schema *s = NULL;
		hm_error e;
		hm_status st;
		char file[700];

		snprintf(file, sizeof file, "%s/%s", pt->dir, rel);
		o.draft = pt->draft;
		o.formats = formats;
		o.dirs = dirs;
		e.msg[0] = '\0';
		st = stext ? hm_schema_new(stext, strlen(stext), &o, &s, &e) : HM_ENOMEM;
		for (t = 0; tests && t < tests->n; t++) {
			const hm_jv *tc = tests->v[t];
			char *dtext = to_text(hm__jv_get(tc, "data"));
			int want = hm__jv_get(tc, "valid")->type == HM_JV_TRUE, got = -1;
			const char *gd = hm__jv_getstr(grp, "description", NULL);
			const char *td = hm__jv_getstr(tc, "description", NULL);
			int exact = 0;
			const char *gap = gap_reason(file, gd, td, why, sizeof why, &exact);
			hm_error ve;
			hm_status vs;

			ve.msg[0] = '\0';
			if (st == HM_OK && dtext) {
				vs = hm_schema_validate(s, dtext, strlen(dtext), &ve);
				got = vs == HM_OK ? 1 : vs == HM_EINPUT ? 0 : -1;
				/* invalid means problems listed, valid means none */
				if (vs == HM_EINPUT && !hm_schema_nproblems(s))
					got = -1;
			}
			(*total)++;
			if (got == want && (!gap || !exact)) {
				(*passed)++;
				unit_pass++;
			} else if (got == want) {
				CHECK_MSG(0, "%s|%s|%s: listed in " GAPS " but passes", file, gd, td);
			} else if (gap) {
				unit_skip++;
				printf("  skipped %s|%s|%s: %s\n", file, gd, td, gap);
			} else {
				CHECK_MSG(0, "%s|%s|%s: expected %s, got %s (%s)", file, gd, td,
				    want ? "valid" : "invalid",
				    got < 0 ? "an error" : got ? "valid" : "invalid",
				    st == HM_OK ? ve.msg : e.msg);
			}
			free(dtext);
		}
		hm_schema_free(s);
		free(stext);
	}
	hm__jv_free(groups);
	free(buf);
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .json files of dir (sorted), into names; how many. */
static size_t
list_json(const char *dir, char ***names)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	*names = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 5 && !strcmp(e->d_name + l - 5, ".json")) {
			*names = realloc(*names, (n + 1) * sizeof **names);
			(*names)[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(*names, n, sizeof **names, name_cmp);
	return n;
}

static void
run_dir(const part *pt, const char *sub, int formats, int *passed, int *total)
{
	char dir[1024], rel[1100];
	char **names;
	size_t n = 0, i;

	snprintf(dir, sizeof dir, "%s/tests/%s%s%s", pt->root, pt->dir, *sub ? "/" : "", sub);
	n = list_json(dir, &names);
	for (i = 0; i < n; i++) {
		snprintf(rel, sizeof rel, "%s%s%s", sub, *sub ? "/" : "", names[i]);
		if (!*sub || !strncmp(sub, "optional/format", 15))
			run_file(pt, rel, formats, passed, total);
		else {
			size_t k;

			for (k = 0; OPTIONAL[k]; k++)
				if (!strcmp(OPTIONAL[k], names[i]))
					run_file(pt, rel, formats, passed, total);
		}
		free(names[i]);
	}
	free(names);
}

int
main(void)
{
	size_t i;
	size_t glen;

	gaps = unit_slurp(GAPS, &glen);
	for (i = 0; i < sizeof PARTS / sizeof *PARTS; i++) {
		const part *pt = &PARTS[i];
		char dir[600];
		int p = 0, t = 0;
		DIR *d;

		snprintf(dir, sizeof dir, "%s/tests/%s", pt->root, pt->dir);
		if (!(d = opendir(dir))) {
			printf("  skipped %s: %s is not there\n", pt->dir, dir);
			unit_skip++;
			continue;
		}
		closedir(d);
		run_dir(pt, "", HM_FORMATS_DRAFT, &p, &t);
		printf("suite %s required %d/%d\n", pt->dir, p, t);
		CHECK_MSG(t > 100, "%s: only %d tests", pt->dir, t);
		p = t = 0;
		run_dir(pt, "optional", 1, &p, &t);
		run_dir(pt, "optional/format", 1, &p, &t);
		printf("suite %s optional %d/%d\n", pt->dir, p, t);
	}
	free(gaps);
	printf("test_schema_suite: %d passed, %d failed, %d skipped\n", unit_pass, unit_fail,
	    unit_skip);
	return unit_fail != 0;
}
