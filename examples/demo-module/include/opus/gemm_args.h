// The framework-free description of one GEMM launch.
#pragma once

namespace opus {

struct GemmArgs {
	const float *a, *b;
	float *c;
	int m, n, k;
};

} // namespace opus
