# dasim::openblas: OpenBLAS's CBLAS (libopenblas-dev), found once for the kernels and the executor.
# Debian puts cblas.h under an include directory named after the threading variant.
find_library(OPENBLAS_LIBRARY NAMES openblas)
find_path(OPENBLAS_INCLUDE_DIR NAMES cblas.h
          PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/aarch64-linux-gnu/openblas-pthread
                /usr/include/openblas
          NO_DEFAULT_PATH)
find_path(OPENBLAS_INCLUDE_DIR NAMES cblas.h)
if(NOT OPENBLAS_LIBRARY OR NOT OPENBLAS_INCLUDE_DIR)
  message(FATAL_ERROR "OpenBLAS not found (install libopenblas-dev)")
endif()
add_library(dasim::openblas INTERFACE IMPORTED)
target_link_libraries(dasim::openblas INTERFACE ${OPENBLAS_LIBRARY})
target_include_directories(dasim::openblas INTERFACE ${OPENBLAS_INCLUDE_DIR})
