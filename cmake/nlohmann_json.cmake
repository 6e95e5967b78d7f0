# nlohmann/json from Debian's nlohmann-json3-dev. Under Emscripten the toolchain confines
# find_package to the sysroot and -I/usr/include would let glibc headers shadow musl, so the
# header folder is copied into the build tree and an imported target points at the copy
# (docs/web.md, "Build facts").
if(EMSCRIPTEN)
  find_package(nlohmann_json 3 REQUIRED NO_CMAKE_FIND_ROOT_PATH)
  get_target_property(_nj_inc nlohmann_json::nlohmann_json INTERFACE_INCLUDE_DIRECTORIES)
  set(_nj_copy ${CMAKE_BINARY_DIR}/third_party/nlohmann_json/include)
  file(COPY ${_nj_inc}/nlohmann DESTINATION ${_nj_copy})
  add_library(optimus_nlohmann_json INTERFACE)
  target_include_directories(optimus_nlohmann_json SYSTEM INTERFACE ${_nj_copy})
else()
  find_package(nlohmann_json 3 REQUIRED)
  add_library(optimus_nlohmann_json INTERFACE)
  target_link_libraries(optimus_nlohmann_json INTERFACE nlohmann_json::nlohmann_json)
endif()
