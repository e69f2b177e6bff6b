// cuDNN convolution forward / backward-data / backward-filter for every distinct conv shape of
// the workloads at every batch of the run, in FP32 (FMA math: true fp32), TF32 (cuDNN's default
// math on Ampere and later, which is what frameworks run for "fp32" by default), FP16 and BF16
// (tensor cores, NHWC, FP32 accumulation). The algorithm of each pass is the first that cuDNN's
// heuristics (cudnnGetConvolution*Algorithm_v7) return with status success and a workspace that
// can be allocated: what frameworks run with benchmark mode off. Built only with cuDNN
// (DASIM_HAVE_CUDNN); uses the legacy cudnnConvolution* API, deprecated in cuDNN 9 but present and
// much shorter than the graph API.
#ifdef DASIM_HAVE_CUDNN
#include "cuda/cuda_cudnn.hpp"
#include "cuda/cuda_suite.hpp"
#include "efficiency_fit.hpp"
#include "workload/shape_key.hpp"

#include <algorithm>
#include <iterator>
#include <memory>

namespace dasim::kernels::cuda {
namespace {

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
    {"bf16", CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_NHWC, DType::bf16},
};

// A workspace that grows to the largest the chosen algorithms ask for, up to `limit` bytes.
class Workspace {
 public:
  explicit Workspace(size_t limit) : limit_(limit) {}
  size_t limit() const { return limit_; }
  void* reserve(size_t bytes) {
    if (!buffer_ || buffer_->bytes() < bytes) {
      buffer_.reset();
      buffer_ = std::make_unique<DeviceBuffer>(bytes);
    }
    return buffer_->get();
  }

 private:
  size_t limit_;
  std::unique_ptr<DeviceBuffer> buffer_;
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
    check_cudnn(cudnnSetConvolution2dDescriptor(conv, s.pad, workload::conv_pad_w(s), s.stride,
                                                workload::conv_stride_w(s), 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT),
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

// The heuristics' first result with status success whose workspace fits `limit`; its rank in the
// list (0: the very first result) goes into the measurement.
template <typename Perf>
int first_usable(const Perf* perf, int count, size_t limit) {
  for (int i = 0; i < count; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= limit) return i;
  return -1;
}

struct Chosen {
  int algo = 0;
  int rank = 0;
  size_t workspace_bytes = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;  // set on the descriptor before the call, as frameworks do
};

template <typename Perf>
Chosen chosen(const Perf* perf, int count, size_t limit, const char* pass) {
  int i = first_usable(perf, count, limit);
  if (i < 0)
    throw RuntimeFailure(fmt::format("no {} algorithm succeeds within a {} B workspace", pass, limit));
  return {static_cast<int>(perf[i].algo), i, perf[i].memory, perf[i].mathType};
}

// The algorithm of each pass, as cuDNN's heuristics rank them.
struct ConvAlgorithms {
  Chosen forward, backward_data, backward_filter;
};

ConvAlgorithms choose_algorithms(cudnnHandle_t handle, const Problem& prob, size_t limit) {
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, prob.x, prob.w, prob.conv, prob.y,
                                                     CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, fwd),
              "forward heuristics");
  Chosen f = chosen(fwd, returned, limit, "forward");
  cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
  check_cudnn(
      cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, prob.w, prob.y, prob.conv, prob.x,
                                                  CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &returned, bwd_data),
      "backward-data heuristics");
  Chosen bd = chosen(bwd_data, returned, limit, "backward-data");
  cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  check_cudnn(cudnnGetConvolutionBackwardFilterAlgorithm_v7(handle, prob.x, prob.y, prob.conv, prob.w,
                                                            CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT,
                                                            &returned, bwd_filter),
              "backward-filter heuristics");
  Chosen bf = chosen(bwd_filter, returned, limit, "backward-filter");
  return {f, bd, bf};
}

