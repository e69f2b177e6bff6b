// Serial n-replica reference of sgd, local_sgd and dasgd (see reference.hpp).
#include "reference.hpp"

#include "mlp.hpp"
#include "update_rules.hpp"

namespace dasim::executor {
namespace {

std::vector<float> sum_over(const std::vector<std::vector<float>>& buffers) {
  std::vector<float> sum = buffers.front();
  for (size_t j = 1; j < buffers.size(); ++j)
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += buffers[j][i];
  return sum;
}

}  // namespace

ReferenceResult run_reference(const schedules::ScheduleSpec& schedule, const std::vector<int>& widths,
                              uint64_t seed, const std::vector<Dataset>& shards, int batch, float lr,
                              int steps) {
  const int n = static_cast<int>(shards.size());
  std::vector<Mlp> models(n, Mlp(widths, seed));
  std::vector<std::vector<float>> snapshots(n);
  std::vector<float> snapshot_sum;
  bool pending = false;
  long due = 0;
  std::vector<float> x;
  std::vector<int32_t> y;
  ReferenceResult result;
  auto merge = [&] {
    for (int j = 0; j < n; ++j) dasgd_merge(models[j].weights(), snapshots[j], snapshot_sum, n);
    pending = false;
  };

  for (long k = 1; k <= steps; ++k) {
    double loss = 0;
    std::vector<std::vector<float>> grads(n);
    for (int j = 0; j < n; ++j) {
      fill_batch(shards[j], k - 1, batch, x, y);
      loss += models[j].forward_backward(x.data(), y.data(), batch);
      grads[j] = models[j].grads();
    }
    result.mean_loss.push_back(loss / n);

    if (schedule.kind == schedules::ScheduleKind::sgd) {
      const auto grad_sum = sum_over(grads);
      for (auto& m : models) sgd_apply(m.weights(), grad_sum, lr, n);
      continue;
    }
    for (int j = 0; j < n; ++j) sgd_apply(models[j].weights(), grads[j], lr, 1);
    if (schedule.kind == schedules::ScheduleKind::local_sgd) {
      if (is_averaging_step(schedule, k)) {
        std::vector<std::vector<float>> all;
        for (auto& m : models) all.push_back(m.weights());
        const auto weight_sum = sum_over(all);
        for (auto& m : models) average_from_sum(m.weights(), weight_sum, n);
      }
      continue;
    }
    if (pending && k == due) merge();
    if (is_averaging_step(schedule, k)) {
      for (int j = 0; j < n; ++j) snapshots[j] = models[j].weights();
      snapshot_sum = sum_over(snapshots);
      pending = true;
      due = k + schedule.delay;
      if (schedule.delay == 0) merge();
    }
  }
  if (pending) merge();  // the trainer also completes an average still in flight at the end
  for (auto& m : models) result.weights.push_back(m.weights());
  return result;
}

}  // namespace dasim::executor
