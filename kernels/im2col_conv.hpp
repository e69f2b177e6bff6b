// 2-D convolution on the CPU through im2col + sgemm (OpenBLAS), NCHW layout, fp32. Forward,
// backward-data and backward-filter, with groups. The calibration suite times these for every conv
// shape of the shipped workloads, and the executor can call the same functions to train, so the
// calibrated CPU times are the times of the code that actually runs.
//
// Per image and group g (Cg = C/groups input channels, Kg = K/groups output channels):
//   col[Cg*R*S, OH*OW] = im2col(x)          forward:        y  = W[Kg, Cg*R*S] * col
//   backward-data:  dcol = W^T * dy, dx = col2im(dcol)    backward-filter: dW += dy * col^T
#pragma once

#include "workload/layer.hpp"

#include <vector>

namespace dasim::kernels {

struct ConvGeometry {
  workload::ConvShape shape;
  int batch = 1;

  int out_h() const { return (shape.in_h + 2 * shape.pad - shape.kernel_h) / shape.stride + 1; }
  int out_w() const { return (shape.in_w + 2 * shape.pad - shape.kernel_w) / shape.stride + 1; }
  size_t input_elements() const;   // batch * C * H * W
  size_t output_elements() const;  // batch * K * OH * OW
  size_t weight_elements() const;  // K * C/groups * R * S
  size_t col_elements() const;     // scratch for one image and one group
  // FLOPs of one pass over the batch (forward, backward-data and backward-filter are equal):
  // 2 * batch * K * OH * OW * C/groups * R * S.
  double flops() const;
};

// Throws std::invalid_argument unless channels divide by groups and the output is non-empty.
void check_geometry(const ConvGeometry& g);

// Buffers are caller-owned and sized by the ConvGeometry getters; `col` is scratch.
void conv2d_forward(const ConvGeometry& g, const float* x, const float* w, float* y, float* col);
void conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w, float* dx, float* col);
void conv2d_backward_filter(const ConvGeometry& g, const float* x, const float* dy, float* dw, float* col);

// Exposed for tests and for other users of the same layout.
void im2col(const float* image, int channels, int h, int w, int kh, int kw, int stride, int pad, int out_h,
            int out_w, float* col);
void col2im_add(const float* col, int channels, int h, int w, int kh, int kw, int stride, int pad, int out_h,
                int out_w, float* image);

}  // namespace dasim::kernels
