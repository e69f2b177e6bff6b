// closest_name: the "did you mean" of unknown keys, enumeration values, options and subcommands.
// Distances below are counted by hand; each names the edits.
#include "common/closest_name.hpp"

#include <gtest/gtest.h>

using namespace dasim;

TEST(ClosestName, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);  // three insertions
  EXPECT_EQ(edit_distance("ring", "ring"), 0u);
  EXPECT_EQ(edit_distance("iteration", "iterations"), 1u);    // insert s
  EXPECT_EQ(edit_distance("bucket_capp", "bucket_cap"), 1u);  // delete p
  EXPECT_EQ(edit_distance("rign", "ring"), 1u);               // swap g,n: one edit, not two substitutions
  EXPECT_EQ(edit_distance("jbos", "jobs"), 1u);               // swap b,o
  EXPECT_EQ(edit_distance("rnu", "run"), 1u);                 // swap n,u
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);          // k->s, e->i, insert g
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);               // delete f, insert n
  // Optimal string alignment edits no substring twice: "ca" -> "abc" is 3 (not 2 via "ac").
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
  EXPECT_EQ(edit_distance("Ring", "ring"), 1u);  // the distance itself is case-sensitive
}

TEST(ClosestName, SuggestsTheNearestAllowedName) {
  const std::vector<std::string> keys{"iterations", "warmup", "schedules", "precision"};
  EXPECT_EQ(closest_name("iteration", keys), "iterations");
  EXPECT_EQ(closest_name("wramup", keys), "warmup");
  EXPECT_EQ(closest_name("ring", {"tree", "ring", "hierarchical"}), "ring");
  EXPECT_EQ(closest_name("rign", {"tree", "ring", "hierarchical"}), "ring");
  EXPECT_EQ(closest_name("jobs", {"out", "jobs", "quiet"}), "jobs");
  // A long name allows a third of its length: "bucket_view" is 11 characters, 3 edits away.
  EXPECT_EQ(closest_name("bukcet_vw", {"bucket_view"}), "bucket_view");  // swap, insert i, insert e
}

TEST(ClosestName, ACaseInsensitiveMatchIsClose) {
  EXPECT_EQ(closest_name("Iterations", {"iterations", "warmup"}), "iterations");
  EXPECT_EQ(closest_name("RING", {"ring", "tree"}), "ring");
  EXPECT_EQ(closest_name("h", {"H", "tau"}), "H");  // even one letter, where no edit is allowed
}

TEST(ClosestName, SuggestsNothingWhenNothingIsClose) {
  EXPECT_EQ(closest_name("frobnicate", {"run", "validate", "platform"}), std::nullopt);
  EXPECT_EQ(closest_name("anything", {}), std::nullopt);
  // Two-letter names: two edits would replace the whole of what was typed.
  EXPECT_EQ(closest_name("lr", {"H"}), std::nullopt);
  EXPECT_EQ(closest_name("x", {"y", "z"}), std::nullopt);
  EXPECT_EQ(closest_name("bus", {"run"}), std::nullopt);  // 2 edits of 3 letters
  // Eight letters allow 2 edits, not 3: "scheudle" -> "schedules" is swap + insert = 2, close;
  // "precison" -> "resolution" is far.
  EXPECT_EQ(closest_name("scheudle", {"schedules"}), "schedules");
  EXPECT_EQ(closest_name("precison", {"resolution"}), std::nullopt);
  // A very long string against short names is refused on the lengths alone.
  EXPECT_EQ(closest_name(std::string(100000, 'a'), {"aaaa"}), std::nullopt);
}

TEST(ClosestName, TiesAreBrokenTheSameWayWhateverTheOrder) {
  // "abx" is one edit from both: the alphabetically first wins, in either order.
  EXPECT_EQ(closest_name("abx", {"abd", "abc"}), "abc");
  EXPECT_EQ(closest_name("abx", {"abc", "abd"}), "abc");
  // Equal ignoring case: the one that also matches the case wins.
  EXPECT_EQ(closest_name("Ring", {"ring", "Ring"}), "Ring");
  EXPECT_EQ(closest_name("Ring", {"Ring", "ring"}), "Ring");
  // "tres" is one edit from "tree" (s->e) and from "trees" (insert e): the alphabet decides.
  EXPECT_EQ(closest_name("tres", {"trees", "tree"}), "tree");
  // A smaller distance beats the alphabet: "runs" is 1 from "run" (delete s), 2 from "rank".
  EXPECT_EQ(closest_name("runs", {"rank", "run"}), "run");
}
