/* The measurement behind rank and advise: every selected compile step
 * re-run in isolation (R repeats, P at a time, outputs in the temp dir),
 * optionally once more side by side to measure contention, and a time for
 * every edge of the graph (measured, from .ninja_log, a link re-run on the
 * temp objects, or none). The build directory is only read.
 *
 * Ownership: a measurement owns everything it points to except `build`
 * and `dir`, which the caller keeps alive until measurement_free. */
#ifndef BUILDWALL_MEASURE_H
#define BUILDWALL_MEASURE_H

#include "driver.h"
#include "proc.h"
#include "ninja.h"
#include "stats.h"
#include "util.h"
#include "whatif.h"

enum contention_mode { CONTENTION_MEASURE, CONTENTION_LOG, CONTENTION_NONE };

struct measure_options {
	long repeats;		/* runs per TU, >= 1 */
	long parallel;		/* TUs at once, >= 1; a TU never runs beside itself */
	double timeout;		/* per compile, 0 = none */
	enum contention_mode contention;
	const char *launcher;	/* NULL: launchers stripped, the compiler timed here;
				 * "distcc": each compile sent through it, its client
				 * log (in the temp dir) saying where each ran */
};

struct tu {
	size_t edge;
	struct compile_command cmd;
	double *walls, *cpus;	/* one per successful run */
	size_t runs;
	long maxrss_kb;		/* its largest process's peak RSS */
	long peak_kb;		/* its process tree's peak (proc.h), the most over its runs; 0: none */
	const char *peak_by;	/* how (static) */
	float shape[PROC_SHAPE_BINS];	/* how that run's memory ran (proc.h) */
	bool has_shape;
	bool running, failed;
	char *log;		/* while a run is under way: its output */
	char *failure;		/* the report when failed */
	struct summary wall, cpu;
	/* Through a launcher: its runs by where distcc ran them. */
	size_t sent, kept_here, fell_back, retried;	/* retried: sent again after a host failed it */
	char *host;		/* the last remote host one ran on */
};

struct step_time {
	double seconds;
	const char *source;	/* "measured", ".ninja_log", "re-run link", "phony", "none" */
};

struct measurement {
	const char *dir;
	const struct ninja_build *build;
	struct measure_options opt;
	struct tu *tus;
	size_t ntus;
	long *tu_of;		/* edge -> index in tus, or -1 */
	struct step_time *steps;	/* per edge */
	struct contention contention;	/* samples == 0 when not measured */
	char *contention_source;
	size_t failures;	/* failed compiles and link re-runs */
	struct strvec stripped;	/* launchers removed from the commands */
};

/* Measure the edges marked in `selected` (compile steps, checked to be
 * built: exit 2 otherwise). Failed compiles are counted and reported, not
 * fatal; an interrupt exits 130. */
void measure_tus(const char *dir, const struct ninja_build *b, const bool *selected, const struct measure_options *o,
		 struct measurement *m);
/* Every edge's seconds (steps without a time: 0), for model_from_build;
 * the caller frees. */
double *measurement_seconds(const struct measurement *m);
/* Every edge's memory, the TUs' (peak 0: unknown), for
 * model_set_memory; the caller frees. */
struct step_memory *measurement_memory(const struct measurement *m);
void measurement_free(struct measurement *m);

#endif
