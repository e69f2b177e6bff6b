// A ring allreduce that advances only inside its ranks' MPI calls, round by round (collective
// progress "polled-rounds"): Open MPI's shared-memory collectives on CPU ranks, which dasim-train
// starts with MPI_Iallreduce and then polls with MPI_Test between layers until its MPI_Wait.
//
// The ring has 2(P-1) rounds (reduce-scatter, then all-gather), each moving a 1/P chunk from every
// rank to its right neighbour. As in a rendezvous over shared memory, the receiver does the copy:
// in round r a rank posts its chunk, and inside one of its calls, once its left neighbour has
// posted that round's chunk, it copies it (a transfer of bytes / P over the route, which takes the
// rank's time); the round ends for the rank when its right neighbour has copied its chunk, which the
// rank only notices inside a call, and it posts the next round in the same call. So a rank that
// computes a long layer between two polls holds back its neighbours' rounds, and a rank that waits
// (inside MPI_Wait, reacting at once) waits for the others' polls. With polls closer together than
// the copies (or with every rank waiting) it takes the alpha-beta time of the ring.
#pragma once

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <vector>

namespace dasim::collectives {

class PolledRing {
 public:
  // hosts: every rank's host; next: every rank's right neighbour on the ring; bytes: the buffer.
  PolledRing(std::vector<simgrid::s4u::Host*> hosts, std::vector<int> next, double bytes);

  // `rank` is inside an MPI call now (its start or a poll): it posts and copies what it can, round
  // after round, and returns when it needs a neighbour to move first. Copies take simulated time.
  void progress(int rank);
  // `rank` waits inside MPI until its part is complete, progressing whenever a neighbour lets it.
  void wait(int rank);
  bool done(int rank) const { return round_[size_t(rank)] == rounds_; }
  double done_at(int rank) const { return done_at_[size_t(rank)]; }  // when its last round ended
  int rounds() const { return rounds_; }
  double bytes() const { return bytes_; }

 private:
  void changed(size_t neighbour);  // wakes `neighbour` if it waits in wait()

  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<int> next_, previous_;
  int rounds_;
  double bytes_, chunk_bytes_;
  // Per rank: the round it is in (rounds_ once complete), the rounds whose chunk it has posted and
  // the rounds whose incoming chunk it has copied.
  std::vector<int> round_, posted_, copied_;
  std::vector<double> done_at_;
  // Per rank, under mutex_: bumped when a neighbour posts or copies something it waits for.
  std::vector<uint64_t> version_;
  simgrid::s4u::MutexPtr mutex_;
  std::vector<simgrid::s4u::ConditionVariablePtr> changed_;
};

}  // namespace dasim::collectives
