// How the simulating programs' heap takes memory from the system. cmake/Allocator.cmake compiles
// this file into each program that links dasim::allocator (dasim, dasim_bench), and it takes effect
// before main through a static initializer, so the benchmarks measure what the command line runs.
//
// A simulation runs in a forked child (runtime/isolated_run.hpp), so every page of its heap is new:
// SimGrid zeroes each actor's 32 KiB stack, and the solver, flows and closures grow the heap to the
// run's peak. Each first touch of a 4 KiB page is a page fault, about 10 us each on the 2-core
// development VM; the paper study took 674,000 of them, 5.3 of its 35 CPU-seconds in the kernel.
#include <sys/mman.h>

#include <cstddef>

#if DASIM_TCMALLOC
#include <gperftools/malloc_extension.h>
#else
#include <malloc.h>
#endif

namespace {

#if DASIM_TCMALLOC

// tcmalloc asks its system allocator for every span it adds to its page heap. This one asks the
// default allocator for 2 MiB-aligned regions in multiples of 2 MiB and marks them MADV_HUGEPAGE,
// so that in the kernel's `madvise` transparent-huge-page mode (Debian's default) one fault maps
// 2 MiB (where THP is off, or no huge page is free, the kernel uses 4 KiB pages as before). The
// paper study: 58,000 faults instead of 674,000, 2.5-2.7 s of kernel time instead of 5.5 s,
// 15.4-17.7 s wall instead of 18.3-20.6 s in alternated runs (docs/performance.md).
class HugePageSystemAllocator final : public SysAllocator {
 public:
  explicit HugePageSystemAllocator(SysAllocator* base) : base_(base) {}

  void* Alloc(size_t size, size_t* actual_size, size_t alignment) override {
    constexpr size_t kHugePage = size_t{2} << 20;
    size_t actual = 0;
    if (actual_size == nullptr) actual_size = &actual;
    size = (size + kHugePage - 1) & ~(kHugePage - 1);
    void* region = base_->Alloc(size, actual_size, alignment > kHugePage ? alignment : kHugePage);
    // Advice only: a kernel without THP refuses it, and the region works as it is.
    if (region != nullptr) madvise(region, *actual_size, MADV_HUGEPAGE);
    return region;
  }

 private:
  SysAllocator* base_;
};

bool configure_heap() {
  MallocExtension* extension = MallocExtension::instance();
  // Never freed: tcmalloc calls it until the process ends.
  extension->SetSystemAllocator(new HugePageSystemAllocator(extension->GetSystemAllocator()));
  return true;
}

#else

// glibc's malloc (no tcmalloc, or a sanitizer build) hands memory back to the system whenever the
// top of the heap is free and takes it back on the next allocation: with actors' stacks and flows
// allocated and freed by the hundred thousand, the cross-datacenter study spent 91 of its 290
// CPU-seconds in the kernel (150 s wall; 58 s with these settings). Keep freed memory instead.
bool configure_heap() {
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  return true;
}

#endif

[[maybe_unused]] const bool heap_configured = configure_heap();

}  // namespace
