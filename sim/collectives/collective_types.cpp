#include "collectives/collective_types.hpp"

#include "common/errors.hpp"

namespace dasim::collectives {

Op parse_op(const std::string& text) {
  if (text == "allreduce") return Op::allreduce;
  if (text == "reduce_scatter") return Op::reduce_scatter;
  if (text == "all_gather") return Op::all_gather;
  if (text == "broadcast") return Op::broadcast;
  throw InputError("unknown collective operation \"" + text +
                   "\" (expected allreduce, reduce_scatter, all_gather or broadcast)");
}

Algorithm parse_algorithm(const std::string& text) {
  if (text == "ring") return Algorithm::ring;
  if (text == "tree") return Algorithm::tree;
  if (text == "hierarchical") return Algorithm::hierarchical;
  throw InputError("unknown collective algorithm \"" + text + "\" (expected ring, tree or hierarchical)");
}

const char* to_string(Op op) {
  switch (op) {
    case Op::allreduce: return "allreduce";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::all_gather: return "all_gather";
    case Op::broadcast: return "broadcast";
  }
  return "?";
}

const char* to_string(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::ring: return "ring";
    case Algorithm::tree: return "tree";
    case Algorithm::hierarchical: return "hierarchical";
  }
  return "?";
}

double bus_bandwidth_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::allreduce: return 2 * (n - 1) / n;
    case Op::reduce_scatter:
    case Op::all_gather: return (n - 1) / n;
    case Op::broadcast: return 1;
  }
  return 1;
}

}  // namespace dasim::collectives
