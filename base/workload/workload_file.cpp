// Reading and writing workload JSON files, and resolving a workload name or path
// (see workload_file.hpp).
#include "workload/workload_file.hpp"

#include "common/errors.hpp"
#include "common/json_reader.hpp"
#include "workload/builtin_models.hpp"
#include "workload/recompute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <system_error>

namespace dasim::workload {
namespace {

std::optional<double> optional_non_negative(ObjectReader& r, const std::string& key) {
  std::optional<double> v = r.optional_number(key);
  if (v && *v < 0) r.fail(key, fmt::format("expected a number >= 0, got {}", *v));
  return v;
}

double non_negative(ObjectReader& r, const std::string& key) {
  double v = r.number(key);
  if (v < 0) r.fail(key, fmt::format("expected a number >= 0, got {}", v));
  return v;
}

int positive_int(ObjectReader& r, const std::string& key) {
  int64_t v = r.positive_integer(key);
  if (v > 1'000'000'000) r.fail(key, fmt::format("expected a size below 1e9, got {}", v));
  return int(v);
}

int padding(ObjectReader& r, const std::string& key) {
  int64_t pad = r.integer(key);
  if (pad < 0) r.fail(key, fmt::format("expected a padding >= 0, got {}", pad));
  if (pad > 1'000'000'000) r.fail(key, fmt::format("expected a padding below 1e9, got {}", pad));
  return int(pad);
}

// A height / width pair of a conv key: `both` (stride, pad) is the shorthand for the two, so a
// file giving it and one of `h_key` / `w_key` would say the same thing twice, perhaps differently.
std::pair<int, int> read_pair(ObjectReader& r, const std::string& both, const std::string& h_key,
                              const std::string& w_key, int fallback,
                              int (*read)(ObjectReader&, const std::string&)) {
  if (r.has(both)) {
    for (const std::string& key : {h_key, w_key})
      if (r.has(key))
        r.fail(key,
               fmt::format("expected either {} (both directions) or {} / {}, not both", both, h_key, w_key));
    int v = read(r, both);
    return {v, v};
  }
  return {r.has(h_key) ? read(r, h_key) : fallback, r.has(w_key) ? read(r, w_key) : fallback};
}

ConvShape read_conv(ObjectReader r) {
  ConvShape s;
  s.in_channels = positive_int(r, "in_channels");
  s.out_channels = positive_int(r, "out_channels");
  s.in_h = positive_int(r, "in_h");
  s.in_w = positive_int(r, "in_w");
  s.kernel_h = positive_int(r, "kernel_h");
  s.kernel_w = positive_int(r, "kernel_w");
  auto [stride_h, stride_w] = read_pair(r, "stride", "stride_h", "stride_w", 1, positive_int);
  auto [pad_h, pad_w] = read_pair(r, "pad", "pad_h", "pad_w", 0, padding);
  s.stride = stride_h;
  s.pad = pad_h;
  // Width values only where they differ: a symmetric shape is stored (and keyed) as before.
  if (stride_w != stride_h) s.stride_w = stride_w;
  if (pad_w != pad_h) s.pad_w = pad_w;
  s.groups = r.has("groups") ? positive_int(r, "groups") : 1;
  r.finish();
  return s;
}

GemmShape read_gemm(ObjectReader r) {
  GemmShape s;
  s.rows_per_sample = r.positive_integer("rows_per_sample");
  s.n = r.positive_integer("n");
  s.k = r.positive_integer("k");
  r.finish();
  return s;
}

void read_block(ObjectReader& r, Layer& layer) {
  if (auto block = r.optional_string("block")) {
    if (block->empty())
      r.fail("block", "expected a block name, got an empty string (leave the key out for none)");
    layer.block = *block;
  }
}

// A concat only copies its branches' outputs into one tensor: it may omit the FLOP pair (its time
// is its bytes), and a parameter or a FLOP count would be a mistake in the file.
void check_concat(const ObjectReader& r, const Layer& layer, std::optional<double> forward_flops,
                  std::optional<double> backward_flops) {
  if (layer.params > 0)
    r.fail("params", fmt::format("expected 0: a concat has no parameters, got {}", layer.params));
  if (forward_flops.value_or(0) > 0)
    r.fail("forward_flops", fmt::format("expected 0: a concat copies bytes, got {}", *forward_flops));
  if (backward_flops.value_or(0) > 0)
    r.fail("backward_flops", fmt::format("expected 0: a concat copies bytes, got {}", *backward_flops));
}

// The workload's sample shapes: each a share of the micro-batches (> 0, summing to 1) and the
// length they are padded to.
std::vector<SampleShape> read_sample_shapes(ObjectReader& r) {
  std::vector<SampleShape> shapes;
  if (!r.has("shapes")) return shapes;
  r.array("shapes", [&](const nlohmann::json& element, const std::string& path) {
    ObjectReader s(element, r.file(), path);
    SampleShape shape;
    shape.share = s.number("share");
    if (!(shape.share > 0 && shape.share <= 1))
      s.fail("share", fmt::format("expected the share of the micro-batches in (0, 1], got {}", shape.share));
    if (s.has("sequence_length")) shape.sequence_length = positive_int(s, "sequence_length");
    s.finish();
    shapes.push_back(shape);
  });
  if (shapes.empty()) r.fail("shapes", "expected at least one shape (leave the key out for one)");
  // Each shape is timed per layer and pass: a bound keeps a step's prediction to seconds (the same
  // bound as length bins').
  if (shapes.size() > kMaxLengthBins)
    r.fail("shapes", fmt::format("expected at most {} shapes, got {}", kMaxLengthBins, shapes.size()));
  double sum = 0;
  for (const auto& shape : shapes) sum += shape.share;
  if (std::abs(sum - 1) > 1e-6)
    r.fail("shapes",
           fmt::format("expected shares summing to 1 (every micro-batch has a shape), got {:.9g}", sum));
  return shapes;
}

LayerShape read_layer_shape(ObjectReader s, double share) {
  LayerShape shape;
  shape.share = share;
  shape.forward_flops = non_negative(s, "forward_flops");
  shape.backward_flops = non_negative(s, "backward_flops");
  shape.activation_bytes = optional_non_negative(s, "activation_bytes").value_or(0);
  shape.backward_activation_bytes = optional_non_negative(s, "backward_activation_bytes");
  if (s.has("gemm")) shape.gemm = read_gemm(s.object("gemm"));
  s.finish();
  return shape;
}

// A layer's "shapes": one per sample shape of the workload, and nothing of its own that they give.
void read_layer_shapes(ObjectReader& r, const std::vector<SampleShape>& sample_shapes, Layer& layer) {
  if (sample_shapes.empty())
    r.fail("shapes", "a layer's shapes follow the workload's \"shapes\", and the workload gives none");
  if (layer.kind == LayerKind::conv)
    r.fail("shapes", "expected no shapes on a conv layer (its shape is its conv object)");
  if (layer.kind == LayerKind::concat)
    r.fail("shapes", "expected no shapes on a concat (it copies its branches' bytes: give activation_bytes)");
  for (const char* own : {"forward_flops", "backward_flops", "activation_bytes", "backward_activation_bytes",
                          "gemm", "conv", "forward_time_s", "backward_time_s"})
    if (r.has(own))
      r.fail(own,
             "given per shape in the layer's \"shapes\" (the layer's own figures are their share-weighted "
             "means)");
  r.array("shapes", [&](const nlohmann::json& element, const std::string& path) {
    const size_t i = layer.shapes.size();
    if (i >= sample_shapes.size())
      r.fail("shapes",
             fmt::format("expected {} shapes, one per shape of the workload", sample_shapes.size()));
    layer.shapes.push_back(read_layer_shape(ObjectReader(element, r.file(), path), sample_shapes[i].share));
  });
  if (layer.shapes.size() != sample_shapes.size())
    r.fail("shapes", fmt::format("expected {} shapes, one per shape of the workload, got {}",
                                 sample_shapes.size(), layer.shapes.size()));
  // The weight does not change with the shape: only a GEMM's rows may.
  const auto& first = layer.shapes.front().gemm;
  for (size_t i = 1; i < layer.shapes.size(); ++i) {
    const auto& gemm = layer.shapes[i].gemm;
    if (gemm.has_value() != first.has_value() || (gemm && (gemm->n != first->n || gemm->k != first->k)))
      r.fail(fmt::format("shapes[{}].gemm", i),
             first ? fmt::format("expected n {} and k {} as in shapes[0] (the weight is the same in every "
                                 "shape; only rows_per_sample may change)",
                                 first->n, first->k)
                   : std::string("expected no gemm, as shapes[0] (every shape or none gives it)"));
  }
  set_shape_means(layer);
}

Layer read_layer(ObjectReader r, const std::vector<SampleShape>& sample_shapes) {
  Layer layer;
  layer.name = r.string("name");
  layer.kind = r.enumeration("kind", kLayerKindNames);
  if (r.has("params")) {
    int64_t params = r.integer("params");
    if (params < 0) r.fail("params", fmt::format("expected a parameter count >= 0, got {}", params));
    layer.params = params;
  }
  if (r.has("shapes")) {
    read_layer_shapes(r, sample_shapes, layer);
    read_block(r, layer);
    r.finish();
    return layer;
  }
  auto forward_flops = optional_non_negative(r, "forward_flops");
  auto backward_flops = optional_non_negative(r, "backward_flops");
  auto forward_time = r.optional_time_s("forward_time_s");
  auto backward_time = r.optional_time_s("backward_time_s");
  layer.activation_bytes = optional_non_negative(r, "activation_bytes").value_or(0);
  layer.backward_activation_bytes = optional_non_negative(r, "backward_activation_bytes");
  if (r.has("conv")) layer.conv = read_conv(r.object("conv"));
  if (r.has("gemm")) layer.gemm = read_gemm(r.object("gemm"));
  read_block(r, layer);
  r.finish();

  if (forward_flops.has_value() != backward_flops.has_value())
    r.fail(forward_flops ? "backward_flops" : "forward_flops",
           "forward_flops and backward_flops must be given together");
  if (forward_time.has_value() != backward_time.has_value())
    r.fail(forward_time ? "backward_time_s" : "forward_time_s",
           "forward_time_s and backward_time_s must be given together");
  if (layer.kind == LayerKind::concat)
    check_concat(r, layer, forward_flops, backward_flops);
  else if (!forward_flops && !forward_time)
    r.fail("", "a layer needs forward_flops + backward_flops or forward_time_s + backward_time_s");
  layer.forward_flops = forward_flops.value_or(0);
  layer.backward_flops = backward_flops.value_or(0);
  layer.forward_time_s = forward_time;
  layer.backward_time_s = backward_time;
  return layer;
}

}  // namespace

Workload parse_workload(const nlohmann::json& value, const std::string& file) {
  ObjectReader r(value, file, "");
  Workload w;
  w.name = r.string("name");
  w.precision = r.enumeration("precision", kPrecisionNames);
  w.sample_name = r.optional_string("sample_name").value_or("sample");
  if (auto optimizer = r.optional_string("optimizer"))
    w.optimizer = parse_optimizer(*optimizer, file, "optimizer");
  if (auto clip = r.optional_string("grad_clip")) w.grad_clip = parse_grad_clip(*clip, file, "grad_clip");
  if (auto zero = r.optional_string("zero_grad")) w.zero_grad = parse_zero_grad(*zero, file, "zero_grad");
  if (auto checkpointing = r.optional_string("activation_checkpointing"))
    w.activation_checkpointing =
        parse_activation_checkpointing(*checkpointing, file, "activation_checkpointing");
  if (r.has("sequence_length")) w.sequence_length = positive_int(r, "sequence_length");
  auto measured_batch = r.optional_positive_integer("measured_batch");
  if (auto update = r.optional_time_s("update_time_s")) {
    // time_s has refused negative and non-finite values already.
    if (*update > 3600) r.fail("update_time_s", "expected seconds per step in [0, 3600]");
    w.update_time_s = *update;
  }
  w.shapes = read_sample_shapes(r);
  r.array("layers", [&](const nlohmann::json& element, const std::string& path) {
    w.layers.push_back(read_layer(ObjectReader(element, file, path), w.shapes));
  });
  // `dasim workload show --format json` adds what it derives (totals, buckets, a predicted step)
  // beside the workload: ignored here, so that output loads as the workload it shows.
  for (const char* derived : {"report", "step"})
    if (r.has(derived)) (void)r.raw(derived);
  r.finish();
  if (w.layers.empty()) r.fail("layers", "expected at least one layer");
  if (!w.shapes.empty() &&
      std::none_of(w.layers.begin(), w.layers.end(), [](const Layer& l) { return !l.shapes.empty(); }))
    r.fail("shapes", "no layer gives its figures per shape (a layer's \"shapes\"): leave the key out");
  if (int split = first_split_block_layer(w.layers); split >= 0)
    throw InputError(file, fmt::format("layers[{}].block", split),
                     fmt::format("block \"{}\" again after other layers: a block's layers must be contiguous",
                                 w.layers[size_t(split)].block));
  // The file asks for something it cannot have: its own key is at fault, not an option.
  if (w.activation_checkpointing != ActivationCheckpointing::none && !has_blocks(w))
    r.fail("activation_checkpointing",
           "\"blocks\" recomputes the layers' blocks, and no layer names one (give layers a \"block\" key)");

  bool any_times = std::any_of(w.layers.begin(), w.layers.end(),
                               [](const Layer& l) { return l.forward_time_s.has_value(); });
  if (any_times && !measured_batch)
    r.fail("measured_batch", "required key is missing (layers have measured times; for how many samples?)");
  if (measured_batch) {
    if (*measured_batch > 1'000'000'000) r.fail("measured_batch", "expected a batch below 1e9");
    w.measured_batch = int(*measured_batch);
    for (auto& layer : w.layers)
      if (layer.forward_time_s) layer.measured_batch = w.measured_batch;
  }
  w.origin = file;
  return w;
}

namespace {

// The built-in image models by name; every other built-in is a transformer.
using ImageModel = Workload (*)(Precision);
const ImageModel* image_model(const std::string& name) {
  static const std::map<std::string, ImageModel> models{{"resnet50", resnet50},
                                                        {"resnet101", resnet101},
                                                        {"resnet152", resnet152},
                                                        {"inception-v3", inception_v3},
                                                        {"vgg16", vgg16}};
  auto it = models.find(name);
  return it == models.end() ? nullptr : &it->second;
}

Workload transformer(const std::string& name, Precision precision, int sequence_length) {
  if (name == "bert-large") return bert_large(precision, sequence_length);
  if (name == "gpt2-xl") return gpt2_xl(precision, sequence_length);
  // A name in builtin_workload_names() that no builder here serves: a programming error.
  throw std::logic_error("built-in workload without a builder: " + name);
}

// A built-in transformer in length bins: built at each bin's top length (length_bins.hpp).
Workload binned_transformer(const std::string& name, bool is_transformer, Precision precision,
                            const WorkloadOptions& options) {
  if (!is_transformer) throw LengthBinsError(name + " is an image model: it has no sequence lengths to bin");
  if (options.sequence_length)
    throw LengthBinsError(
        "the bins set each micro-batch's length: give length bins or a sequence length, not both");
  const auto shapes =
      bin_shapes(read_length_counts(options.length_bins->file), options.length_bins->bin_size);
  Workload w = with_length_bins(shapes, [&](int length) {
    try {
      return transformer(name, precision, length);
    } catch (const SequenceLengthError& e) {
      throw LengthBinsError(fmt::format("the bin of {} tokens: {}", length, e.what()));
    }
  });
  w.length_counts = options.length_bins->file;
  return w;
}

Workload build_workload(const std::string& spec_or_file, const WorkloadOptions& options) {
  const auto& names = builtin_workload_names();
  bool builtin = std::find(names.begin(), names.end(), spec_or_file) != names.end();
  std::error_code ignored;  // a path the OS cannot look up (name too long) is no such file either
  if (!builtin && !std::filesystem::exists(spec_or_file, ignored))
    throw InputError(spec_or_file, "",
                     fmt::format("not a built-in workload ({}) and no such file", fmt::join(names, ", ")));

  Precision precision = options.precision.value_or(Precision::fp32);
  if (options.length_bins && !builtin)
    throw LengthBinsError(
        "a workload file fixes its own FLOPs: length bins apply to built-ins only (a file states its own "
        "\"shapes\")");
  if (builtin) {
    const ImageModel* image = image_model(spec_or_file);
    if (options.length_bins) return binned_transformer(spec_or_file, image == nullptr, precision, options);
    if (options.sequence_length && image)
      throw SequenceLengthError(spec_or_file + " is an image model: it has no sequence length");
    if (image) return (*image)(precision);
    return transformer(spec_or_file, precision,
                       options.sequence_length.value_or(spec_or_file == "bert-large" ? 128 : 1024));
  }
  if (options.sequence_length)
    throw SequenceLengthError(
        "a workload file fixes its own FLOPs: a sequence length applies to built-ins only");
  Workload w = parse_workload(load_json_file(spec_or_file), spec_or_file);
  if (options.precision) w.precision = *options.precision;
  return w;
}

}  // namespace

Workload load_workload(const std::string& spec_or_file, const WorkloadOptions& options) {
  if (options.grad_precision && !is_storage_precision(*options.grad_precision))
    throw InputError("grad_precision", "",
                     fmt::format("expected fp32, fp16 or bf16 (an element type), got \"{}\"",
                                 to_string(*options.grad_precision)));
  Workload w = build_workload(spec_or_file, options);
  if (options.grad_precision) w.grad_precision = options.grad_precision;
  if (options.optimizer) w.optimizer = *options.optimizer;
  if (options.grad_clip) w.grad_clip = *options.grad_clip;
  if (options.zero_grad) w.zero_grad = *options.zero_grad;
  if (options.activation_checkpointing) w.activation_checkpointing = *options.activation_checkpointing;
  if (w.activation_checkpointing != ActivationCheckpointing::none && !has_blocks(w))
    throw CheckpointingError(fmt::format(
        "activation_checkpointing \"blocks\" recomputes the layers' blocks, and no layer of {} names one "
        "(a layer's \"block\" key; the built-in transformers have one per layer)",
        spec_or_file));
  apply_fusion(w, options.fusion);
  apply_memory_format(w, options.memory_format);
  return w;
}

namespace {

// The short form (`stride`, `pad`) for a symmetric shape, so files written before asymmetric shapes
// existed read back and write out byte-identical; the four keys only where the directions differ.
nlohmann::json conv_to_json(const ConvShape& c) {
  nlohmann::json j{
      {"in_channels", c.in_channels}, {"out_channels", c.out_channels}, {"in_h", c.in_h}, {"in_w", c.in_w},
      {"kernel_h", c.kernel_h},       {"kernel_w", c.kernel_w}};
  if (conv_stride_w(c) == c.stride) {
    j["stride"] = c.stride;
  } else {
    j["stride_h"] = c.stride;
    j["stride_w"] = conv_stride_w(c);
  }
  if (conv_pad_w(c) == c.pad) {
    j["pad"] = c.pad;
  } else {
    j["pad_h"] = c.pad;
    j["pad_w"] = conv_pad_w(c);
  }
  j["groups"] = c.groups;
  return j;
}

nlohmann::json gemm_to_json(const GemmShape& g) {
  return {{"rows_per_sample", g.rows_per_sample}, {"n", g.n}, {"k", g.k}};
}

// A layer with shapes: its figures per shape (its own are their means, derived on reading).
nlohmann::json shaped_layer_to_json(const Layer& l) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const auto& s : l.shapes) {
    nlohmann::json j{{"forward_flops", s.forward_flops},
                     {"backward_flops", s.backward_flops},
                     {"activation_bytes", s.activation_bytes}};
    if (s.backward_activation_bytes) j["backward_activation_bytes"] = *s.backward_activation_bytes;
    if (s.gemm) j["gemm"] = gemm_to_json(*s.gemm);
    shapes.push_back(std::move(j));
  }
  nlohmann::json j{{"name", l.name}, {"kind", to_string(l.kind)}, {"params", l.params}, {"shapes", shapes}};
  if (!l.block.empty()) j["block"] = l.block;
  return j;
}

}  // namespace

nlohmann::json to_json(const Workload& w) {
  nlohmann::json layers = nlohmann::json::array();
  for (const auto& l : w.layers) {
    if (!l.shapes.empty()) {
      layers.push_back(shaped_layer_to_json(l));
      continue;
    }
    nlohmann::json j{{"name", l.name},
                     {"kind", to_string(l.kind)},
                     {"params", l.params},
                     {"forward_flops", l.forward_flops},
                     {"backward_flops", l.backward_flops},
                     {"activation_bytes", l.activation_bytes}};
    if (l.forward_time_s) j["forward_time_s"] = *l.forward_time_s;
    if (l.backward_time_s) j["backward_time_s"] = *l.backward_time_s;
    if (l.backward_activation_bytes) j["backward_activation_bytes"] = *l.backward_activation_bytes;
    if (l.conv) j["conv"] = conv_to_json(*l.conv);
    if (l.gemm) j["gemm"] = gemm_to_json(*l.gemm);
    if (!l.block.empty()) j["block"] = l.block;
    layers.push_back(std::move(j));
  }
  nlohmann::json out{{"name", w.name}, {"precision", to_string(w.precision)}, {"sample_name", w.sample_name}};
  if (w.optimizer != Optimizer::sgd_momentum) out["optimizer"] = to_string(w.optimizer);
  if (w.grad_clip != GradClip::none) out["grad_clip"] = to_string(w.grad_clip);
  if (w.zero_grad != ZeroGrad::set_to_none) out["zero_grad"] = to_string(w.zero_grad);
  if (w.activation_checkpointing != ActivationCheckpointing::none)
    out["activation_checkpointing"] = to_string(w.activation_checkpointing);
  if (w.sequence_length > 0) out["sequence_length"] = w.sequence_length;
  if (w.measured_batch > 0) out["measured_batch"] = w.measured_batch;
  if (w.update_time_s) out["update_time_s"] = *w.update_time_s;
  if (!w.shapes.empty()) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const auto& shape : w.shapes) {
      nlohmann::json j{{"share", shape.share}};
      if (shape.sequence_length > 0) j["sequence_length"] = shape.sequence_length;
      shapes.push_back(std::move(j));
    }
    out["shapes"] = std::move(shapes);
  }
  out["layers"] = std::move(layers);
  return out;
}

}  // namespace dasim::workload
