/* A build's preprocessed lines per header group, for its record: every
 * compile step preprocessed as it compiles, each pass scanned (record
 * --pp, survey --pp). */
#ifndef BUILDWALL_PP_LINES_H
#define BUILDWALL_PP_LINES_H

#include "build_record.h"

/* Each compile step's preprocessed lines per header group and pass
 * (every pass, device ones too), added to r; a TU that fails to
 * preprocess is warned of and left out. cmd_name: who asks, for messages. */
record_lines_fn build_record_pp_lines;

#endif
