// The kernel prologue: the few GPU names the demo's kernels use, for the
// three backends the demo builds with. HIP builds use -nogpulib -nogpuinc
// (Debian's ROCm device libraries lack gfx942), so nothing comes from the
// HIP headers; CUDA gets the real runtime from nvcc; the C++ fallback makes
// kernels plain functions so the module still builds without a GPU compiler.
#pragma once

#if defined(__CUDACC__)
#define OPUS_DEVICE __device__ __forceinline__
static OPUS_DEVICE unsigned opus_thread_x() { return threadIdx.x; }
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
extern "C" unsigned __hipPushCallConfiguration(dim3, dim3, unsigned long, hipStream_t);
extern "C" int __hipPopCallConfiguration(dim3 *, dim3 *, unsigned long *, hipStream_t *);
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
static OPUS_DEVICE unsigned opus_thread_x() { return __builtin_amdgcn_workitem_id_x(); }
static inline float fmaf(float a, float b, float c) __attribute__((device, host));
static inline float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
#define OPUS_LAUNCH(kernel, grid, block, ...) kernel<<<(grid), (block)>>>(__VA_ARGS__)

#else /* plain C++: kernels become host functions run for thread 0 */
#include <cmath>
#define __global__
#define __device__
#define __host__
#define __restrict__
#define OPUS_DEVICE inline
static inline unsigned opus_thread_x() { return 0; }
#define OPUS_LAUNCH(kernel, grid, block, ...) kernel(__VA_ARGS__)
#endif
