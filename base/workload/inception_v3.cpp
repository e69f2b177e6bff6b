// Inception v3 (Szegedy et al., arXiv 1512.00567) as torchvision's Inception3 builds it without the
// auxiliary classifier (aux_logits=False: the head is a training-time regulariser that
// tf_cnn_benchmarks' inception3 also leaves out by default), 299x299 input. Every conv is a
// BasicConv2d: conv without bias, BatchNorm, ReLU. Module names follow torchvision's. Each block's
// branches start from the block input and end in one channel concatenation (torchvision
// concatenates Mixed_7's split 1x3 / 3x1 pairs first, a copy of a quarter of the block's output
// that is not a layer here). tf_cnn_benchmarks' inception3 has the same convolutions; it pools by
// max instead of average in Mixed_7c's pool branch.
#include "workload/builtin_models.hpp"
#include "workload/layer_builder.hpp"

#include <string>
#include <vector>

namespace dasim::workload {
namespace {

using Window = CnnBuilder::Window;

class InceptionBuilder {
 public:
  explicit InceptionBuilder(Precision precision) : b_(precision, 3, 299, 299) {}

  // BasicConv2d: a square kernel.
  void conv(const std::string& name, int out_channels, int kernel, int stride = 1, int pad = 0) {
    conv(name, out_channels, Window{kernel, kernel, stride, stride, pad, pad});
  }
  // BasicConv2d: any window (1x7 with pad (0, 3), 7x1 with pad (3, 0), ...).
  void conv(const std::string& name, int out_channels, const Window& window) {
    b_.conv(name + ".conv", out_channels, window, false);
    b_.batch_norm(name + ".bn");
    b_.relu(name + ".relu");
  }
  CnnBuilder& cnn() { return b_; }

  // InceptionA (Mixed_5b-d): 1x1 | 1x1 -> 5x5 | 1x1 -> 3x3 -> 3x3 | avg-pool -> 1x1.
  void block_a(const std::string& p, int pool_features) {
    const CnnBuilder::Shape in = b_.shape();
    conv(p + ".branch1x1", 64, 1);
    b_.set_shape(in);
    conv(p + ".branch5x5_1", 48, 1);
    conv(p + ".branch5x5_2", 64, 5, 1, 2);
    b_.set_shape(in);
    conv(p + ".branch3x3dbl_1", 64, 1);
    conv(p + ".branch3x3dbl_2", 96, 3, 1, 1);
    conv(p + ".branch3x3dbl_3", 96, 3, 1, 1);
    b_.set_shape(in);
    b_.avg_pool(p + ".branch_pool.avg_pool", 3, 1, 1);
    conv(p + ".branch_pool", pool_features, 1);
    b_.concat(p + ".concat", {64, 64, 96, pool_features});
  }

  // InceptionB (Mixed_6a): 3x3/2 | 1x1 -> 3x3 -> 3x3/2 | max-pool 3x3/2.
  void block_b(const std::string& p) {
    const CnnBuilder::Shape in = b_.shape();
    conv(p + ".branch3x3", 384, 3, 2);
    b_.set_shape(in);
    conv(p + ".branch3x3dbl_1", 64, 1);
    conv(p + ".branch3x3dbl_2", 96, 3, 1, 1);
    conv(p + ".branch3x3dbl_3", 96, 3, 2);
    b_.set_shape(in);
    b_.max_pool(p + ".branch_pool", 3, 2, 0);
    b_.concat(p + ".concat", {384, 96, in.channels});
  }

  // InceptionC (Mixed_6b-e): 1x1 | 1x1 -> 1x7 -> 7x1 | 1x1 -> 7x1 -> 1x7 -> 7x1 -> 1x7 |
  // avg-pool -> 1x1, with c7 channels inside the factorised branches.
  void block_c(const std::string& p, int c7) {
    const Window one_by_seven{1, 7, 1, 1, 0, 3};
    const Window seven_by_one{7, 1, 1, 1, 3, 0};
    const CnnBuilder::Shape in = b_.shape();
    conv(p + ".branch1x1", 192, 1);
    b_.set_shape(in);
    conv(p + ".branch7x7_1", c7, 1);
    conv(p + ".branch7x7_2", c7, one_by_seven);
    conv(p + ".branch7x7_3", 192, seven_by_one);
    b_.set_shape(in);
    conv(p + ".branch7x7dbl_1", c7, 1);
    conv(p + ".branch7x7dbl_2", c7, seven_by_one);
    conv(p + ".branch7x7dbl_3", c7, one_by_seven);
    conv(p + ".branch7x7dbl_4", c7, seven_by_one);
    conv(p + ".branch7x7dbl_5", 192, one_by_seven);
    b_.set_shape(in);
    b_.avg_pool(p + ".branch_pool.avg_pool", 3, 1, 1);
    conv(p + ".branch_pool", 192, 1);
    b_.concat(p + ".concat", {192, 192, 192, 192});
  }

