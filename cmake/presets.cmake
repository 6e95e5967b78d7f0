# Embeds every JSON file under presets/ into a generated C++ source, so the CLI and the
# WebAssembly module carry the same presets without file access at run time.
file(GLOB_RECURSE OPTIMUS_PRESET_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/presets/*.json)
set(OPTIMUS_PRESETS_CPP ${CMAKE_BINARY_DIR}/generated/embedded_presets.cpp)
add_custom_command(
  OUTPUT ${OPTIMUS_PRESETS_CPP}
  COMMAND ${CMAKE_COMMAND} -DPRESET_ROOT=${PROJECT_SOURCE_DIR}/presets -DOUTPUT=${OPTIMUS_PRESETS_CPP}
          -DSTRIP_NOTES=${EMSCRIPTEN} -P ${PROJECT_SOURCE_DIR}/cmake/embed_presets.cmake
  DEPENDS ${OPTIMUS_PRESET_FILES} ${PROJECT_SOURCE_DIR}/cmake/embed_presets.cmake
  COMMENT "Embedding presets")

# docs/contract.md's key and field tables as C++ (io/contract_text.h): the schema's descriptions
# and units (contract_text.cpp, in io), and the type, default and range columns the contract test
# checks against the schema (contract_columns.cpp, in the unit tests only).
set(OPTIMUS_CONTRACT_TEXT_CPP ${CMAKE_BINARY_DIR}/generated/contract_text.cpp)
set(OPTIMUS_CONTRACT_COLUMNS_CPP ${CMAKE_BINARY_DIR}/generated/contract_columns.cpp)
add_custom_command(
  OUTPUT ${OPTIMUS_CONTRACT_TEXT_CPP} ${OPTIMUS_CONTRACT_COLUMNS_CPP}
  COMMAND ${CMAKE_COMMAND} -DDOC=${PROJECT_SOURCE_DIR}/docs/contract.md -DTEXT=${OPTIMUS_CONTRACT_TEXT_CPP}
          -DCOLUMNS=${OPTIMUS_CONTRACT_COLUMNS_CPP} -P ${PROJECT_SOURCE_DIR}/cmake/contract_text.cmake
  DEPENDS ${PROJECT_SOURCE_DIR}/docs/contract.md ${PROJECT_SOURCE_DIR}/cmake/contract_text.cmake
  COMMENT "Reading the key and field tables of docs/contract.md")
