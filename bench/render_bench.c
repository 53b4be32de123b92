/*
 * render_bench.c - renders per second of a ~250-token conversation with
 * function tools, in-process (the conversation is read once; each
 * iteration renders it to ids).  Not a test: prints one line.
 *   cc -O2 -Ilib bench/render_bench.c lib/libharmony.a -lcjson -o build/render_bench
 *   build/render_bench [FILE.json] [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harmony.h"

static const char default_request[] =
"{\"model\":\"gpt-oss-120b\",\"reasoning_effort\":\"high\",\"messages\":["
"{\"role\":\"system\",\"content\":\"Always respond in riddles\"},"
"{\"role\":\"user\",\"content\":\"What is the weather in Tokyo?\"},"
"{\"role\":\"assistant\",\"reasoning_content\":\"Need to use function get_current_weather.\",\"content\":null,"
"\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"get_current_weather\",\"arguments\":\"{\\\"location\\\":\\\"Tokyo\\\"}\"}}]},"
"{\"role\":\"tool\",\"tool_call_id\":\"call_1\",\"content\":\"{\\\"temperature\\\":20}\"}],"
"\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_location\",\"description\":\"Gets the location of the user.\"}},"
"{\"type\":\"function\",\"function\":{\"name\":\"get_current_weather\",\"description\":\"Gets the current weather in the provided location.\","
"\"parameters\":{\"type\":\"object\",\"properties\":{\"location\":{\"type\":\"string\",\"description\":\"The city and state, e.g. San Francisco, CA\"},"
"\"format\":{\"type\":\"string\",\"enum\":[\"celsius\",\"fahrenheit\"],\"default\":\"celsius\"}},\"required\":[\"location\"]}}}]}";

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	const char *req = default_request;
	char *buf = NULL;
	size_t len = strlen(req);
	double secs = argc > 2 ? atof(argv[2]) : 1.0, t0, t;
	hm_request r;
	hm_error e;
	hm_render_opts o = {HM_RENDER_COMPLETION, HM_ROLE_ASSISTANT, 0};
	hm_ids ids = {0};
	unsigned long n = 0, nparse = 0;

	if (argc > 1) {
		FILE *f = fopen(argv[1], "rb");
		size_t cap = 1 << 20;

		if (!f || !(buf = malloc(cap))) {
			perror(argv[1]);
			return 3;
		}
		len = fread(buf, 1, cap - 1, f);
		fclose(f);
		req = buf;
	}
	if (hm_request_from_json(req, len, HM_DIALECT_AUTO, NULL, &r, &e) != HM_OK) {
		fprintf(stderr, "render_bench: %s\n", e.msg);
		return 1;
	}
	t0 = now();
	do {
		ids.len = 0;
		if (hm_render(r.conv, &o, &ids, &e) != HM_OK) {
			fprintf(stderr, "render_bench: %s\n", e.msg);
			return 1;
		}
		n++;
	} while ((n & 255) || (t = now() - t0) < secs);
	printf("render: %lu renders of %zu tokens in %.2f s: %.0f renders/s (%.1f us each)\n",
	    n, ids.len, t, n / t, t / n * 1e6);
	hm_request_clear(&r);
	/* Request parsing and rendering together, as harmony-render --lines does. */
	t0 = now();
	do {
		if (hm_request_from_json(req, len, HM_DIALECT_AUTO, NULL, &r, &e) != HM_OK)
			return 1;
		ids.len = 0;
		hm_render(r.conv, &o, &ids, &e);
		hm_request_clear(&r);
		nparse++;
	} while ((nparse & 255) || (t = now() - t0) < secs);
	printf("render: %lu parse+render in %.2f s: %.0f requests/s\n", nparse, t, nparse / t);
	hm_ids_free(&ids);
	free(buf);
	return 0;
}
