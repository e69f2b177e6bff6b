// dasim-train --device cuda: NCCL set up over MPI, then the schedule engine over the GPU backend
// (see gpu_trainer.hpp and gpu_backend.hpp).
#include "cuda/gpu_trainer.hpp"

#include "comm.hpp"
#include "cuda/gpu_backend.hpp"
#include "cuda/gpu_mlp.hpp"
#include "schedules/run_schedule.hpp"

namespace dasim::executor {
namespace {

// Rank within the node, to pick this rank's GPU.
int local_rank(MPI_Comm comm) {
  MPI_Comm node;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  int rank = 0;
  MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  return rank;
}

NcclComm make_nccl_comm(MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  ncclUniqueId id;
  if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  ncclComm_t nccl = nullptr;
  WatchdogGuard guard("NCCL initialisation");
  mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm), "MPI_Bcast (NCCL id)");
  nccl_check(ncclCommInitRank(&nccl, ranks, id, rank), "ncclCommInitRank");
  return NcclComm(nccl);
}

}  // namespace

std::string cuda_device_problem() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(rc);
  if (count == 0) return "no CUDA device";
  return "";
}

TrainOutput train_gpu(const TrainOptions& options, const std::vector<int>& widths,
                      const std::vector<float>& initial_weights, const Dataset& data, MPI_Comm comm,
                      std::vector<float>& final_weights) {
  int devices = 0;
  cuda_check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
  cuda_check(cudaSetDevice(local_rank(comm) % devices), "cudaSetDevice");
  // Destroyed in reverse order: the model's buffers and streams before the NCCL communicator.
  NcclComm nccl = make_nccl_comm(comm);
  GpuMlp model(widths, initial_weights, options.batch);
  TrainOutput out;
  GpuBackend backend(options, model, data, comm, nccl.get(), out);
  schedules::run_schedule(options.schedule, options.steps, backend);
  final_weights = model.weights_to_host();
  return out;
}

}  // namespace dasim::executor
