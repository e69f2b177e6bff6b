// BERT-large (Devlin et al.; HuggingFace BertModel layout: post-LayerNorm encoder, query, key and
// value as three projections, pooler on the [CLS] token) and GPT-2 XL (Radford et al.; pre-LayerNorm
// blocks with one fused c_attn projection, final LayerNorm, LM head tied to the token embedding so
// its weight is counted once).
// Dropout (hidden and attention probabilities, p = 0.1 in both) is a layer where the reference
// implementations apply it.
#include "common/errors.hpp"
#include "workload/builtin_models.hpp"
#include "workload/layer_builder.hpp"
#include "workload/workload_file.hpp"

#include <fmt/format.h>

namespace dasim::workload {
namespace {

void check_sequence_length(const std::string& model, int sequence_length, int max_positions) {
  if (sequence_length < 1 || sequence_length > max_positions)
    throw SequenceLengthError(
        fmt::format("{} takes a sequence length in [1, {}], got {}", model, max_positions, sequence_length));
}

}  // namespace

Workload bert_large(Precision precision, int sequence_length) {
  const int layers = 24, hidden = 1024, heads = 16, ffn = 4096;
  const int64_t vocab = 30522, max_positions = 512, type_vocab = 2;
  check_sequence_length("bert-large", sequence_length, int(max_positions));

  SequenceBuilder b(precision, sequence_length, hidden);
  b.embedding("embeddings", {vocab, max_positions, type_vocab});
  b.layer_norm("embeddings.LayerNorm", false);
  b.dropout("embeddings.dropout");
  for (int i = 0; i < layers; ++i) {
    std::string p = fmt::format("encoder.layer.{}.", i);
    b.begin_block(p.substr(0, p.size() - 1));
    // Three projections, as HuggingFace's and DeepLearningExamples' BertSelfAttention run them
    // (nn.Linear query, key and value): three GEMMs of a third of the fused one's width.
    for (const char* projection : {"query", "key", "value"})
      b.linear(p + "attention." + projection, hidden, hidden, true);
    b.attention(p + "attention.core", heads, SequenceBuilder::AttentionMask::added);
    b.linear(p + "attention.output.dense", hidden, hidden, true);
    b.dropout(p + "attention.output.dropout");
    b.layer_norm(p + "attention.output.LayerNorm", true);
    b.linear(p + "intermediate.dense", hidden, ffn, true);
    b.activation(p + "intermediate.gelu", ffn);
    b.linear(p + "output.dense", ffn, hidden, true);
    b.dropout(p + "output.dropout");
    b.layer_norm(p + "output.LayerNorm", true);
  }
  b.end_block();
  b.linear("pooler.dense", hidden, hidden, true, 1);
  b.activation("pooler.tanh", hidden, 1);

  return builtin_workload("bert-large", precision, b.take(), "sequence", sequence_length);
}

Workload gpt2_xl(Precision precision, int sequence_length) {
  const int layers = 48, d = 1600, heads = 25;
  const int64_t vocab = 50257, context = 1024;
  check_sequence_length("gpt2-xl", sequence_length, int(context));

  SequenceBuilder b(precision, sequence_length, d);
  b.embedding("wte+wpe", {vocab, context});
  b.dropout("drop");
  for (int i = 0; i < layers; ++i) {
    std::string p = fmt::format("h.{}.", i);
    b.begin_block(p.substr(0, p.size() - 1));
    b.layer_norm(p + "ln_1", false);
    b.linear(p + "attn.c_attn", d, 3 * d, true);
    b.attention(p + "attn.core", heads, SequenceBuilder::AttentionMask::causal_where);
    b.linear(p + "attn.c_proj", d, d, true);
    b.dropout(p + "attn.resid_dropout");
    b.residual_add(p + "attn.add");
    b.layer_norm(p + "ln_2", false);
    b.linear(p + "mlp.c_fc", d, 4 * d, true);
    b.activation(p + "mlp.gelu", 4 * d);
    b.linear(p + "mlp.c_proj", 4 * d, d, true);
    b.dropout(p + "mlp.dropout");
    b.residual_add(p + "mlp.add");
  }
  b.end_block();
  b.layer_norm("ln_f", false);
  // Tied to wte: the GEMM and its two gradients are real work, the parameters are counted once.
  b.linear("lm_head", d, int(vocab), false, -1, false);
  // Training computes the next-token loss over every position's logits (GPT2LMHeadModel with
  // labels, huggingface/transformers @ 0010f602, models/gpt2/modeling_gpt2.py).
  b.lm_loss("lm_loss", vocab);

  return builtin_workload("gpt2-xl", precision, b.take(), "sequence", sequence_length);
}

const std::vector<std::string>& builtin_workload_names() {
  static const std::vector<std::string> names{"resnet50", "resnet101",  "resnet152", "inception-v3",
                                              "vgg16",    "bert-large", "gpt2-xl"};
  return names;
}

}  // namespace dasim::workload
