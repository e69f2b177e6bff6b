// A device's predicted step and its reports (see step_prediction.hpp).
#include "compute/step_prediction.hpp"

#include "workload/recompute.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace dasim::compute {

StepPrediction predict_step(const workload::Workload& workload, const ComputeModel& model, int batch) {
  StepPrediction p;
  p.batch = batch;
  for (const auto& layer : workload.layers) {
    p.forward_layers_s.push_back(model.forward_time_s(layer, batch));
    const double accumulation_s = model.gradient_accumulation_s(workload, layer);
    p.backward_layers_s.push_back(model.backward_time_s(layer, batch) + accumulation_s);
    p.gradient_accumulation_s += accumulation_s;
    p.forward_s += p.forward_layers_s.back();
    p.backward_s += p.backward_layers_s.back();
  }
  for (double recompute_s : workload::recompute_before_backward_s(workload, p.forward_layers_s))
    p.recompute_s += recompute_s;
  p.update_s = model.update_time_s(workload);
  p.update_parts = model.update_parts(workload);
  p.input_wait_s = model.input_wait_s(batch, p.forward_s + p.backward_s + p.recompute_s + p.update_s);
  return p;
}

std::vector<KindTime> time_by_kind(const StepPrediction& step, const workload::Workload& workload) {
  std::vector<KindTime> kinds;
  for (size_t i = 0; i < workload.layers.size(); ++i) {
    const auto kind = workload.layers[i].kind;
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const KindTime& k) { return k.kind == kind; });
    if (it == kinds.end()) it = kinds.insert(kinds.end(), KindTime{kind, 0, 0});
    it->forward_s += step.forward_layers_s[i];
    it->backward_s += step.backward_layers_s[i];
  }
  // Largest first; equal totals keep the enum's order, so the listing is the same on every run.
  std::stable_sort(kinds.begin(), kinds.end(), [](const KindTime& a, const KindTime& b) {
    return a.total_s() != b.total_s() ? a.total_s() > b.total_s() : a.kind < b.kind;
  });
  return kinds;
}

nlohmann::ordered_json to_json(const StepPrediction& p, const workload::Workload& workload,
                               const ComputeModel& model, const std::string& calibration) {
  using oj = nlohmann::ordered_json;
  oj layers = oj::array();
  for (size_t i = 0; i < workload.layers.size(); ++i)
    layers.push_back({{"name", workload.layers[i].name},
                      {"forward_s", p.forward_layers_s[i]},
                      {"backward_s", p.backward_layers_s[i]}});
  oj by_kind = oj::array();
  for (const auto& k : time_by_kind(p, workload))
    by_kind.push_back(
        {{"kind", workload::to_string(k.kind)}, {"forward_s", k.forward_s}, {"backward_s", k.backward_s}});
  return oj{{"batch", p.batch},
            {"calibration", calibration},
            {"compute_precision", model.compute_precision()},
            {"fell_back_to_fp32", model.fell_back_to_fp32()},
            {"forward_s", p.forward_s},
            {"backward_s", p.backward_s},
            {"recompute_s", p.recompute_s},
            {"update_s", p.update_s},
            {"update_parts",
             {{"optimizer_s", p.update_parts.optimizer_s},
              {"mixed_precision_s", p.update_parts.mixed_precision_s},
              {"clip_s", p.update_parts.clip_s},
              {"zero_fill_s", p.update_parts.zero_fill_s}}},
            {"gradient_accumulation_s", p.gradient_accumulation_s},
            {"input_wait_s", p.input_wait_s},
            {"step_s", p.step_s()},
            {"samples_per_s", p.samples_per_s()},
            {"by_kind", by_kind},
            {"layers", layers}};
}

namespace {

// " (optimizer 14.1 ms, amp casts 2.9 ms, ...)" when the update has more than its optimizer.
std::string update_parts_text(const UpdateParts& parts) {
  const std::pair<const char*, double> named[] = {{"optimizer", parts.optimizer_s},
                                                  {"amp casts", parts.mixed_precision_s},
                                                  {"clipping", parts.clip_s},
                                                  {"zero_grad fills", parts.zero_fill_s}};
  std::string text;
  int shown = 0;
  for (const auto& [name, seconds] : named)
    if (seconds > 0) text += fmt::format("{}{} {:.3f} ms", shown++ ? ", " : "", name, seconds * 1e3);
  return shown > 1 ? " (" + text + ")" : "";
}

}  // namespace

std::string render_step(const StepPrediction& p, const workload::Workload& workload,
                        const ComputeModel& model, const std::string& calibration) {
  auto ms = [](double s) { return s * 1e3; };
  std::string out = fmt::format("\npredicted step on {} (compute precision {}{}), batch {}\n", calibration,
                                model.compute_precision(),
                                model.fell_back_to_fp32() ? ": not calibrated, fp32 rate used" : "", p.batch);
  out += fmt::format("  forward   {:10.3f} ms\n  backward  {:10.3f} ms", ms(p.forward_s), ms(p.backward_s));
  if (p.gradient_accumulation_s > 0)
    out += fmt::format(" (of which {:.3f} ms adding into zeroed gradients)", ms(p.gradient_accumulation_s));
  if (p.recompute_s > 0)
    out += fmt::format("\n  recompute {:10.3f} ms (activation checkpointing: the blocks' forward again)",
                       ms(p.recompute_s));
  out += fmt::format("\n  update    {:10.3f} ms{}\n", ms(p.update_s), update_parts_text(p.update_parts));
  if (p.input_wait_s > 0)
    out += fmt::format("  input     {:10.3f} ms (loader slower than the GPU)\n", ms(p.input_wait_s));
  out += fmt::format("  step      {:10.3f} ms = {:.1f} {}s/s\n", ms(p.step_s()), p.samples_per_s(),
                     workload.sample_name);
  const double layers_s = p.forward_s + p.backward_s;
  if (layers_s <= 0) return out;
  out += "  forward + backward by layer kind:\n";
  for (const auto& k : time_by_kind(p, workload))
    out += fmt::format("    {:<12} {:10.3f} ms {:5.1f}%\n", workload::to_string(k.kind), ms(k.total_s()),
                       100 * k.total_s() / layers_s);
  return out;
}

}  // namespace dasim::compute
