// PLANTED: the device-heavy TU, and the module's slowest. 32x32 register
// tiles with every loop fully unrolled: a thousand live accumulators per
// thread, far more than the register file, so the device pass spends its
// time in machine code generation (register allocation and spilling in
// ptxas or the AMDGPU back end), which no include hygiene can remove. The
// TU is framework-free in both variants (its tensor glue lives in the
// pybind TU, or the fused host TU when optimized), so its host pass is light.
#include "opus/gemm_args.h"
#include "opus/gpu.h"

namespace {

template <int M, int N, int K>
__global__ void bigtile(const float *__restrict__ a, const float *__restrict__ b, float *__restrict__ c)
{
	float acc[M][N];
OPUS_UNROLL
	for (int i = 0; i < M; ++i) {
OPUS_UNROLL
		for (int j = 0; j < N; ++j) {
			acc[i][j] = 0.f;
		}
	}
	const unsigned t = opus_thread_x();
OPUS_UNROLL
	for (int k = 0; k < K; ++k) {
		float ra[M], rb[N];
OPUS_UNROLL
		for (int i = 0; i < M; ++i) {
			ra[i] = a[(t * M + i) * K + k];
		}
OPUS_UNROLL
		for (int j = 0; j < N; ++j) {
			rb[j] = b[k * N * 64 + t * N + j];
		}
OPUS_UNROLL
		for (int i = 0; i < M; ++i) {
OPUS_UNROLL
			for (int j = 0; j < N; ++j) {
				acc[i][j] = opus_fma(ra[i], rb[j], acc[i][j]);
			}
		}
	}
OPUS_UNROLL
	for (int i = 0; i < M; ++i) {
OPUS_UNROLL
		for (int j = 0; j < N; ++j) {
			c[(t * M + i) * N + j] = acc[i][j];
		}
	}
}

// One instance per K in OPUS_BIGTILE_KS (calibrated per backend in
// opus/gpu.h); other K run slice by slice on the first.
template <int K> bool try_launch(const opus::GemmArgs &args)
{
	if (args.k % K)
		return false;
	OPUS_LAUNCH((bigtile<32, 32, K>), dim3(1), dim3(64), args.a, args.b, args.c);
	return true;
}

template <int K, int... Ks> void launch_any(const opus::GemmArgs &args)
{
	if (!(try_launch<K>(args) || ... || try_launch<Ks>(args)))
		OPUS_LAUNCH((bigtile<32, 32, K>), dim3(args.k / K + 1), dim3(64), args.a, args.b, args.c);
}

} // namespace

void opus_gemm_bigtile_launch(const opus::GemmArgs &args)
{
	launch_any<OPUS_BIGTILE_KS>(args);
}
