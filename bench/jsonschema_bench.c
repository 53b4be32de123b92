/*
 * jsonschema_bench - validate tool calls against their schemas in-process
 * (hm_schema_validate), for bench/jsonschema.
 *
 *   jsonschema_bench SCHEMAS CALLS
 *
 * SCHEMAS has one JSON Schema a line; CALLS one call a line, "N<TAB>ARGS",
 * N the schema's line (from 0), ARGS the arguments as JSON text.  Each
 * schema is read once; the calls are validated (their JSON parsed each
 * time, hm_schema_validate) and timed; then read first
 * (hm_schema_read_value, not timed) and validated again, timed alone
 * (hm_schema_validate_value: validation without parsing, as ajv's
 * validate() of a value JSON.parse made; the problems are listed, as
 * ajv's errors are, but no message is composed).  Prints {"calls":..,"valid":..,
 * "invalid":..,"seconds":..,"validate_seconds":..}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harmony.h"

static char *
slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long sz;

	if (!f || fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	if (!(buf = malloc((size_t)sz + 1)) || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[sz] = '\0';
	*n = (size_t)sz;
	return buf;
}

int
main(int argc, char **argv)
{
	char *sbuf, *cbuf, *p, *nl;
	size_t slen, clen, nschemas = 0, ncalls = 0, nvalid = 0, ninvalid = 0;
	hm_schema *schemas[256];
	struct timespec t0, t1;
	hm_error e;

	if (argc != 3 || !(sbuf = slurp(argv[1], &slen)) || !(cbuf = slurp(argv[2], &clen))) {
		fprintf(stderr, "usage: jsonschema_bench SCHEMAS CALLS\n");
		return 2;
	}
	for (p = sbuf; *p && nschemas < 256; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		if (hm_schema_new(p, (size_t)(nl - p), NULL, &schemas[nschemas], &e) != HM_OK) {
			fprintf(stderr, "schema %zu: %s\n", nschemas, e.msg);
			return 1;
		}
		nschemas++;
		if (!*nl)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (p = cbuf; *p; p = nl + 1) {
		char *tab;
		unsigned long k = strtoul(p, &tab, 10);
		hm_status st;

		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		if (*tab != '\t' || k >= nschemas) {
			fprintf(stderr, "call %zu: bad line\n", ncalls);
			return 1;
		}
		st = hm_schema_validate(schemas[k], tab + 1, (size_t)(nl - tab - 1), &e);
		if (st == HM_ENOMEM) {
			fprintf(stderr, "out of memory\n");
			return 3;
		}
		ncalls++;
		if (st == HM_OK)
			nvalid++;
		else
			ninvalid++;
		if (!*nl)
			break;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* validation alone: the calls parsed first (not timed) */
	{
		hm_json **vals = malloc(ncalls * sizeof *vals);
		unsigned long *ks = malloc(ncalls * sizeof *ks);
		size_t i = 0, again = 0;
		struct timespec t2, t3;

		if (!vals || !ks)
			return 3;
		for (p = cbuf; *p && i < ncalls; p = nl + 1, i++) {
			char *tab;

			ks[i] = strtoul(p, &tab, 10);
			if (!(nl = strchr(p, '\n')))
				nl = p + strlen(p);
			if (hm_schema_read_value(tab + 1, (size_t)(nl - tab - 1), &vals[i], &e) != HM_OK)
				return 3;
			if (!*nl)
				break;
		}
		clock_gettime(CLOCK_MONOTONIC, &t2);
		for (i = 0; i < ncalls; i++)
			again += hm_schema_validate_value(schemas[ks[i]], vals[i], NULL) == HM_OK;
		clock_gettime(CLOCK_MONOTONIC, &t3);
		if (again != nvalid) {
			fprintf(stderr, "validation alone: %zu valid, %zu with parsing\n", again, nvalid);
			return 1;
		}
		printf("{\"calls\":%zu,\"valid\":%zu,\"invalid\":%zu,\"seconds\":%.6f,"
		    "\"validate_seconds\":%.6f}\n", ncalls, nvalid, ninvalid,
		    (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		    (double)(t3.tv_sec - t2.tv_sec) + (double)(t3.tv_nsec - t2.tv_nsec) / 1e9);
		for (i = 0; i < ncalls; i++)
			hm_schema_value_free(vals[i]);
		free(vals);
		free(ks);
	}
	while (nschemas)
		hm_schema_free(schemas[--nschemas]);
	free(sbuf);
	free(cbuf);
	return 0;
}
