// Network templates (File ▸ New from template): well-known architectures written as Netsmith
// networks for any (channels, height, width) input and number of classes, ending in
// SoftmaxCrossEntropy. Layer for layer as torchvision builds them, so at 3x224x224 and 1000
// classes their trainable parameter counts are torchvision's (BatchNormalization's running
// statistics not counted): ResNet-18 11,689,512, VGG-11 with BN 132,868,840, MobileNetV2
// 3,504,872 (tests/unit/tst_network_templates.cpp). On small inputs the stem keeps its strides,
// so an input must be large enough for the template's downsampling (minSide); VGG's classifier
// reads the features at whatever size they come out instead of torchvision's adaptive pooling
// to 7x7, so its first inner product is smaller than torchvision's below 224x224.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/shape.h"
#include "engine/project/project.h"

namespace netsmith {

struct NetworkTemplate {
  std::string id;           // "resnet18"
  std::string name;         // "ResNet-18"
  std::string description;  // one sentence for the dialog
  int64_t minSide = 1;      // the smallest height and width it takes
};

// The templates this build offers (MobileNetV2 needs the ReLU6 layer in the op registry).
std::vector<NetworkTemplate> networkTemplates();
// The network of template `id` for inputs of `inputShape` (C, H, W) and `classes` classes, laid
// out top to bottom with each residual branch beside its trunk. Throws Error naming the template
// and what is wrong (unknown id, not C,H,W, too small, fewer than 2 classes).
NetworkSpec makeTemplateNetwork(const std::string& id, const Shape& inputShape, int64_t classes);

}  // namespace netsmith
