/*
 * tokens_ctx.c - what every part of harmony-tokens needs from the run's
 * context: writing out a large output buffer, and the file, line and
 * column of a byte of an input read whole.  It calls only cli.c.
 */
#include <stdlib.h>

#include "tokens.h"

void
out_maybe(struct tokens_ctx *tk)
{
	if (tk->out.len >= 1 << 16)
		cli_write_buf(&tk->out, 0);
}

static int
whole(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap, int open)
{
	free(tk->parts);
	tk->nparts = 0;
	if (!(tk->parts = calloc((size_t)in->npaths, sizeof *tk->parts)))
		cli_oom();
	while (open || cli_input_next_file(in)) {
		open = 0;
		tk->parts[tk->nparts].off = *len;
		tk->parts[tk->nparts++].name = in->name;
		if (cli_read_all(in, buf, len, cap) < 0)
			return -1;
	}
	return in->failed ? -1 : 0;
}

int
read_whole(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap)
{
	*len = 0;
	return whole(tk, in, buf, len, cap, 0);
}

int
read_whole_rest(struct tokens_ctx *tk, cli_input *in, char **buf, size_t *len, size_t *cap)
{
	return whole(tk, in, buf, len, cap, 1);
}

void
locate(struct tokens_ctx *tk, const char *s, size_t off, const char **file, size_t *line,
       size_t *col)
{
	size_t i, start = 0;

	*file = "-";
	for (i = 0; i < tk->nparts; i++) {
		if (tk->parts[i].off <= off) {
			start = tk->parts[i].off;
			*file = tk->parts[i].name;
		}
	}
	*line = 1;
	*col = 1;
	for (i = start; i < off; i++, (*col)++)
		if (s[i] == '\n')
			(*line)++, *col = 0;
}
