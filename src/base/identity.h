/* The identity buildwall gives a build (record) or a cache entry: a hash
 * of a sequence of fields. */
#ifndef BUILDWALL_IDENTITY_H
#define BUILDWALL_IDENTITY_H

#include <stddef.h>
#include <stdint.h>

/* A 128-bit identity of a sequence of fields (two FNV-1a lanes); parts
 * merged by adding, so their order does not matter; as 32 hex digits
 * (owned). */
struct identity_hash {
	uint64_t a, b;
};
void identity_init(struct identity_hash *h);
void identity_merge(struct identity_hash *sum, const struct identity_hash *part);
void identity_add(struct identity_hash *h, const char *field, size_t len);
void identity_add_number(struct identity_hash *h, double value);
char *identity_hex(const struct identity_hash *h);

#endif
