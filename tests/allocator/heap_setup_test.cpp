// base/allocator/heap_setup.cpp, linked into this test as into dasim: with tcmalloc, the memory the
// heap takes from the system is advised for transparent huge pages, which the kernel records as
// the "hg" flag of the mapping (VmFlags in /proc/self/smaps; proc(5)).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace {

#if DASIM_TCMALLOC  // the helpers only the tcmalloc build uses

// The VmFlags of the mapping that holds `address`, or "" when no mapping does.
std::string vm_flags_of(const void* address) {
  const auto target = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t start = 0, end = 0;
    char dash = 0;
    std::istringstream header(line);
    // A mapping's first line is "start-end perms offset dev inode [path]", in hex.
    if (header >> std::hex >> start >> dash >> end && dash == '-' && line.find(':') > line.find(' ')) {
      inside = start <= target && target < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line.substr(8) + " ";
  }
  return "";
}

bool kernel_has_transparent_huge_pages() {
  return std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled");
}

TEST(HeapSetup, ALargeAllocationLiesInHugePageAdvisedMemory) {
  if (!kernel_has_transparent_huge_pages()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  auto block = std::make_unique<char[]>(size_t{64} << 20);
  block[0] = 1;
  const std::string flags = vm_flags_of(block.get());
  ASSERT_FALSE(flags.empty()) << "no mapping holds the allocation";
  EXPECT_NE(flags.find(" hg "), std::string::npos) << "VmFlags:" << flags;
}

// What SimGrid allocates for each actor: a zeroed 32 KiB stack (contexts/stack-size in
// sim/runtime/simulation.cpp), the bulk of the study's page faults before. The heap tcmalloc held
// before the static initializer ran is not advised, so the test allocates stacks as a simulation
// of a few thousand actors does, past that memory.
TEST(HeapSetup, ActorStackSizedBlocksLieInHugePageAdvisedMemory) {
  if (!kernel_has_transparent_huge_pages()) GTEST_SKIP() << "this kernel has no transparent huge pages";
  std::vector<void*> stacks;
  for (int actor = 0; actor < 4096; ++actor) stacks.push_back(std::calloc(1, 32 << 10));
  const std::string flags = vm_flags_of(stacks.back());
  for (void* stack : stacks) std::free(stack);
  ASSERT_FALSE(flags.empty()) << "no mapping holds the allocation";
  EXPECT_NE(flags.find(" hg "), std::string::npos) << "VmFlags:" << flags;
}

#else

TEST(HeapSetup, WithoutTcmallocTheHeapIsLeftToGlibc) {
  GTEST_SKIP() << "built without tcmalloc (cmake/Allocator.cmake): glibc's malloc, no huge-page advice";
}

#endif

}  // namespace
