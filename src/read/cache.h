/* What buildwall keeps between runs so that reading an unchanged tree
 * again is nearly free: ninja's graph of a manifest, survey's document of
 * a module. In the user's cache ($BUILDWALL_CACHE_DIR, else
 * $XDG_CACHE_HOME/buildwall, else ~/.cache/buildwall), never in the build
 * dir. An entry is named for what it was made from: the build dir's real
 * path, the inode, size and times of the files it read there, the ninja
 * that answered and buildwall's version; a manifest that reads others
 * (include, subninja) is never cached, as an edit there would not show. */
#ifndef BUILDWALL_CACHE_H
#define BUILDWALL_CACHE_H

/* The entry of `kind` ("graphs", "survey") for dir as its `files` (names
 * in dir, NULL-terminated; build.ninja among them) are now (owned), or
 * NULL when it cannot be cached. */
char *cache_path(const char *kind, const char *dir, const char *const *files);
/* Keep the file at `from` as `entry` (written aside, then renamed into
 * place), and drop what the same build dir had of that kind before; a
 * cache that cannot be written is left alone: it only saves time. */
void cache_store(const char *from, const char *entry);

#endif
