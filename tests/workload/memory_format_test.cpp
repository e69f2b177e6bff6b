// NCHW convolutions on tensor cores: a transpose layer after every convolution, with the bytes
// of its passes computed by hand from ResNet-50's tensor shapes (torchvision's layout: a 7x7 stem
// on 3 x 224 x 224 images, 53 convolutions in all).
#include "workload/memory_format.hpp"
#include "common/errors.hpp"
#include "workload/workload_file.hpp"

#include "support/workload_layers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

using namespace dasim::workload;

using dasim::testing::layer_named;
using dasim::testing::layers_of_kind;

namespace {

Workload resnet_in_layout(Precision precision, MemoryFormat format) {
  WorkloadOptions options;
  options.precision = precision;
  options.memory_format = format;
  return load_workload("resnet50", options);
}

}  // namespace

TEST(MemoryFormat, NchwOnTensorCoresAddsOneTransposeLayerPerConvolution) {
  const Workload plain = resnet_in_layout(Precision::amp, MemoryFormat::channels_last);
  const Workload nchw = resnet_in_layout(Precision::amp, MemoryFormat::nchw);
  EXPECT_EQ(layers_of_kind(plain, LayerKind::conv), 53);
  EXPECT_EQ(nchw.layers.size(), plain.layers.size() + 53);
  EXPECT_EQ(nchw.layers[1].name, "conv1.layout");  // right after the convolution it belongs to
  EXPECT_EQ(nchw.total_params(), plain.total_params());
  EXPECT_DOUBLE_EQ(nchw.forward_flops(), plain.forward_flops());
}

TEST(MemoryFormat, TheStemTransposesItsImagesAndOutputOnceEachWay) {
  // fp16 activations: 2 bytes. Input 3 x 224 x 224 = 150,528, output 64 x 112 x 112 = 802,816
  // elements. Forward: read + write each = 2 x 953,344 x 2 B. Its input needs no gradient, so
  // backward is the weight-gradient convolution's transposes alone: the same bytes.
  const Workload nchw = resnet_in_layout(Precision::amp, MemoryFormat::nchw);
  const Layer& stem = layer_named(nchw, "conv1.layout");
  EXPECT_DOUBLE_EQ(stem.activation_bytes, 3'813'376);
  ASSERT_TRUE(stem.backward_activation_bytes);
  EXPECT_DOUBLE_EQ(*stem.backward_activation_bytes, 3'813'376);
  EXPECT_DOUBLE_EQ(stem.forward_flops, 0);
}

TEST(MemoryFormat, AnInnerConvolutionTransposesTwiceAsMuchInBackward) {
  // layer1.0.conv1: 1x1, 64 -> 64 channels on 56 x 56: 200,704 elements in and out. TF32 keeps
  // fp32 activations (4 bytes). Forward 2 x 401,408 x 4 B; backward 4 x: the data gradient's
  // two tensors and the weight gradient's two.
  const Workload nchw = resnet_in_layout(Precision::tf32, MemoryFormat::nchw);
  const Layer& layout = layer_named(nchw, "layer1.0.conv1.layout");
  EXPECT_DOUBLE_EQ(layout.activation_bytes, 3'211'264);
  EXPECT_DOUBLE_EQ(*layout.backward_activation_bytes, 6'422'528);
}

TEST(MemoryFormat, Fp32AndChannelsLastAreUnchanged) {
  // fp32 convolutions run on the CUDA cores, which take NCHW as it is.
  const Workload fp32 = resnet_in_layout(Precision::fp32, MemoryFormat::nchw);
  EXPECT_EQ(fp32.layers.size(), resnet_in_layout(Precision::fp32, MemoryFormat::channels_last).layers.size());
  EXPECT_DOUBLE_EQ(fp32.activation_bytes(),
                   resnet_in_layout(Precision::fp32, MemoryFormat::channels_last).activation_bytes());
  EXPECT_FALSE(convolutions_use_tensor_cores(Precision::fp32));
  for (Precision p : {Precision::tf32, Precision::fp16, Precision::bf16, Precision::amp, Precision::amp_bf16})
    EXPECT_TRUE(convolutions_use_tensor_cores(p));
}

TEST(MemoryFormat, AnUnknownFormatNamesTheFileAndPath) {
  try {
    parse_memory_format("nhwc", "s.json", "memory_format");
    FAIL() << "nhwc was accepted";
  } catch (const dasim::InputError& e) {
    EXPECT_STREQ(e.what(), "s.json: memory_format: expected one of channels_last, nchw, got \"nhwc\"");
  }
  EXPECT_EQ(parse_memory_format("nchw"), MemoryFormat::nchw);
}
