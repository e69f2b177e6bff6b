// dasim-train on the CPU: the schedule engine over the MPI backend (see trainer.hpp).
#include "trainer.hpp"

#include "mpi_backend.hpp"
#include "schedules/run_schedule.hpp"

namespace dasim::executor {

TrainOutput train(const TrainOptions& options, Mlp& model, const Dataset& data, MPI_Comm comm) {
  TrainOutput out;
  MpiBackend backend(options, model, data, comm, out);
  schedules::run_schedule(options.schedule, options.steps, backend);
  backend.materialize_weights();  // fsdp: the results and --verify read the whole model
  return out;
}

}  // namespace dasim::executor
