# Note [Op folders]: each folder engine/ops/<op>/ holds one layer type. Its schema.cpp defines
# `void netsmith::ops::register_<op>(OpRegistry&)`; its cuda.cu, when the CUDA backend is built,
# `void netsmith::cuda::register_<op>(OpRegistry&)` (the op's "cuda" kernels, added to the schema
# registered before it); its onnx.cpp `void netsmith::onnx_export::register_<op>(OnnxLayerTable&)`.
# The calls that fill the registries are generated from the folder names, so adding a layer is
# adding a folder. This is the one loop that reads them.
#
#   netsmith_op_folder_calls(FILE <name in each folder> TYPE <registry type> ARG <argument name>
#                            DECLS <var> CALLS <var> [SOURCES <var>])
# sets DECLS to one declaration per folder that has FILE, CALLS to one call each (in folder-name
# order) and SOURCES to the files themselves.
function(netsmith_op_folder_calls)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "FILE;TYPE;ARG;DECLS;CALLS;SOURCES" "")
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/engine/ops/*/${arg_FILE})
  set(decls "")
  set(calls "")
  foreach(source ${sources})
    get_filename_component(dir ${source} DIRECTORY)
    get_filename_component(op ${dir} NAME)
    string(APPEND decls "void register_${op}(${arg_TYPE}&);\n")
    string(APPEND calls "  register_${op}(${arg_ARG});\n")
  endforeach()
  set(${arg_DECLS} "${decls}" PARENT_SCOPE)
  set(${arg_CALLS} "${calls}" PARENT_SCOPE)
  if(arg_SOURCES)
    set(${arg_SOURCES} "${sources}" PARENT_SCOPE)
  endif()
endfunction()
