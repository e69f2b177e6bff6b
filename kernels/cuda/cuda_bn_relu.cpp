// BatchNorm (training forward) + ReLU, fused and as two kernels, on the activations of ResNet-50's
// BN layers that a ReLU follows (ShapeSet::bn_relu), at every batch of the run, NHWC fp16:
//   fused    one cudnnBatchNormalizationForwardTrainingEx with CUDNN_BATCHNORM_OPS_BN_ACTIVATION
//            (ReLU), mode CUDNN_BATCHNORM_SPATIAL_PERSISTENT: cuDNN's fused path, what PyTorch runs
//            for channels-last BatchNorm;
//   unfused  the same call with CUDNN_BATCHNORM_OPS_BN, then cudnnActivationForward (ReLU, in place)
//            as a second kernel, as eager frameworks run BatchNorm2d then ReLU(inplace=True).
// `bytes` is the compute model's figure (workload/fusion.hpp): one pass reads the input and writes
// the output once, 2 x elements x 2 bytes; the unfused pair is two such passes. So bandwidth_Bps
// of the fused kernel near fitted.memory_bandwidth_Bps, and its time near the unfused BN's alone
// (params.bn_median_s), checks the claim "a fused BN + ReLU moves the bytes of one pass".
// The legacy cudnnBatchNormalization* and cudnnActivation* API is deprecated in cuDNN 9 but present
// (cuDNN 9.19 here). Built only with cuDNN (DASIM_HAVE_CUDNN).
#ifdef DASIM_HAVE_CUDNN
#include "cuda/cuda_cudnn.hpp"
#include "cuda/cuda_suite.hpp"

#include <algorithm>
#include <memory>

namespace dasim::kernels::cuda {
namespace {

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;

// Descriptors of one activation tensor (NHWC fp16), its per-channel statistics and the ReLU.
struct BnProblem {
  cudnnTensorDescriptor_t x{}, stats{};
  cudnnActivationDescriptor_t relu{};
  BnProblem(int batch, const Activation& a) {
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&stats), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateActivationDescriptor(&relu), "cudnnCreateActivationDescriptor");
    check_cudnn(
        cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, batch, a.channels, a.h, a.w),
        "set x");
    check_cudnn(cudnnDeriveBNTensorDescriptor(stats, x, kMode), "cudnnDeriveBNTensorDescriptor");
    check_cudnn(cudnnSetActivationDescriptor(relu, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
                "set relu");
  }
  ~BnProblem() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(stats);
    cudnnDestroyActivationDescriptor(relu);
  }
  BnProblem(const BnProblem&) = delete;
  BnProblem& operator=(const BnProblem&) = delete;
};

// Workspace and reserve space of one BatchNorm variant.
struct BnSpace {
  std::unique_ptr<DeviceBuffer> workspace, reserve;
  BnSpace(cudnnHandle_t handle, const BnProblem& prob, cudnnBatchNormOps_t ops) {
    cudnnActivationDescriptor_t act = ops == CUDNN_BATCHNORM_OPS_BN ? nullptr : prob.relu;
    size_t ws = 0, rs = 0;
    // z is unused without the residual add; its descriptor is x's, as PyTorch passes it.
    check_cudnn(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(handle, kMode, ops, prob.x, prob.x,
                                                                         prob.x, prob.stats, act, &ws),
                "BN workspace size");
    check_cudnn(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(handle, kMode, ops, act, prob.x, &rs),
                "BN reserve size");
    workspace = std::make_unique<DeviceBuffer>(ws);
    reserve = std::make_unique<DeviceBuffer>(rs);
  }
};

Measurement bn_measurement(const char* kind, const Activation& a, int batch, double bytes, Stats stats) {
  Measurement m;
  m.name = fmt::format("{}_c{}_h{}_w{}_b{}", kind, a.channels, a.h, a.w, batch);
  m.kind = kind;
  m.precision = "fp16";
  m.params = {{"channels", a.channels},
              {"h", a.h},
              {"w", a.w},
              {"batch", batch},
              {"elements", a.elements() * batch},
              {"layout", "NHWC"},
              {"library", "cuDNN"},
              {"mode", "CUDNN_BATCHNORM_SPATIAL_PERSISTENT"}};
  m.bytes = bytes;
  m.stats = stats;
  return m;
}

