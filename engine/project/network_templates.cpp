#include "engine/project/network_templates.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"

namespace netsmith {

namespace {

constexpr double kRowHeight = 90;
constexpr double kBranchOffset = 260;

// Appends nodes and links; each node goes one row below the last, in the trunk's column or a
// branch's.
class NetworkWriter {
 public:
  std::string add(const std::string& id, const std::string& type, Json params, std::vector<std::string> inputs,
                  double column = 0) {
    NodeSpec n;
    n.id = id;
    n.type = type;
    if (!params.is_null()) n.params = std::move(params);
    n.pos = {column, m_row++ * kRowHeight};
    m_spec.nodes.push_back(std::move(n));
    for (const std::string& from : inputs) m_spec.links.push_back({from, id, std::nullopt});
    return id;
  }
  // Convolution, BatchNormalization and (optionally) an activation: the unit every template repeats.
  std::string convBn(const std::string& name, const std::string& from, int64_t outmaps, int64_t kernel, int64_t stride,
                     const char* activation, double column = 0, int64_t group = 1, bool bias = false) {
    Json p = {{"outmaps", outmaps}, {"kernel", {kernel, kernel}}, {"pad", {kernel / 2, kernel / 2}},
              {"stride", {stride, stride}}, {"with_bias", bias}};
    if (group != 1) p["group"] = group;
    std::string last = add(name + "_conv", "Convolution", p, {from}, column);
    last = add(name + "_bn", "BatchNormalization", Json(), {last}, column);
    if (activation) last = add(name + "_" + lower(activation), activation, Json(), {last}, column);
    return last;
  }
  NetworkSpec take() { return std::move(m_spec); }

