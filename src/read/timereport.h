/* -ftime-report, read: the text clang and gcc print on stderr, turned into
 * the four phases of a compile pass (front end, LLVM IR generation,
 * optimizer, machine code generation), all from the Wall column.
 *
 * clang >= 20 prints them itself (the "Clang time report" table). clang
 * <= 19 does not, so they are derived: total = "Clang front-end timer",
 * IR generation = "LLVM IR Generation Time", optimizer = Total of the first
 * "Pass execution timing report" (the IR pipeline), machine code generation
 * = Total of the second (the codegen pipeline), front end = total minus the
 * other three. gcc: front end = phase setup + parsing + lang. deferred; its
 * optimizer and code generation are one figure ("phase opt and generate").
 * One group per cc1 job (clang: in job order; gcc: per invocation). */
#ifndef BUILDWALL_TIMEREPORT_H
#define BUILDWALL_TIMEREPORT_H

#include <stdbool.h>
#include <stddef.h>

enum phase { PHASE_FRONT_END, PHASE_IR_GEN, PHASE_OPTIMIZER, PHASE_CODEGEN, NPHASES };
/* "front_end", "ir_generation", "optimizer", "codegen": JSON keys. */
extern const char *const phase_keys[NPHASES];
/* Every phase NaN: nothing split the time. */
void phases_unknown(double *phase);

/* The instruction set a group's code generator targeted, from its
 * "<ISA> DAG->DAG" row: how unlabeled clang groups are told apart. */
enum isa { ISA_UNKNOWN, ISA_AMDGPU, ISA_NVPTX, ISA_X86, ISA_OTHER };

#define TIMEREPORT_HEAVIEST 5

struct named_seconds {
	char *name;
	double seconds;
};

struct time_group {
	const char *format;	/* "clang>=20", "clang<=19", "gcc" */
	double phase[NPHASES];	/* wall seconds; NaN when the report has no such figure */
	/* gcc: optimizer and machine code generation as one figure, kept in
	 * phase[PHASE_CODEGEN] with phase[PHASE_OPTIMIZER] NaN. */
	bool backend_combined;
	double total;		/* the report's own total wall */
	double template_instantiation;	/* gcc's row, inside the front end; NaN if absent */
	enum isa isa;
	/* The heaviest individual passes (clang) or timer rows (gcc). */
	struct named_seconds heaviest[TIMEREPORT_HEAVIEST];
	size_t nheaviest;
};

/* Make room for `seconds` in a list kept largest first, at most
 * TIMEREPORT_HEAVIEST long: returns the index to fill, or -1 when it is too
 * small to enter. An item pushed off the end goes to *dropped (its name is
 * NULL when none was). */
long heaviest_make_room(struct named_seconds *top, size_t *n, double seconds, struct named_seconds *dropped);

struct time_report {
	struct time_group *groups;
	size_t n;
};

/* Read every group in a compiler's captured stderr (other lines are
 * skipped). Streams the file. False, with *err set to a message "LINE: what"
 * (owned by the caller) when a report is malformed; a missing file is an
 * error too. */
bool timereport_read(const char *path, struct time_report *r, char **err);
void time_report_free(struct time_report *r);

#endif
