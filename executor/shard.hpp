// The data a rank trains on: its shard of the MNIST-style IDX files when given, else of the
// synthetic task (dataset.hpp), as the options say.
#pragma once

#include "dataset.hpp"
#include "options.hpp"

namespace dasim::executor {

Dataset load_shard(const TrainOptions& o, int rank, int ranks);

}  // namespace dasim::executor
