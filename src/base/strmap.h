/* A string -> index hash map (open addressing, a word-at-a-time hash) for hot lookups
 * such as the file names of line markers. Keys are borrowed: they must
 * outlive the map. Lookups take a length, so a key need not be
 * NUL-terminated (a name still inside a read buffer). */
#ifndef BUILDWALL_STRMAP_H
#define BUILDWALL_STRMAP_H

#include <stddef.h>
#include <stdint.h>

#define STRMAP_NONE SIZE_MAX

struct strmap_slot {
	const char *key;	/* NULL: empty */
	size_t len;
	uint64_t hash;
	size_t value;
};

struct strmap {
	struct strmap_slot *slots;
	size_t cap, n;
};

/* The value stored for key[0..len), or STRMAP_NONE. */
size_t strmap_get(const struct strmap *m, const char *key, size_t len);
/* Store value for key[0..len) (which must not be in the map yet). */
void strmap_put(struct strmap *m, const char *key, size_t len, size_t value);
void strmap_free(struct strmap *m);

#endif
