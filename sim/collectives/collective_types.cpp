#include "collectives/collective_types.hpp"

#include "common/errors.hpp"

#include <fmt/format.h>

namespace dasim::collectives {

namespace {

template <class E, size_t N>
E parse_name(const EnumNames<E, N>& names, const std::string& text, const char* what) {
  if (auto value = names.parse(text)) return *value;
  throw InputError(
      fmt::format("unknown collective {} \"{}\" (expected one of {})", what, text, names.listed()));
}

}  // namespace

Op parse_op(const std::string& text) {
  return parse_name(kOpNames, text, "operation");
}
Algorithm parse_algorithm(const std::string& text) {
  return parse_name(kAlgorithmNames, text, "algorithm");
}
std::string to_string(Op op) {
  return std::string(kOpNames.name(op));
}
std::string to_string(Algorithm algorithm) {
  return std::string(kAlgorithmNames.name(algorithm));
}
std::string to_string(Protocol protocol) {
  return std::string(kProtocolNames.name(protocol));
}

double bus_bandwidth_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::allreduce:
      return 2 * (n - 1) / n;
    case Op::reduce_scatter:
    case Op::all_gather:
      return (n - 1) / n;
    case Op::broadcast:
      return 1;
  }
  return 1;
}

}  // namespace dasim::collectives
