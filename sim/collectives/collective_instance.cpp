#include "collectives/collective_instance.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sg4 = simgrid::s4u;

namespace dasim::collectives {
namespace {
int payload_token = 0;          // mailbox messages need a non-null payload; only their size matters
int* received_token = nullptr;  // where receives store that payload pointer (never read)
}  // namespace

int MailboxSlots::acquire() {
  auto it = std::find(in_use_.begin(), in_use_.end(), false);
  if (it == in_use_.end()) it = in_use_.insert(in_use_.end(), false);
  *it = true;
  return static_cast<int>(it - in_use_.begin());
}

CollectiveInstance::CollectiveInstance(Op op_, double bytes_, Choice choice_,
                                       std::shared_ptr<MailboxSlots> slots_)
    : op(op_),
      bytes(bytes_),
      choice(choice_),
      costs(protocol_costs(choice_.algorithm, choice_.protocol)),
      slots(std::move(slots_)),
      slot(slots->acquire()) {
  if (choice.bandwidth_factor > 0) costs.bandwidth_factor = choice.bandwidth_factor;
}

CollectiveInstance::~CollectiveInstance() {
  slots->release(slot);
}

sg4::Mailbox* CollectiveInstance::mailbox(int rank, int channel) const {
  return sg4::Mailbox::by_name(fmt::format("coll{}/r{}/c{}", slot, rank, channel));
}

sg4::SemaphorePtr CollectiveInstance::root_reduced(int tree) {
  auto& semaphore = reduced[tree];
  if (!semaphore) semaphore = sg4::Semaphore::create(0);
  return semaphore;
}

sg4::BarrierPtr CollectiveInstance::phase_end(int channel, int phase, int ring, int size) {
  auto& barrier = phase_ends[{channel, phase, ring}];
  if (!barrier) barrier = sg4::Barrier::create(static_cast<unsigned>(size));
  return barrier;
}

CollectiveInstance::CoarseTree& CollectiveInstance::coarse_tree(int tree, int ranks) {
  auto& state = coarse_trees[tree];
  if (state.up_done.empty()) {
    state.up_done.assign(size_t(ranks), 0);
    state.down_done.assign(size_t(ranks), 0);
  }
  return state;
}

sg4::CommPtr PartContext::send_async(int to, int channel, double bytes) const {
  auto size = static_cast<uint64_t>(std::llround(std::max(bytes, 1.0)));
  return instance.mailbox(to, channel)->put_async(&payload_token, size);
}

sg4::CommPtr PartContext::receive_async(int channel) const {
  return instance.mailbox(rank, channel)->get_async<int>(&received_token);
}

}  // namespace dasim::collectives
