// The bottleneck ResNets as torchvision builds them (v1.5): conv1 7x7/2, max-pool 3x3/2, four
// stages of bottlenecks (1x1 -> 3x3 with the stage stride -> 1x1 x4), a 1x1 downsample conv on the
// first block of each stage, global average pool, FC 2048 -> 1000. Convs have no bias; every conv is
// followed by BatchNorm. Layer names follow torchvision's module names. The depths differ only in
// the blocks per stage (He et al., arXiv 1512.03385, Table 1): 50 [3, 4, 6, 3], 101 [3, 4, 23, 3],
// 152 [3, 8, 36, 3].
#include "workload/builtin_models.hpp"
#include "workload/layer_builder.hpp"

#include <fmt/format.h>

#include <array>

namespace dasim::workload {
namespace {

Workload bottleneck_resnet(const std::string& name, Precision precision,
                           const std::array<int, 4>& blocks_per_stage) {
  CnnBuilder b(precision, 3, 224, 224);
  b.conv("conv1", 64, 7, 2, 3, false);
  b.batch_norm("bn1");
  b.relu("relu");
  b.max_pool("maxpool", 3, 2, 1);

  const int widths[4] = {64, 128, 256, 512};
  const int expansion = 4;
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks_per_stage[size_t(stage)]; ++block) {
      std::string p = fmt::format("layer{}.{}.", stage + 1, block);
      int stride = (block == 0 && stage > 0) ? 2 : 1;
      int width = widths[stage];
      CnnBuilder::Shape input = b.shape();
      b.conv(p + "conv1", width, 1, 1, 0, false);
      b.batch_norm(p + "bn1");
      b.relu(p + "relu1");
      b.conv(p + "conv2", width, 3, stride, 1, false);
      b.batch_norm(p + "bn2");
      b.relu(p + "relu2");
      b.conv(p + "conv3", width * expansion, 1, 1, 0, false);
      b.batch_norm(p + "bn3");
      if (block == 0) {
        // The shortcut projects the block input to the block output shape.
        CnnBuilder::Shape main_out = b.shape();
        b.set_shape(input);
        b.conv(p + "downsample.0", width * expansion, 1, stride, 0, false);
        b.batch_norm(p + "downsample.1");
        b.set_shape(main_out);
      }
      b.residual_add(p + "add");
      b.relu(p + "relu3");
    }
  }
  b.global_avg_pool("avgpool");
  b.linear("fc", 1000, true);

  return builtin_workload(name, precision, b.take(), "image");
}

}  // namespace

Workload resnet50(Precision precision) {
  return bottleneck_resnet("resnet50", precision, {3, 4, 6, 3});
}

Workload resnet101(Precision precision) {
  return bottleneck_resnet("resnet101", precision, {3, 4, 23, 3});
}

Workload resnet152(Precision precision) {
  return bottleneck_resnet("resnet152", precision, {3, 8, 36, 3});
}

}  // namespace dasim::workload
