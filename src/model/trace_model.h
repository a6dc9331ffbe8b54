/* What traces say a build's time went to, summed per pass (host, each
 * device arch) across TUs: front end and backend per TU; headers by parse
 * time with the include chains that bring them in; templates and their
 * sets (arguments folded) by instantiation time; functions by optimizer and
 * codegen time; the named phases (clang's Frontend/Backend, nvcc's
 * CUDA C++ Front-End, LibNVVM, NVVM Optimizer, ptxas, …).
 *
 * Headers and templates nest (a header parses the headers it includes, an
 * instantiation instantiates others), so each row has its inclusive time
 * and its self time (the inclusive time less that of the entries nested
 * directly inside): self times add up to the pass's total parse (or
 * instantiation) time; inclusive times overlap.
 *
 * Times are summed as integer microseconds, exactly, whatever order the
 * files are read in. Files are streamed (trace_scan.h) and read in
 * parallel; memory holds the aggregates and one file's spans per reader.
 *
 * Ownership: the model owns every string in it. */
#ifndef BUILDWALL_TRACE_MODEL_H
#define BUILDWALL_TRACE_MODEL_H
#include <pthread.h>
#include <stdint.h>
#include "strmap.h"
#include "trace_scan.h"

#define TRACE_UNKNOWN INT64_MIN	/* a time the traces do not give (nvcc's host gcc) */

struct trace_phase {
	char *name;
	int64_t us;
};

struct trace_pass {
	char *name;		/* "host", "device gfx90a", "device sm_80" */
	size_t tus;
	int64_t total_us, front_end_us, backend_us;	/* TRACE_UNKNOWN when any TU lacks it */
	int64_t source_us;	/* outermost headers' parse time: every header's self time summed */
	int64_t templates_us;	/* outermost instantiations: every template's self time summed */
	struct trace_phase *phases;
	size_t nphases;
};

struct trace_tu {
	char *tu, *pass, *file;
	int64_t total_us, front_end_us, backend_us;
};

struct trace_chain {
	char *via;		/* "a.h > b.h": the headers open around it, outermost first; "" from the TU */
	size_t count;
	int64_t inclusive_us;
};

enum trace_table { TRACE_HEADERS, TRACE_TEMPLATES, TRACE_TEMPLATE_SETS, TRACE_FUNCTIONS, NTRACE_TABLES };
extern const char *const trace_table_names[NTRACE_TABLES];

struct trace_row {
	size_t pass;		/* index into passes */
	char *name;
	size_t count;		/* its entries in the traces */
	size_t tus;		/* TUs it appears in */
	int64_t inclusive_us, self_us;	/* functions: optimizer + codegen, and codegen alone */
	int64_t optimize_us;	/* functions only */
	struct trace_chain *chains;	/* headers only, most frequent first */
	size_t nchains;
};

struct trace_input {
	const char *path;
	const char *tu;		/* NULL: the file's path */
	const char *pass;	/* a clang trace's pass ("host", "device gfx90a"); NULL: from the file name */
	enum trace_scan_result result;	/* filled by trace_model_read */
	struct trace_scan_info info;
};

struct trace_model {
	struct trace_pass *passes;
	size_t npasses;
	struct trace_tu *tus;
	size_t ntus;
	struct trace_row *rows[NTRACE_TABLES];
	size_t nrows[NTRACE_TABLES];
	unsigned long long bytes, events;
	size_t files;		/* traces read */
	/* private: */
	pthread_mutex_t lock;
	struct trace_index *index;
};

void trace_model_init(struct trace_model *m);
/* Read the inputs, `jobs` files at once, filling each one's result and
 * info; what is not a readable trace adds nothing. */
void trace_model_read(struct trace_model *m, struct trace_input *in, size_t n, long jobs);
/* Sort the rows (heaviest first) and chains; after the last read. */
void trace_model_finish(struct trace_model *m);
/* The pass a clang trace's file name gives: "device ARCH" when a
 * gfx…/sm_… word is in its base name, else "host". A new string. */
char *trace_pass_from_name(const char *path);
/* A template's set: its name with every <…> argument list folded to <$>.
 * A new string. */
char *trace_template_set(const char *name, size_t len);
void trace_input_clear(struct trace_input *in);
void trace_model_free(struct trace_model *m);
#endif
