// PLANTED: the device-heavy TU, and the module's slowest. Register-blocked
// tiles with every loop fully unrolled: thousands of FMAs per kernel, so the
// device pass spends its time in code generation (the optimizer and the
// machine-code back end), which no include hygiene can remove.
#include "opus/launcher.h"

namespace {

template <int M, int N, int K>
__global__ void bigtile(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
	float acc[M][N];
#pragma unroll
	for (int i = 0; i < M; ++i) {
#pragma unroll
		for (int j = 0; j < N; ++j) {
			acc[i][j] = 0.f;
		}
	}
	const unsigned t = opus_thread_x();
#pragma unroll
	for (int k = 0; k < K; ++k) {
		float ra[M], rb[N];
#pragma unroll
		for (int i = 0; i < M; ++i) {
			ra[i] = a[(t * M + i) * K + k];
		}
#pragma unroll
		for (int j = 0; j < N; ++j) {
			rb[j] = b[k * N * 64 + t * N + j];
		}
#pragma unroll
		for (int i = 0; i < M; ++i) {
#pragma unroll
			for (int j = 0; j < N; ++j) {
				acc[i][j] = opus_fma(ra[i], rb[j], acc[i][j]);
			}
		}
	}
#pragma unroll
	for (int i = 0; i < M; ++i) {
#pragma unroll
		for (int j = 0; j < N; ++j) {
			c[(t * M + i) * N + j] = acc[i][j];
		}
	}
}

// One instance per K in OPUS_BIGTILE_KS (calibrated per backend in
// opus/gpu.h), plus one wider tile for the rest.
template <int K> bool try_launch(const opus::GemmArgs &args)
{
	if (args.k % K)
		return false;
	OPUS_LAUNCH((bigtile<8, 8, K>), dim3(1), dim3(64), args.a, args.b, args.c);
	return true;
}

template <int... Ks> void launch_any(const opus::GemmArgs &args)
{
	if (!(try_launch<Ks>(args) || ...))
		OPUS_LAUNCH((bigtile<16, 8, 40>), dim3(1), dim3(64), args.a, args.b, args.c);
}

} // namespace

void opus_gemm_bigtile_launch(const opus::GemmArgs &args)
{
	launch_any<OPUS_BIGTILE_KS>(args);
}

#if defined(OPUS_WITH_FRAMEWORK) && !defined(OPUS_OPTIMIZED)
OPUS_TENSOR_WRAPPER(opus_gemm_bigtile)
#endif
