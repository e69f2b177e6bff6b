# dasim_library(<target> <folder> [LINK <targets>...] [SOURCES <extra sources>...])
#
# One static library per concept folder, with the layering enforced by the build: a library sees
# only its own headers and those of the libraries it links. Each folder is exposed under its own
# include root, build/include/<target>/<folder> -> the source folder, so `#include "engine/x.hpp"`
# from a library that does not link dasim_engine fails to compile instead of quietly reaching up a
# layer (ns-3 keeps its modules honest the same way).
function(dasim_library target folder)
  cmake_parse_arguments(ARG "" "" "LINK;SOURCES" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${folder}/*.cpp)
  add_library(${target} STATIC ${sources} ${ARG_SOURCES})
  dasim_expose_folder(${target} ${CMAKE_CURRENT_SOURCE_DIR}/${folder})
  target_link_libraries(${target} PUBLIC ${ARG_LINK} PRIVATE dasim_warnings)
  dasim_use_pch(${target} dasim_pch)
endfunction()

# Makes `#include "<name of folder>/header.hpp"` resolve for `target` and everything linking it.
function(dasim_expose_folder target folder_path)
  get_filename_component(name ${folder_path} NAME)
  set(root ${CMAKE_BINARY_DIR}/include/${target})
  file(MAKE_DIRECTORY ${root})
  if(NOT EXISTS ${root}/${name})
    file(CREATE_LINK ${folder_path} ${root}/${name} SYMBOLIC)
  endif()
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
endfunction()
