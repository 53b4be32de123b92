/*
 * tokens.h - what harmony-tokens' commands share: options, the output
 * buffer, the exit status; diff lives in tokens_diff.c.
 */
#ifndef HM_TOKENS_H
#define HM_TOKENS_H

#include "cli.h"
#include "harmony.h"

enum cmd { C_ENCODE, C_DECODE, C_INSPECT, C_COUNT, C_SPECIALS, C_DIFF };
enum fmt { F_DEFAULT, F_IDS, F_JSON, F_LINES, F_TEXT, F_TABLE, F_AUTO };

struct tokens_opt {
	enum cmd cmd;
	enum fmt to, from;
	int lines, lossy, special, stop, stop_actions, color, quiet;
	const char *key;        /* diff --key */
	size_t context;         /* diff --context */
};

extern struct tokens_opt opt;
extern int status;
extern hm_buf out;
extern int use_color;

#define COL_OFF "\033[0m"

void *xrealloc(void *p, size_t n);
/* Token bytes in double quotes, C-style escapes for what is not printable. */
void add_escaped(const char *b, size_t n);
/* diff A B (paths[0], paths[1]): the exit status, 0 equal, 1 different or bad input, 3 I/O. */
int run_diff(char **paths);

#endif
