// Pick the kernel instance for a problem shape ("m128_n256_k64").
#pragma once
#include <string>
#include "opus/instances.h"

namespace opus {
// Returns false when no instance serves the key.
bool dispatch(const std::string &key, const GemmArgs &args);
} // namespace opus
