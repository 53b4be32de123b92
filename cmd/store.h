/*
 * store.h - --store=DIR of harmony-parse (writes) and harmony-render
 * (reads): each turn's token ids in plain files (store.c says the layout).
 */
#ifndef HM_STORE_H
#define HM_STORE_H

#include "harmony.h"

/*
 * Make DIR's subdirectories when missing: 0, or -1 with why in
 * errno (the caller reports it).
 */
int store_open(const char *dir);

/* hm_turn_fn: the record's turn into the store (ctx: the DIR string). */
void store_turn(void *ctx, const hm_turn *t);

/* hm_request_opts.lookup over the store (ctx: the DIR string). */
hm_status store_lookup(void *ctx, int kind, const char *key, size_t len, hm_ids *out,
    hm_buf *calls);

#endif
