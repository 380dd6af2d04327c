// LayerIds: the ids an import gives the layers it makes, from the names the source file gives its
// nodes or functions ("/layer1/0/conv1/Conv", "Convolution_2{RepeatStart}"). Parameter names are
// "layer/blob", so an id keeps letters, digits, '_', '.' and '-' only, each other run becoming one
// '_'; a name that would repeat an id gets "_2", "_3", ... Every importer (ONNX, nnabla) uses it.
#pragma once

#include <set>
#include <string>

namespace netsmith {

class LayerIds {
 public:
  // A new id made from `name` (never one this object returned before).
  std::string unique(const std::string& name);

 private:
  std::set<std::string> m_taken;
};

}  // namespace netsmith
