// Optimized variant only: the playbook's fused host TU. The tensor glue
// of every device-only instance TU (compiled with -DOPUS_DEVICE_ONLY) lives
// here, so the framework is parsed once for all of them instead of twice
// per instance.
#include <torch/extension.h>
#include "opus/instances.h"
#include "opus/launcher.h"

#define OPUS_INSTANCE(name) OPUS_TENSOR_WRAPPER(name)
#include "opus_instances.inc"
#undef OPUS_INSTANCE
