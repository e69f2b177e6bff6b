// im2col + sgemm convolution (see im2col_conv.hpp for the layout and the three GEMMs).
#include "im2col_conv.hpp"

#include <cblas.h>

#include <algorithm>
#include <stdexcept>

namespace dasim::kernels {

size_t ConvGeometry::input_elements() const {
  return static_cast<size_t>(batch) * shape.in_channels * shape.in_h * shape.in_w;
}
size_t ConvGeometry::output_elements() const {
  return static_cast<size_t>(batch) * shape.out_channels * out_h() * out_w();
}
size_t ConvGeometry::weight_elements() const {
  return static_cast<size_t>(shape.out_channels) * (shape.in_channels / shape.groups) * shape.kernel_h *
         shape.kernel_w;
}
size_t ConvGeometry::col_elements() const {
  return static_cast<size_t>(shape.in_channels / shape.groups) * shape.kernel_h * shape.kernel_w * out_h() *
         out_w();
}
double ConvGeometry::flops() const {
  return 2.0 * batch * shape.out_channels * out_h() * out_w() * (shape.in_channels / shape.groups) *
         shape.kernel_h * shape.kernel_w;
}

void check_geometry(const ConvGeometry& g) {
  const auto& s = g.shape;
  if (g.batch < 1 || s.groups < 1 || s.stride < 1 || s.pad < 0 || s.kernel_h < 1 || s.kernel_w < 1)
    throw std::invalid_argument("conv geometry: batch, groups, stride and kernel must be >= 1, pad >= 0");
  if (s.in_channels % s.groups != 0 || s.out_channels % s.groups != 0)
    throw std::invalid_argument("conv geometry: channels must be divisible by groups");
  if (g.out_h() < 1 || g.out_w() < 1) throw std::invalid_argument("conv geometry: empty output");
  // The CPU kernel has one stride and pad for both directions (the calibrated shapes are ResNet's
  // and VGG's): an asymmetric shape must not be timed as a symmetric one under its key.
  if (!workload::conv_is_symmetric(s))
    throw std::invalid_argument("conv geometry: the CPU kernel runs one stride and pad for both directions");
}

void im2col(const float* image, int channels, int h, int w, int kh, int kw, int stride, int pad, int out_h,
            int out_w, float* col) {
  for (int c = 0; c < channels; ++c)
    for (int r = 0; r < kh; ++r)
      for (int s = 0; s < kw; ++s) {
        float* row = col + ((static_cast<size_t>(c) * kh + r) * kw + s) * out_h * out_w;
        for (int oy = 0; oy < out_h; ++oy) {
          int iy = oy * stride - pad + r;
          float* out = row + static_cast<size_t>(oy) * out_w;
          if (iy < 0 || iy >= h) {
            std::fill(out, out + out_w, 0.0f);
            continue;
          }
          const float* in = image + (static_cast<size_t>(c) * h + iy) * w;
          for (int ox = 0; ox < out_w; ++ox) {
            int ix = ox * stride - pad + s;
            out[ox] = (ix >= 0 && ix < w) ? in[ix] : 0.0f;
          }
        }
      }
}

void col2im_add(const float* col, int channels, int h, int w, int kh, int kw, int stride, int pad, int out_h,
                int out_w, float* image) {
  for (int c = 0; c < channels; ++c)
    for (int r = 0; r < kh; ++r)
      for (int s = 0; s < kw; ++s) {
        const float* row = col + ((static_cast<size_t>(c) * kh + r) * kw + s) * out_h * out_w;
        for (int oy = 0; oy < out_h; ++oy) {
          int iy = oy * stride - pad + r;
          if (iy < 0 || iy >= h) continue;
          float* out = image + (static_cast<size_t>(c) * h + iy) * w;
          const float* in = row + static_cast<size_t>(oy) * out_w;
          for (int ox = 0; ox < out_w; ++ox) {
            int ix = ox * stride - pad + s;
            if (ix >= 0 && ix < w) out[ix] += in[ox];
          }
        }
      }
}

namespace {

struct Dims {
  int cg, kg, patch, pixels;  // per group: in channels, out channels, Cg*R*S, OH*OW
  size_t in_image, out_image, in_group, out_group, w_group;
};

Dims dims_of(const ConvGeometry& g) {
  check_geometry(g);
  const auto& s = g.shape;
  Dims d{};
  d.cg = s.in_channels / s.groups;
  d.kg = s.out_channels / s.groups;
  d.patch = d.cg * s.kernel_h * s.kernel_w;
  d.pixels = g.out_h() * g.out_w();
  d.in_group = static_cast<size_t>(d.cg) * s.in_h * s.in_w;
  d.out_group = static_cast<size_t>(d.kg) * d.pixels;
  d.in_image = d.in_group * s.groups;
  d.out_image = d.out_group * s.groups;
  d.w_group = static_cast<size_t>(d.kg) * d.patch;
  return d;
}

}  // namespace

void conv2d_forward(const ConvGeometry& g, const float* x, const float* w, float* y, float* col) {
  Dims d = dims_of(g);
  const auto& s = g.shape;
  for (int n = 0; n < g.batch; ++n)
    for (int grp = 0; grp < s.groups; ++grp) {
      im2col(x + n * d.in_image + grp * d.in_group, d.cg, s.in_h, s.in_w, s.kernel_h, s.kernel_w, s.stride,
             s.pad, g.out_h(), g.out_w(), col);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d.kg, d.pixels, d.patch, 1.0f,
                  w + grp * d.w_group, d.patch, col, d.pixels, 0.0f, y + n * d.out_image + grp * d.out_group,
                  d.pixels);
    }
}

void conv2d_backward_data(const ConvGeometry& g, const float* dy, const float* w, float* dx, float* col) {
  Dims d = dims_of(g);
  const auto& s = g.shape;
  std::fill(dx, dx + g.input_elements(), 0.0f);
  for (int n = 0; n < g.batch; ++n)
    for (int grp = 0; grp < s.groups; ++grp) {
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, d.patch, d.pixels, d.kg, 1.0f, w + grp * d.w_group,
                  d.patch, dy + n * d.out_image + grp * d.out_group, d.pixels, 0.0f, col, d.pixels);
      col2im_add(col, d.cg, s.in_h, s.in_w, s.kernel_h, s.kernel_w, s.stride, s.pad, g.out_h(), g.out_w(),
                 dx + n * d.in_image + grp * d.in_group);
    }
}

void conv2d_backward_filter(const ConvGeometry& g, const float* x, const float* dy, float* dw, float* col) {
  Dims d = dims_of(g);
  const auto& s = g.shape;
  std::fill(dw, dw + g.weight_elements(), 0.0f);
  for (int n = 0; n < g.batch; ++n)
    for (int grp = 0; grp < s.groups; ++grp) {
      im2col(x + n * d.in_image + grp * d.in_group, d.cg, s.in_h, s.in_w, s.kernel_h, s.kernel_w, s.stride,
             s.pad, g.out_h(), g.out_w(), col);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, d.kg, d.patch, d.pixels, 1.0f,
                  dy + n * d.out_image + grp * d.out_group, d.pixels, col, d.pixels, 1.0f,
                  dw + grp * d.w_group, d.patch);
    }
}

}  // namespace dasim::kernels
