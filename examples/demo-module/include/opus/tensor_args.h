// Tensor -> GemmArgs for host code.
//
// THE LEAK (baseline): this header includes <torch/extension.h> just to
// name at::Tensor, so every TU that includes opus/instances.h -- the
// dispatcher among them -- parses the whole framework. The chain:
//   src/opus_dispatch.cpp -> opus/dispatch.h -> opus/instances.h
//     -> opus/tensor_args.h -> torch/extension.h
// The fix (OPUS_FIX_LEAK) declares the class instead of including it.
#pragma once
#include "opus/gemm_args.h"

#if !defined(OPUS_FIX_LEAK) && !defined(OPUS_FIX_NARROW)
#include <torch/extension.h>
#elif !defined(OPUS_FIX_LEAK) // narrowed: the tensors alone
#include <ATen/core/Tensor.h>
#else
namespace at { class Tensor; }
#endif

namespace opus {
GemmArgs args_from(const at::Tensor &a, const at::Tensor &b, at::Tensor &c);
} // namespace opus
