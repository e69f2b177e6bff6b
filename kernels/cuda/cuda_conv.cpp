// cuDNN convolution forward / backward-data / backward-filter for every distinct conv shape of
// the workloads, in FP32 (FMA math: true fp32), TF32 (cuDNN's default math on Ampere and later,
// which is what frameworks run for "fp32" by default) and FP16 (tensor cores, NHWC). The algorithm
// is cuDNN's first heuristic choice that fits a 1 GiB workspace, as frameworks pick without
// autotuning. Built only with cuDNN (DASIM_HAVE_CUDNN); uses the legacy cudnnConvolution* API,
// deprecated in cuDNN 9 but present and much shorter than the graph API.
#include "cuda/cuda_common.hpp"
#include "cuda/cuda_suite.hpp"
#include "workload/shape_key.hpp"

#include <cudnn.h>

#include <algorithm>
#include <memory>

namespace dasim::kernels::cuda {
namespace {

void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw RuntimeFailure(fmt::format("cuDNN: {}: {}", what, cudnnGetErrorString(status)));
}

constexpr size_t kWorkspaceLimitBytes = size_t{1} << 30;

struct ConvPrecision {
  const char* name;
  cudnnDataType_t data;
  cudnnMathType_t math;
  cudnnTensorFormat_t format;
  DType dtype;
};

const ConvPrecision kConvPrecisions[] = {
    {"fp32", CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, CUDNN_TENSOR_NCHW, DType::f32},
    {"tf32", CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH, CUDNN_TENSOR_NCHW, DType::f32},
    {"fp16", CUDNN_DATA_HALF, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_NHWC, DType::f16},
};

// Descriptors of one conv problem; destroyed with the object.
struct Problem {
  cudnnTensorDescriptor_t x{}, y{};
  cudnnFilterDescriptor_t w{};
  cudnnConvolutionDescriptor_t conv{};
  int n = 0, k = 0, oh = 0, ow = 0;
  Problem(const workload::ConvShape& s, int batch, const ConvPrecision& p) {
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
    check_cudnn(cudnnSetTensor4dDescriptor(x, p.format, p.data, batch, s.in_channels, s.in_h, s.in_w),
                "set x");
    check_cudnn(cudnnSetFilter4dDescriptor(w, p.data, p.format, s.out_channels, s.in_channels / s.groups,
                                           s.kernel_h, s.kernel_w),
                "set w");
    check_cudnn(cudnnSetConvolution2dDescriptor(conv, s.pad, s.pad, s.stride, s.stride, 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                "set conv");
    check_cudnn(cudnnSetConvolutionGroupCount(conv, s.groups), "set groups");
    check_cudnn(cudnnSetConvolutionMathType(conv, p.math), "set math");
    int c = 0;
    check_cudnn(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &oh, &ow), "output dim");
    k = c;
    check_cudnn(cudnnSetTensor4dDescriptor(y, p.format, p.data, n, k, oh, ow), "set y");
  }
  ~Problem() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyConvolutionDescriptor(conv);
  }
  Problem(const Problem&) = delete;
  Problem& operator=(const Problem&) = delete;
};

template <typename Perf>
const Perf* first_usable(const Perf* perf, int count) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= kWorkspaceLimitBytes) return &perf[i];
  return nullptr;
}

// The algorithm of each pass, as cuDNN's heuristics rank them: the first that fits the workspace.
struct ConvAlgorithms {
  cudnnConvolutionFwdAlgo_t forward;
  cudnnConvolutionBwdDataAlgo_t backward_data;
  cudnnConvolutionBwdFilterAlgo_t backward_filter;
};

ConvAlgorithms choose_algorithms(cudnnHandle_t handle, const Problem& prob) {
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, prob.x, prob.w, prob.conv, prob.y,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, fwd),
              "forward heuristics");
  const auto* f = first_usable(fwd, returned);
  cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  check_cudnn(
      cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, prob.w, prob.y, prob.conv, prob.x,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, bwd_data),
      "backward-data heuristics");
  const auto* bd = first_usable(bwd_data, returned);
  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, prob.x, prob.y, prob.conv, prob.w,
                                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                            &returned, bwd_filter),
              "backward-filter heuristics");
  const auto* bf = first_usable(bwd_filter, returned);
  if (!f || !bd || !bf) throw RuntimeFailure("no algorithm fits the 1 GiB workspace");
  return {f->algo, bd->algo, bf->algo};
}

