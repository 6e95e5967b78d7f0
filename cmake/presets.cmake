# Embeds every JSON file under presets/ into a generated C++ source, so the CLI and the
# WebAssembly module carry the same presets without file access at run time.
file(GLOB_RECURSE OPTIMUS_PRESET_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/presets/*.json)
set(OPTIMUS_PRESETS_CPP ${CMAKE_BINARY_DIR}/generated/embedded_presets.cpp)
add_custom_command(
  OUTPUT ${OPTIMUS_PRESETS_CPP}
  COMMAND ${CMAKE_COMMAND} -DPRESET_ROOT=${PROJECT_SOURCE_DIR}/presets -DOUTPUT=${OPTIMUS_PRESETS_CPP}
          -P ${PROJECT_SOURCE_DIR}/cmake/embed_presets.cmake
  DEPENDS ${OPTIMUS_PRESET_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_presets.cmake
  COMMENT "Embedding presets")
