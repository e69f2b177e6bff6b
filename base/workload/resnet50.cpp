// ResNet-50 as torchvision builds it (v1.5): conv1 7x7/2, max-pool 3x3/2, four stages of
// [3, 4, 6, 3] bottlenecks (1x1 -> 3x3 with the stage stride -> 1x1 x4), a 1x1 downsample conv on
// the first block of each stage, global average pool, FC 2048 -> 1000. Convs have no bias; every
// conv is followed by BatchNorm. Layer names follow torchvision's module names.
#include "workload/builtin_models.hpp"
#include "workload/layer_builder.hpp"

#include <fmt/format.h>

namespace dasim::workload {

Workload resnet50(Precision precision) {
  CnnBuilder b(precision, 3, 224, 224);
  b.conv("conv1", 64, 7, 2, 3, false);
  b.batch_norm("bn1");
  b.relu("relu");
  b.max_pool("maxpool", 3, 2, 1);

  const int blocks_per_stage[4] = {3, 4, 6, 3};
  const int widths[4] = {64, 128, 256, 512};
  const int expansion = 4;
  for (int stage = 0; stage < 4; ++stage) {
    for (int block = 0; block < blocks_per_stage[stage]; ++block) {
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

  return builtin_workload("resnet50", precision, b.take(), "image");
}

}  // namespace dasim::workload
