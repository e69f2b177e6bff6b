// Built-in workloads, generated from their architecture definitions (layer_builder.hpp):
//   resnet50   torchvision ResNet-50 v1.5 (stride in the 3x3 conv of each bottleneck), 224x224
//   resnet101, resnet152  the same bottleneck network, 23 and 36 blocks in stage 3 (152: 8 in stage 2)
//   inception-v3  torchvision Inception3 without the auxiliary classifier, 299x299
//   vgg16      torchvision VGG-16 (no batch norm) with its three FC layers, 224x224
//   bert-large BertModel (24 layers, hidden 1024, 16 heads, FFN 4096) with pooler, no MLM/NSP heads
//   gpt2-xl    GPT-2 XL (48 layers, d 1600, 25 heads) with the LM head tied to the token embedding
#pragma once

#include "workload/workload.hpp"

#include <string>
#include <utility>
#include <vector>

namespace dasim::workload {

Workload resnet50(Precision precision);
Workload resnet101(Precision precision);
Workload resnet152(Precision precision);
Workload inception_v3(Precision precision);
Workload vgg16(Precision precision);
// sequence_length must be in [1, 512] (BERT's position table).
Workload bert_large(Precision precision, int sequence_length = 128);
// sequence_length must be in [1, 1024] (GPT-2's context).
Workload gpt2_xl(Precision precision, int sequence_length = 1024);

const std::vector<std::string>& builtin_workload_names();

// The Workload a generator returns: its layers plus what every built-in shares.
inline Workload builtin_workload(const std::string& name, Precision precision, std::vector<Layer> layers,
                                 const std::string& sample_name, int sequence_length = 0) {
  Workload w;
  w.name = name;
  w.precision = precision;
  w.layers = std::move(layers);
  w.sample_name = sample_name;
  w.sequence_length = sequence_length;
  w.origin = "built-in";
  return w;
}

}  // namespace dasim::workload