void time_bn_relu(cudnnHandle_t handle, cudaStream_t stream, const Activation& a, int batch,
                  const SuiteOptions& options, SuiteResult& result) {
  BnProblem prob(batch, a);
  const size_t elements = static_cast<size_t>(a.elements()) * batch;
  const size_t channels = static_cast<size_t>(a.channels);
  DeviceBuffer x(2 * elements), y(2 * elements);
  fill_values(x.get(), elements, DType::f16);
  DeviceBuffer scale(4 * channels), bias(4 * channels), running_mean(4 * channels), running_var(4 * channels),
      save_mean(4 * channels), save_inv_var(4 * channels);
  fill_values(scale.get(), channels, DType::f32);
  fill_values(bias.get(), channels, DType::f32);
  BnSpace fused_space(handle, prob, CUDNN_BATCHNORM_OPS_BN_ACTIVATION),
      bn_space(handle, prob, CUDNN_BATCHNORM_OPS_BN);
  const float one = 1.0f, zero = 0.0f;
  auto batch_norm = [&](cudnnBatchNormOps_t ops, const BnSpace& space) {
    cudnnActivationDescriptor_t act = ops == CUDNN_BATCHNORM_OPS_BN ? nullptr : prob.relu;
    check_cudnn(cudnnBatchNormalizationForwardTrainingEx(
                    handle, kMode, ops, &one, &zero, prob.x, x.get(), nullptr, nullptr, prob.x, y.get(),
                    prob.stats, scale.get(), bias.get(), 0.1, running_mean.get(), running_var.get(), 1e-5,
                    save_mean.get(), save_inv_var.get(), act, space.workspace->get(),
                    space.workspace->bytes(), space.reserve->get(), space.reserve->bytes()),
                "cudnnBatchNormalizationForwardTrainingEx");
  };
  auto relu = [&] {
    check_cudnn(cudnnActivationForward(handle, prob.relu, &one, prob.x, y.get(), &zero, prob.x, y.get()),
                "cudnnActivationForward");
  };
  const int reps = std::max(options.reps, options.quick ? 5 : 20), warmup = options.warmup + 2;
  const double pass_bytes = 2.0 * 2.0 * static_cast<double>(elements);  // read + write, 2 bytes each
  Stats fused =
      time_gpu([&] { batch_norm(CUDNN_BATCHNORM_OPS_BN_ACTIVATION, fused_space); }, stream, warmup, reps);
  Stats unfused = time_gpu(
      [&] {
        batch_norm(CUDNN_BATCHNORM_OPS_BN, bn_space);
        relu();
      },
      stream, warmup, reps);
  Stats bn_alone = time_gpu([&] { batch_norm(CUDNN_BATCHNORM_OPS_BN, bn_space); }, stream, warmup, reps);
  Stats relu_alone = time_gpu(relu, stream, warmup, reps);
  result.measurements.push_back(bn_measurement("bn_relu_fused", a, batch, pass_bytes, fused));
  result.measurements.back().params["ops"] = "CUDNN_BATCHNORM_OPS_BN_ACTIVATION (ReLU)";
  Measurement pair = bn_measurement("bn_relu_unfused", a, batch, 2 * pass_bytes, unfused);
  pair.params["ops"] = "CUDNN_BATCHNORM_OPS_BN, then cudnnActivationForward ReLU in place";
  pair.params["bn_median_s"] = bn_alone.median_s;
  pair.params["relu_median_s"] = relu_alone.median_s;
  result.measurements.push_back(std::move(pair));
}

}  // namespace

void run_bn_relu_benchmarks(const SuiteOptions& options, SuiteResult& result) {
  CudnnOnStream cudnn;
  for (int batch : options.batches)
    for (const auto& a : options.shapes.bn_relu) {
      if (options.over_budget()) {
        result.notes.push_back(
            fmt::format("BN + ReLU: time budget of {} s reached at batch {}, {}x{}x{}; the rest skipped",
                        options.time_budget_s, batch, a.channels, a.h, a.w));
        options.say(result.notes.back());
        return;
      }
      options.say(fmt::format("cuDNN BN + ReLU fp16 NHWC {}x{}x{} batch {}", a.channels, a.h, a.w, batch));
      try {
        time_bn_relu(cudnn.handle, cudnn.stream, a, batch, options, result);
      } catch (const RuntimeFailure& e) {
        cudaGetLastError();
        result.notes.push_back(
            fmt::format("BN + ReLU {}x{}x{} batch {} skipped: {}", a.channels, a.h, a.w, batch, e.what()));
        options.say(result.notes.back());
      }
    }
}

}  // namespace dasim::kernels::cuda
#endif  // DASIM_HAVE_CUDNN