// The three passes of one shape at one precision, each timed and recorded as a measurement and a
// per-shape time.
void time_conv_shape(cudnnHandle_t handle, cudaStream_t stream, const workload::ConvShape& shape,
                     const ConvPrecision& p, const SuiteOptions& options, SuiteResult& result) {
  const std::string key = workload::conv_shape_key(shape);
  const float alpha = 1.0f, beta = 0.0f;
  Problem prob(shape, options.batch, p);
  size_t elem = bytes_of(p.dtype);
  size_t x_elems = static_cast<size_t>(options.batch) * shape.in_channels * shape.in_h * shape.in_w;
  size_t y_elems = static_cast<size_t>(prob.n) * prob.k * prob.oh * prob.ow;
  size_t w_elems = static_cast<size_t>(shape.out_channels) * (shape.in_channels / shape.groups) *
                   shape.kernel_h * shape.kernel_w;
  DeviceBuffer x(elem * x_elems), y(elem * y_elems), w(elem * w_elems), dx(elem * x_elems),
      dw(elem * w_elems);
  fill_values(x.get(), x_elems, p.dtype);
  fill_values(y.get(), y_elems, p.dtype);  // doubles as dy
  fill_values(w.get(), w_elems, p.dtype);
  DeviceBuffer workspace(kWorkspaceLimitBytes);
  const double flops = 2.0 * y_elems * (shape.in_channels / shape.groups) * shape.kernel_h * shape.kernel_w;
  const ConvAlgorithms algo = choose_algorithms(handle, prob);
  struct Pass {
    const char* kind;
    int algo;
    std::function<void()> fn;
  };
  const Pass passes[] = {
      {"conv_fwd", static_cast<int>(algo.forward),
       [&] {
         check_cudnn(cudnnConvolutionForward(handle, &alpha, prob.x, x.get(), prob.w, w.get(), prob.conv,
                                             algo.forward, workspace.get(), kWorkspaceLimitBytes, &beta,
                                             prob.y, y.get()),
                     "cudnnConvolutionForward");
       }},
      {"conv_bwd_data", static_cast<int>(algo.backward_data),
       [&] {
         check_cudnn(cudnnConvolutionBackwardData(handle, &alpha, prob.w, w.get(), prob.y, y.get(), prob.conv,
                                                  algo.backward_data, workspace.get(), kWorkspaceLimitBytes,
                                                  &beta, prob.x, dx.get()),
                     "cudnnConvolutionBackwardData");
       }},
      {"conv_bwd_filter", static_cast<int>(algo.backward_filter),
       [&] {
         check_cudnn(cudnnConvolutionBackwardFilter(handle, &alpha, prob.x, x.get(), prob.y, y.get(),
                                                    prob.conv, algo.backward_filter, workspace.get(),
                                                    kWorkspaceLimitBytes, &beta, prob.w, dw.get()),
                     "cudnnConvolutionBackwardFilter");
       }},
  };
  const int reps = std::max(options.reps, options.quick ? 5 : 10);
  for (const auto& pass : passes) {
    Measurement m;
    m.name = fmt::format("{}_{}_{}_b{}", pass.kind, p.name, key, options.batch);
    m.kind = pass.kind;
    m.precision = p.name;
    m.params = {{"key", key}, {"batch", options.batch}, {"library", "cuDNN"}, {"algo", pass.algo}};
    m.flops = flops;
    m.stats = time_events(pass.fn, stream, options.warmup + 2, reps);
    result.per_shape.push_back({pass.kind, key, options.batch, p.name, m.stats.median_s});
    result.measurements.push_back(std::move(m));
  }
}

// A cuDNN handle on its own stream, released however the suite ends.
struct CudnnOnStream {
  cudnnHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CudnnOnStream() {
    check_cudnn(cudnnCreate(&handle), "cudnnCreate");
    check(cudaStreamCreate(&stream), "cudaStreamCreate");
    check_cudnn(cudnnSetStream(handle, stream), "cudnnSetStream");
  }
  ~CudnnOnStream() {
    if (handle) cudnnDestroy(handle);
    if (stream) cudaStreamDestroy(stream);
  }
  CudnnOnStream(const CudnnOnStream&) = delete;
  CudnnOnStream& operator=(const CudnnOnStream&) = delete;
};

}  // namespace

void run_conv_benchmarks(const SuiteOptions& options, SuiteResult& result) {
  CudnnOnStream cudnn;
  for (const auto& p : kConvPrecisions)
    for (const auto& shape : options.shapes.convs) {
      const std::string key = workload::conv_shape_key(shape);
      options.say(fmt::format("cuDNN {} conv {} batch {}", p.name, key, options.batch));
      try {
        time_conv_shape(cudnn.handle, cudnn.stream, shape, p, options, result);
      } catch (const RuntimeFailure& e) {
        result.notes.push_back(fmt::format("cuDNN {} conv {} skipped: {}", p.name, key, e.what()));
        options.say(result.notes.back());
      }
    }
}

}  // namespace dasim::kernels::cuda
