// SPMD call matching: every rank starts the same sequence of collectives, so the k-th call of each
// rank belongs to the same object. join() hands it out, made by the first rank to get there, and
// forgets it once every rank has joined (the ranks hold it from then on).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace dasim::collectives {

template <class T>
class CallMatcher {
 public:
  explicit CallMatcher(size_t ranks) : calls_(ranks, 0) {}

  struct Joined {
    std::shared_ptr<T> object;
    uint64_t call = 0;  // which of the rank's calls this is, from 0
    bool last = false;  // every rank has now joined
  };

  template <class Make>
  Joined join(int rank, Make&& make) {
    const uint64_t call = calls_[size_t(rank)]++;
    auto it = open_.find(call);
    if (it == open_.end()) it = open_.emplace(call, Open{make(), 0}).first;
    Joined joined{it->second.object, call, ++it->second.joined == static_cast<int>(calls_.size())};
    if (joined.last) open_.erase(it);
    return joined;
  }

 private:
  struct Open {
    std::shared_ptr<T> object;
    int joined = 0;
  };
  std::vector<uint64_t> calls_;  // per rank: calls made so far
  std::map<uint64_t, Open> open_;
};

}  // namespace dasim::collectives
