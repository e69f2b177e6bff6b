# dasim::allocator: gperftools' tcmalloc for the programs that simulate (dasim, dasim_bench).
#
# A simulation allocates and frees small objects at a high rate: SimGrid's activities, actors and
# their 32 KiB stacks, solver elements, our flows' closures. With glibc's allocator, malloc, free
# and their page faults were about a fifth of the paper study's profile (perf, VGG-16 sync SGD on
# 128 DGX-1 nodes); tcmalloc's per-thread caches cut that configuration from 9.3-10.4 s to
# 7.9-8.0 s with byte-identical results (docs/performance.md); its memory advised for huge pages
# (base/allocator/heap_setup.cpp) took the paper study from 18.3-20.6 s to 15.4-17.7 s.
# Optional: without libgoogle-perftools-dev (scripts/setup.sh installs it) the programs link
# glibc's malloc, and the sanitizer and fuzz builds always do, as ASan replaces the allocator.
option(DASIM_TCMALLOC "Link dasim and dasim_bench with tcmalloc when pkg-config finds it" ON)
add_library(dasim_allocator INTERFACE)
add_library(dasim::allocator ALIAS dasim_allocator)
# How the heap takes memory from the system (huge pages with tcmalloc, no trimming with glibc):
# compiled into each program that links this target, set up before main.
target_sources(dasim_allocator INTERFACE ${PROJECT_SOURCE_DIR}/base/allocator/heap_setup.cpp)
if(DASIM_TCMALLOC AND NOT DASIM_SANITIZE AND NOT DASIM_FUZZ)
  pkg_check_modules(TCMALLOC IMPORTED_TARGET libtcmalloc_minimal)
  if(TCMALLOC_FOUND)
    # Nothing calls tcmalloc by name (it replaces malloc and operator new when loaded), so a linker
    # that drops unreferenced libraries (--as-needed) must be told to keep it.
    target_link_libraries(dasim_allocator INTERFACE "-Wl,--push-state,--no-as-needed" PkgConfig::TCMALLOC
                                                    "-Wl,--pop-state")
    target_compile_definitions(dasim_allocator INTERFACE DASIM_TCMALLOC=1)
    message(STATUS "dasim: linking tcmalloc (${TCMALLOC_LINK_LIBRARIES})")
  else()
    message(STATUS "dasim: tcmalloc not found, glibc's malloc (slower simulations; scripts/setup.sh installs it)")
  endif()
endif()
