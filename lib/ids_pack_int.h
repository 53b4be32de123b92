/*
 * ids_pack_int.h - a completion's token ids as one short opaque string,
 * checked, for the fields an API's clients hand back untouched (a Chat
 * message's harmony_tokens, an Anthropic thinking signature, a Responses
 * reasoning item's encrypted_content): ids_pack.c.
 *
 * The form, version 1: "h1" and then base64url (RFC 4648 §5, no padding)
 * of the ids as unsigned LEB128 varints (7 bits a byte, low first; an id
 * is 1 to 3 bytes, at most 5) followed by 4 check bytes: the low 32 bits,
 * least significant first, of splitmix64's finaliser over the FNV-1a
 * 64-bit hash of the varint bytes.  Some 4 characters a token, against 7
 * in a JSON list; an edit of any character fails the check.
 */
#ifndef HM_IDS_PACK_INT_H
#define HM_IDS_PACK_INT_H

#include <stddef.h>
#include <stdint.h>

#include "harmony.h"

/* The prefix of the form: its version. */
#define HM__PACK_PREFIX "h1"

/* Append ids[0..n) packed (no quotes) to b, whose owner's flag is *nomem. */
void hm__ids_pack(int *nomem, hm_buf *b, const uint32_t *ids, size_t n);

/*
 * Unpack s[0..n) onto out (emptied first): HM_OK; HM_EINPUT when it is not
 * a packed list (prefix, alphabet, length, varints, an id past the
 * vocabulary, the check), with why in *why; HM_ENOMEM.
 */
hm_status hm__ids_unpack(const char *s, size_t n, hm_ids *out, const char **why);

/* Whether s[0..n) begins as a packed list does (the prefix). */
int hm__ids_packed(const char *s, size_t n);

#endif
