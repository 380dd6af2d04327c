# Neural Network Console / nnabla files (.nntxt, .nnp; Note [NNabla import]), included by
# engine/import/CMakeLists.txt: their own text-format, ZIP (zlib's raw inflate, zlib being linked
# already) and protobuf wire-format readers, so no further dependency.
target_sources(netsmith_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/text_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/zip_archive.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parameter_protobuf.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nnabla_file.cpp
  ${CMAKE_CURRENT_LIST_DIR}/repeat_expansion.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nnabla_importer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nnabla_convert_layers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nnabla_convert_other.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nnabla_settings.cpp
  ${CMAKE_CURRENT_LIST_DIR}/learning_rate_multipliers.cpp)
