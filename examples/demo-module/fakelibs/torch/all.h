#pragma once
#include <ATen/ATen.h>

namespace torch {
using at::Tensor;
using c10::ScalarType;
} // namespace torch
