// VGG-16 (configuration D of Simonyan & Zisserman, torchvision `vgg16`): thirteen 3x3 convs with
// bias and ReLU in five groups, each ending in a 2x2/2 max-pool, then FC 25088 -> 4096 -> 4096 ->
// 1000. torchvision's AdaptiveAvgPool2d(7x7) is the identity at 224x224 and dropout is not
// modelled, so neither appears as a layer.
#include "workload/builtin_models.hpp"
#include "workload/layer_builder.hpp"

#include <fmt/format.h>

namespace dasim::workload {

Workload vgg16(Precision precision) {
  CnnBuilder b(precision, 3, 224, 224);
  const int groups[5][2] = {{2, 64}, {2, 128}, {3, 256}, {3, 512}, {3, 512}};  // {convs, channels}
  for (int g = 0; g < 5; ++g) {
    for (int i = 0; i < groups[g][0]; ++i) {
      std::string p = fmt::format("conv{}_{}", g + 1, i + 1);
      b.conv(p, groups[g][1], 3, 1, 1, true);
      b.relu(p + ".relu");
    }
    b.max_pool(fmt::format("pool{}", g + 1), 2, 2, 0);
  }
  b.linear("fc6", 4096, true);
  b.relu("fc6.relu");
  b.linear("fc7", 4096, true);
  b.relu("fc7.relu");
  b.linear("fc8", 1000, true);

  return builtin_workload("vgg16", precision, b.take(), "image");
}

}  // namespace dasim::workload