// The three passes of one shape at one precision and batch, each timed and recorded as a
// measurement and a per-shape time.
void time_conv_shape(cudnnHandle_t handle, cudaStream_t stream, const workload::ConvShape& shape, int batch,
                     const ConvPrecision& p, Workspace& workspace, const SuiteOptions& options,
                     SuiteResult& result) {
  const std::string key = workload::conv_shape_key(shape);
  const float alpha = 1.0f, beta = 0.0f;
  Problem prob(shape, batch, p);
  size_t elem = bytes_of(p.dtype);
  size_t x_elems = static_cast<size_t>(batch) * shape.in_channels * shape.in_h * shape.in_w;
  size_t y_elems = static_cast<size_t>(prob.n) * prob.k * prob.oh * prob.ow;
  size_t w_elems = static_cast<size_t>(shape.out_channels) * (shape.in_channels / shape.groups) *
                   shape.kernel_h * shape.kernel_w;
  DeviceBuffer x(elem * x_elems), y(elem * y_elems), w(elem * w_elems), dx(elem * x_elems),
      dw(elem * w_elems);
  fill_values(x.get(), x_elems, p.dtype);
  fill_values(y.get(), y_elems, p.dtype);  // doubles as dy
  fill_values(w.get(), w_elems, p.dtype);
  const double flops = 2.0 * y_elems * (shape.in_channels / shape.groups) * shape.kernel_h * shape.kernel_w;
  ConvAlgorithms algo = choose_algorithms(handle, prob, workspace.limit());
  // True fp32 stays on FMA math whatever the heuristics' math type says (the default math would
  // allow TF32 on Ampere and later); the other precisions run in the math type cuDNN returned.
  if (p.math == CUDNN_FMA_MATH)
    for (Chosen* c : {&algo.forward, &algo.backward_data, &algo.backward_filter}) c->math = CUDNN_FMA_MATH;
  void* ws = workspace.reserve(std::max({algo.forward.workspace_bytes, algo.backward_data.workspace_bytes,
                                         algo.backward_filter.workspace_bytes, size_t{1}}));
  struct Pass {
    const char* kind;
    const Chosen& chosen;
    std::function<void()> fn;
  };
  const Pass passes[] = {
      {"conv_fwd", algo.forward,
       [&] {
         check_cudnn(cudnnSetConvolutionMathType(prob.conv, algo.forward.math), "set math");
         check_cudnn(cudnnConvolutionForward(handle, &alpha, prob.x, x.get(), prob.w, w.get(), prob.conv,
                                             static_cast<cudnnConvolutionFwdAlgo_t>(algo.forward.algo), ws,
                                             algo.forward.workspace_bytes, &beta, prob.y, y.get()),
                     "cudnnConvolutionForward");
       }},
      {"conv_bwd_data", algo.backward_data,
       [&] {
         check_cudnn(
             cudnnConvolutionBackwardData(handle, &alpha, prob.w, w.get(), prob.y, y.get(), prob.conv,
                                          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo.backward_data.algo),
                                          ws, algo.backward_data.workspace_bytes, &beta, prob.x, dx.get()),
             "cudnnConvolutionBackwardData");
       }},
      {"conv_bwd_filter", algo.backward_filter,
       [&] {
         check_cudnn(cudnnSetConvolutionMathType(prob.conv, algo.backward_filter.math), "set math");
         check_cudnn(cudnnConvolutionBackwardFilter(
                         handle, &alpha, prob.x, x.get(), prob.y, y.get(), prob.conv,
                         static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo.backward_filter.algo), ws,
                         algo.backward_filter.workspace_bytes, &beta, prob.w, dw.get()),
                     "cudnnConvolutionBackwardFilter");
       }},
  };
  const int reps = std::max(options.reps, options.quick ? 5 : 10);
  for (const auto& pass : passes) {
    Measurement m;
    m.name = fmt::format("{}_{}_{}_b{}", pass.kind, p.name, key, batch);
    m.kind = pass.kind;
    m.kernel_class = conv_kernel_class(shape, pass.kind);
    m.precision = p.name;
    m.params = {{"key", key},
                {"batch", batch},
                {"library", "cuDNN"},
                {"layout", p.format == CUDNN_TENSOR_NHWC ? "NHWC" : "NCHW"},
                {"algo", pass.chosen.algo},
                {"heuristic_rank", pass.chosen.rank},
                {"math_type", static_cast<int>(pass.chosen.math)},
                {"workspace_bytes", pass.chosen.workspace_bytes}};
    m.flops = flops;
    m.stats = time_gpu(pass.fn, stream, options.warmup + 2, reps);
    result.per_shape.push_back({pass.kind, key, batch, p.name, m.stats.median_s});
    result.measurements.push_back(std::move(m));
  }
}

}  // namespace

void run_conv_benchmarks(const SuiteOptions& options, const DeviceCaps& caps, SuiteResult& result) {
  CudnnOnStream cudnn;
  // The workspace a framework could allocate: a quarter of the free memory, at most 8 GiB.
  size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  Workspace workspace(std::min(free_bytes / 4, size_t{8} << 30));
  const size_t configurations =
      options.batches.size() * std::size(kConvPrecisions) * options.shapes.convs.size();
  size_t done = 0;
  for (const auto& p : kConvPrecisions)
    if (!supports_precision(caps.sm, p.name))
      result.notes.push_back(
          fmt::format("cuDNN {} convs skipped: needs sm_80 or later, GPU 0 is sm_{}", p.name, caps.sm));
  for (int batch : options.batches)
    for (const auto& p : kConvPrecisions) {
      if (!supports_precision(caps.sm, p.name)) continue;
      for (const auto& shape : options.shapes.convs) {
        if (options.over_budget()) {
          result.notes.push_back(
              fmt::format("cuDNN convs: time budget of {} s reached after {} of {} (batch, precision, shape) "
                          "configurations; "
                          "the rest skipped",
                          options.time_budget_s, done, configurations));
          options.say(result.notes.back());
          return;
        }
        ++done;
        const std::string key = workload::conv_shape_key(shape);
        options.say(fmt::format("cuDNN {} conv {} batch {}", p.name, key, batch));
        try {
          time_conv_shape(cudnn.handle, cudnn.stream, shape, batch, p, workspace, options, result);
        } catch (const RuntimeFailure& e) {
          cudaGetLastError();  // an out-of-memory error must not be reported again by a later check
          result.notes.push_back(
              fmt::format("cuDNN {} conv {} batch {} skipped: {}", p.name, key, batch, e.what()));
          options.say(result.notes.back());
        }
      }
    }
}

}  // namespace dasim::kernels::cuda
#endif  // DASIM_HAVE_CUDNN
