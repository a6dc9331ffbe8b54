// Stand-in for <ATen/core/Tensor.h>: the Tensor class with its methods and
// TORCH_CHECK, without the operators or the Python layer: the narrow entry
// header a TU that only handles tensors needs (configure --fixes narrow).
#pragma once
#include <c10/core/TensorImpl.h>
#include <ATen/Tensor.h>
