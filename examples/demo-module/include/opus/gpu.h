// The kernel prologue: the few GPU names the demo's kernels use, for the
// three backends the demo builds with. HIP builds use -nogpulib -nogpuinc
// (Debian's ROCm device libraries lack gfx942), so nothing comes from the
// HIP headers; CUDA gets the real runtime from nvcc; the C++ fallback makes
// kernels plain functions so the module still builds without a GPU compiler.
#pragma once

// The K values of the device-heavy TU's unrolled tiles (see
// src/kernels/opus_gemm_bigtile.cu), sized per backend so that it stays the
// module's slowest TU, at least 1.5x the runner-up, on each.
#if !defined(OPUS_BIGTILE_KS) && defined(__HIP__)
#define OPUS_BIGTILE_KS 6, 8, 10, 12
#elif !defined(OPUS_BIGTILE_KS) && defined(__CUDACC__)
#define OPUS_BIGTILE_KS 16
#elif !defined(OPUS_BIGTILE_KS)
#define OPUS_BIGTILE_KS 12
#endif

// The host-heavy TU's compile-time key checks (src/kernels/opus_epilogue.cu):
// clang parses faster than gcc, so HIP builds get some, to keep the host
// front end over the playbook's 5 s on each backend.
#if !defined(OPUS_EPILOGUE_KEY_CHECKS) && defined(__HIP__)
#define OPUS_EPILOGUE_KEY_CHECKS 9
#elif !defined(OPUS_EPILOGUE_KEY_CHECKS)
#define OPUS_EPILOGUE_KEY_CHECKS 0
#endif

// Full unrolling: what `#pragma unroll` asks of nvcc and clang; gcc (the
// plain C++ backend) reads only its own spelling.
#if defined(__CUDACC__) || defined(__HIP__)
#define OPUS_UNROLL _Pragma("unroll")
#else
#define OPUS_UNROLL _Pragma("GCC unroll 64")
#endif

#if defined(__CUDACC__)
#define OPUS_DEVICE __device__ __forceinline__
static OPUS_DEVICE unsigned opus_thread_x() { return threadIdx.x; }
#define opus_fma(a, b, c) fmaf((a), (b), (c))
#define OPUS_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)

#elif defined(__HIP__)
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define OPUS_DEVICE __device__ inline
struct dim3 {
	unsigned x, y, z;
	__host__ __device__ dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef struct ihipStream_t *hipStream_t;
// Default arguments let clang accept the two-argument <<<grid, block>>>.
extern "C" unsigned __hipPushCallConfiguration(dim3 grid, dim3 block, unsigned long shmem = 0,
					       hipStream_t stream = nullptr);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
static OPUS_DEVICE unsigned opus_thread_x() { return __builtin_amdgcn_workitem_id_x(); }
#define opus_fma(a, b, c) __builtin_fmaf((a), (b), (c))
#define OPUS_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)

#else /* plain C++: kernels become host functions run for thread 0 */
#include <cmath>
#define __global__
#define __device__
#define __host__
#define __restrict__
#define OPUS_DEVICE inline
static inline unsigned opus_thread_x() { return 0; }
#define opus_fma(a, b, c) std::fma((a), (b), (c))
#define OPUS_LAUNCH(kernel, grid, block, ...) kernel(__VA_ARGS__)
#endif