  // InceptionD (Mixed_7a): 1x1 -> 3x3/2 | 1x1 -> 1x7 -> 7x1 -> 3x3/2 | max-pool 3x3/2.
  void block_d(const std::string& p) {
    const CnnBuilder::Shape in = b_.shape();
    conv(p + ".branch3x3_1", 192, 1);
    conv(p + ".branch3x3_2", 320, 3, 2);
    b_.set_shape(in);
    conv(p + ".branch7x7x3_1", 192, 1);
    conv(p + ".branch7x7x3_2", 192, Window{1, 7, 1, 1, 0, 3});
    conv(p + ".branch7x7x3_3", 192, Window{7, 1, 1, 1, 3, 0});
    conv(p + ".branch7x7x3_4", 192, 3, 2);
    b_.set_shape(in);
    b_.max_pool(p + ".branch_pool", 3, 2, 0);
    b_.concat(p + ".concat", {320, 192, in.channels});
  }

  // InceptionE (Mixed_7b-c): 1x1 | 1x1 -> (1x3, 3x1) | 1x1 -> 3x3 -> (1x3, 3x1) | avg-pool -> 1x1;
  // each pair reads the same tensor.
  void block_e(const std::string& p) {
    const Window one_by_three{1, 3, 1, 1, 0, 1};
    const Window three_by_one{3, 1, 1, 1, 1, 0};
    const CnnBuilder::Shape in = b_.shape();
    conv(p + ".branch1x1", 320, 1);
    b_.set_shape(in);
    conv(p + ".branch3x3_1", 384, 1);
    const CnnBuilder::Shape split = b_.shape();
    conv(p + ".branch3x3_2a", 384, one_by_three);
    b_.set_shape(split);
    conv(p + ".branch3x3_2b", 384, three_by_one);
    b_.set_shape(in);
    conv(p + ".branch3x3dbl_1", 448, 1);
    conv(p + ".branch3x3dbl_2", 384, 3, 1, 1);
    const CnnBuilder::Shape dbl_split = b_.shape();
    conv(p + ".branch3x3dbl_3a", 384, one_by_three);
    b_.set_shape(dbl_split);
    conv(p + ".branch3x3dbl_3b", 384, three_by_one);
    b_.set_shape(in);
    b_.avg_pool(p + ".branch_pool.avg_pool", 3, 1, 1);
    conv(p + ".branch_pool", 192, 1);
    b_.concat(p + ".concat", {320, 384, 384, 384, 384, 192});
  }

 private:
  CnnBuilder b_;
};

}  // namespace

Workload inception_v3(Precision precision) {
  InceptionBuilder b(precision);
  b.conv("Conv2d_1a_3x3", 32, 3, 2);      // 299 -> 149
  b.conv("Conv2d_2a_3x3", 32, 3);         // -> 147
  b.conv("Conv2d_2b_3x3", 64, 3, 1, 1);   // -> 147
  b.cnn().max_pool("maxpool1", 3, 2, 0);  // -> 73
  b.conv("Conv2d_3b_1x1", 80, 1);
  b.conv("Conv2d_4a_3x3", 192, 3);        // -> 71
  b.cnn().max_pool("maxpool2", 3, 2, 0);  // -> 35
  b.block_a("Mixed_5b", 32);              // 35 x 35 x 256
  b.block_a("Mixed_5c", 64);              // 35 x 35 x 288
  b.block_a("Mixed_5d", 64);
  b.block_b("Mixed_6a");  // 17 x 17 x 768
  b.block_c("Mixed_6b", 128);
  b.block_c("Mixed_6c", 160);
  b.block_c("Mixed_6d", 160);
  b.block_c("Mixed_6e", 192);
  b.block_d("Mixed_7a");  // 8 x 8 x 1280
  b.block_e("Mixed_7b");  // 8 x 8 x 2048
  b.block_e("Mixed_7c");
  b.cnn().global_avg_pool("avgpool");
  b.cnn().linear("fc", 1000, true);  // dropout before it is not a layer, as in vgg16
  return builtin_workload("inception-v3", precision, b.cnn().take(), "image");
}

}  // namespace dasim::workload
