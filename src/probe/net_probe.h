/* What a distcc cluster adds to a compile beyond compiling it: connecting,
 * sending the preprocessed source, the remote host's setup, receiving the
 * object. Measured with two probe compiles sent through distcc to the
 * hosts its own configuration names (DISTCC_HOSTS, ~/.distcc/hosts), an
 * empty preprocessed TU and a large one (incompressible comment text,
 * which costs the compiler next to nothing), each also compiled here: the
 * remote hold distcc logs less the compile here is the cost. A TU then
 * costs fixed + per byte × its preprocessed size. For sim and advise when
 * the recorded build ran here and the question is a cluster's wall. */
#ifndef BUILDWALL_NET_PROBE_H
#define BUILDWALL_NET_PROBE_H

#include "cluster.h"

#include <stdbool.h>
#include <stddef.h>


/* Send the probes through distcc with `compiler` (as the build's compiles
 * name it: "c++"), `repeats` times each, alternating with the same compile
 * here, in the temp dir. False, with *err set to what went wrong (owned): distcc
 * not found, a compile that failed, or a probe the cluster did not take
 * (distcc ran it here: no hosts, or none reachable). */
bool net_probe_measure(const char *compiler, long repeats, double timeout_s, struct net_cost *nc, char **err);

/* The cost for a TU of `bytes` preprocessed bytes. */
double net_cost_of(const struct net_cost *nc, double bytes);

struct ninja_build;

/* The probes sent with the compiler the first sent compile of b names
 * (sent: per edge, from cluster_sent), 3 runs each; then *network (owned,
 * per edge) the cost of each edge of `bytes` preprocessed bytes (NaN
 * where bytes is). False, with *err set to what went wrong (owned). */
bool net_probe_build(const struct ninja_build *b, const char *dir, const bool *sent, const double *bytes,
		      struct net_cost *nc, double **network, char **err);

#endif
