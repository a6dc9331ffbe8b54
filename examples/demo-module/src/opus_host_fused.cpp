// With OPUS_FIX_FUSED only: the playbook's fused host TU. The tensor glue
// of every device-only instance TU (compiled with -DOPUS_DEVICE_ONLY) lives
// here, so the framework is parsed once for all of them instead of twice
// per instance; the bigtile kernel's too, and the epilogue's once its
// launcher is framework-free (OPUS_FIX_LAUNCHERS).
#ifdef OPUS_FIX_NARROW
#include <ATen/core/Tensor.h> // the wrappers handle tensors, nothing more
#else
#include <torch/extension.h>
#endif
#include "opus/instances.h"
#include "opus/launcher.h"

#define OPUS_INSTANCE(name) OPUS_TENSOR_WRAPPER(name)
#include "opus_fused.inc"
#undef OPUS_INSTANCE
#ifdef OPUS_FIX_LAUNCHERS
OPUS_TENSOR_WRAPPER(opus_epilogue)
#endif
