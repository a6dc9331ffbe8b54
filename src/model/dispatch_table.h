/* Dispatch tables in preprocessed code: a std::unordered_map (or std::map)
 * whose values are std::function, filled by an initializer list of
 * lambdas, as a dispatcher from a shape key to a kernel launcher is often
 * written. Each lambda is its own type, so each entry instantiates
 * std::function's machinery once more; a flat sorted table of function
 * pointers instantiates nothing. Only the project's code counts: system
 * headers (marker flag 3) are skipped. */
#ifndef BUILDWALL_DISPATCH_TABLE_H
#define BUILDWALL_DISPATCH_TABLE_H

#include <stdio.h>

struct dispatch_tables {
	size_t tables;		/* declarations found */
	size_t entries;		/* lambdas in their initializers */
};

/* Read preprocessed output from f to its end. */
void dispatch_tables_scan(FILE *f, struct dispatch_tables *out);

/* The two probe TUs that measure what such a table of `entries` lambdas
 * costs to compile: the table as written, and a flat sorted array of
 * function pointers searched with std::lower_bound (C++17). */
void dispatch_table_write_map(FILE *f, size_t entries);
void dispatch_table_write_flat(FILE *f, size_t entries);

#endif