 private:
  static std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  }
  NetworkSpec m_spec;
  int m_row = 0;
};

std::string classifierHead(NetworkWriter& w, const std::string& from, int64_t classes) {
  const std::string fc = w.add("fc", "Affine", {{"n_outmaps", {classes}}}, {from});
  return w.add("loss", "SoftmaxCrossEntropy", Json(), {fc});
}

// torchvision's resnet18: BasicBlocks [2, 2, 2, 2] of 64, 128, 256, 512 maps.
NetworkSpec resnet18(const Shape& in, int64_t classes) {
  NetworkWriter w;
  std::string last = w.add("x", "Input", {{"shape", in}}, {});
  last = w.convBn("stem", last, 64, 7, 2, "ReLU");
  last = w.add("stem_pool", "MaxPooling", {{"kernel", {3, 3}}, {"stride", {2, 2}}, {"pad", {1, 1}}}, {last});
  int64_t maps = 64;
  for (int stage = 1; stage <= 4; ++stage) {
    const int64_t outmaps = 64 << (stage - 1);
    for (int block = 1; block <= 2; ++block) {
      const std::string name = "layer" + std::to_string(stage) + "_" + std::to_string(block);
      const int64_t stride = stage > 1 && block == 1 ? 2 : 1;
      std::string shortcut = last;
      if (stride != 1 || maps != outmaps) shortcut = w.convBn(name + "_down", last, outmaps, 1, stride, nullptr, kBranchOffset);
      std::string y = w.convBn(name + "_a", last, outmaps, 3, stride, "ReLU");
      y = w.convBn(name + "_b", y, outmaps, 3, 1, nullptr);
      y = w.add(name + "_add", "Add2", Json(), {y, shortcut});
      last = w.add(name + "_relu", "ReLU", Json(), {y});
      maps = outmaps;
    }
  }
  last = w.add("pool", "GlobalAveragePooling", Json(), {last});
  classifierHead(w, last, classes);
  return w.take();
}

// torchvision's vgg11_bn: configuration "A" with BatchNormalization, then 4096-4096-classes.
NetworkSpec vgg11bn(const Shape& in, int64_t classes) {
  NetworkWriter w;
  std::string last = w.add("x", "Input", {{"shape", in}}, {});
  const std::vector<int64_t> config{64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0};  // 0: max pooling
  int conv = 0, pool = 0;
  for (int64_t maps : config) {
    if (maps == 0) {
      last = w.add("pool" + std::to_string(++pool), "MaxPooling", {{"kernel", {2, 2}}, {"stride", {2, 2}}}, {last});
    } else {
      last = w.convBn("conv" + std::to_string(++conv), last, maps, 3, 1, "ReLU", 0, 1, /*bias=*/true);
    }
  }
  for (int i = 1; i <= 2; ++i) {
    last = w.add("fc" + std::to_string(i), "Affine", {{"n_outmaps", {4096}}}, {last});
    last = w.add("fc" + std::to_string(i) + "_relu", "ReLU", Json(), {last});
    last = w.add("fc" + std::to_string(i) + "_dropout", "Dropout", {{"p", 0.5}}, {last});
  }
  classifierHead(w, last, classes);
  return w.take();
}

// torchvision's mobilenet_v2 (width 1.0): inverted residuals with ReLU6, a 1280-map last layer
// and dropout 0.2 before the classifier.
NetworkSpec mobilenetV2(const Shape& in, int64_t classes) {
  NetworkWriter w;
  std::string last = w.add("x", "Input", {{"shape", in}}, {});
  last = w.convBn("stem", last, 32, 3, 2, "ReLU6");
  struct Stage { int64_t expand, maps, repeats, stride; };
  const Stage stages[] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                          {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  int64_t maps = 32;
  int block = 0;
  for (const Stage& s : stages)
    for (int64_t r = 0; r < s.repeats; ++r) {
      const std::string name = "block" + std::to_string(++block);
      const int64_t stride = r == 0 ? s.stride : 1;
      const int64_t hidden = maps * s.expand;
      std::string y = last;
      if (s.expand != 1) y = w.convBn(name + "_expand", y, hidden, 1, 1, "ReLU6");
      y = w.convBn(name + "_depthwise", y, hidden, 3, stride, "ReLU6", 0, hidden);
      y = w.convBn(name + "_project", y, s.maps, 1, 1, nullptr);
      if (stride == 1 && maps == s.maps) y = w.add(name + "_add", "Add2", Json(), {y, last});
      last = y;
      maps = s.maps;
    }
  last = w.convBn("last", last, 1280, 1, 1, "ReLU6");
  last = w.add("pool", "GlobalAveragePooling", Json(), {last});
  last = w.add("dropout", "Dropout", {{"p", 0.2}}, {last});
  classifierHead(w, last, classes);
  return w.take();
}

// A small classifier for small images: three conv/BN/ReLU stages of 32, 64 and 128 maps, the
// first two followed by 2x2 max pooling, then global average pooling.
NetworkSpec smallCnn(const Shape& in, int64_t classes) {
  NetworkWriter w;
  std::string last = w.add("x", "Input", {{"shape", in}}, {});
  last = w.convBn("conv1", last, 32, 3, 1, "ReLU");
  last = w.add("pool1", "MaxPooling", {{"kernel", {2, 2}}}, {last});
  last = w.convBn("conv2", last, 64, 3, 1, "ReLU");
  last = w.add("pool2", "MaxPooling", {{"kernel", {2, 2}}}, {last});
  last = w.convBn("conv3", last, 128, 3, 1, "ReLU");
  last = w.add("pool", "GlobalAveragePooling", Json(), {last});
  classifierHead(w, last, classes);
  return w.take();
}

struct TemplateEntry {
  NetworkTemplate info;
  NetworkSpec (*make)(const Shape&, int64_t);
  const char* needs;  // an op the registry must have, or null
};

const std::vector<TemplateEntry>& entries() {
  static const std::vector<TemplateEntry> all{
      {{"small_cnn", "Small CNN", "Three convolution stages (32, 64, 128 maps) with batch normalization; for small images.", 4},
       smallCnn, nullptr},
      {{"resnet18", "ResNet-18", "He et al. 2015, as torchvision's resnet18: 8 residual blocks, 11.7 M parameters at 224x224.", 8},
       resnet18, nullptr},
      {{"vgg11_bn", "VGG-11 (with BN)", "Simonyan and Zisserman 2014, configuration A with batch normalization, as torchvision's vgg11_bn.", 32},
       vgg11bn, nullptr},
      {{"mobilenet_v2", "MobileNetV2", "Sandler et al. 2018, as torchvision's mobilenet_v2: inverted residuals, 3.5 M parameters.", 8},
       mobilenetV2, "ReLU6"},
  };
  return all;
}

}  // namespace

std::vector<NetworkTemplate> networkTemplates() {
  std::vector<NetworkTemplate> out;
  for (const TemplateEntry& e : entries())
    if (!e.needs || OpRegistry::builtin().find(e.needs)) out.push_back(e.info);
  return out;
}

NetworkSpec makeTemplateNetwork(const std::string& id, const Shape& inputShape, int64_t classes) {
  std::string known;
  for (const NetworkTemplate& t : networkTemplates()) {
    known += (known.empty() ? "" : ", ") + t.id;
    if (t.id != id) continue;
    NS_CHECK(inputShape.size() == 3 && inputShape[0] >= 1,
             "template {}: the input shape must be channels, height, width (such as 3,32,32), got {}", t.name,
             shapeToString(inputShape));
    NS_CHECK(inputShape[1] >= t.minSide && inputShape[2] >= t.minSide,
             "template {}: the input is {} pixels; it needs at least {}x{} for its downsampling", t.name,
             shapeToString(inputShape), t.minSide, t.minSide);
    NS_CHECK(classes >= 2, "template {}: the number of classes must be at least 2, got {}", t.name, classes);
    for (const TemplateEntry& e : entries())
      if (e.info.id == id) return e.make(inputShape, classes);
  }
  NS_THROW("no network template '{}': the templates are {}", id, known);
}

}  // namespace netsmith
