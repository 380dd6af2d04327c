// The divergence diagnosis (Note [Divergence diagnosis]).
#include "engine/train/divergence_diagnosis.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "engine/core/error.h"

namespace netsmith {
// A named namespace: the engine is built in unity batches, where another file's helpers share the unit.
namespace diagnosis_helpers {

// The first value that is not finite, as text ("inf", "-inf", "nan"); empty when all are finite.
std::string firstNonFinite(const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) return format("{}", v[i]);
  return {};
}
std::string firstNonFinite(const std::vector<float>& v) { return firstNonFinite(v.data(), static_cast<int64_t>(v.size())); }

double largestMagnitude(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

// The node whose forward writes node i's output (itself unless Note [Fused ReLU]).
int writerOf(const Network& network, int i) {
  const int by = network.forwardDoneBy(i);
  return by >= 0 ? by : i;
}

// Each node's blobs, in kernelParameters() order (graph order, then blob order).
std::vector<std::vector<ParameterRef>> blobsByNode(Network& network) {
  const Graph& graph = network.graph();
  const std::vector<ParameterRef> all = network.kernelParameters();
  std::vector<std::vector<ParameterRef>> out(graph.nodes.size());
  size_t k = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (size_t b = 0; b < graph.nodes[i].blobs.size(); ++b) out[i].push_back(all.at(k++));
  return out;
}

std::string blobName(const GraphNode& node, const ParameterRef& p) {
  return p.name.size() > node.id.size() + 1 ? p.name.substr(node.id.size() + 1) : p.name;
}

std::string nonFiniteOn(DeviceContext& device, const Tensor* t) {
  if (!t || t->size() == 0) return {};
  std::vector<float> host(static_cast<size_t>(t->size()));
  device.download(host.data(), t->data(), t->size());
  return firstNonFinite(host);
}

// x to 3 significant digits, for sentences.
double threeDigits(double x) {
  std::ostringstream out;
  out << std::setprecision(3) << x;
  return std::stod(out.str());
}

}  // namespace diagnosis_helpers

using namespace diagnosis_helpers;

std::optional<DivergenceFinding> findNonFiniteParameters(Network& network) {
  const Graph& graph = network.graph();
  const auto blobs = blobsByNode(network);
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    for (const ParameterRef& p : blobs[i])
      if (const std::string bad = nonFiniteOn(network.device(), p.value); !bad.empty())
        return DivergenceFinding{graph.nodes[i].id, static_cast<int>(i), "parameters",
                                 format("its parameter {} holds {} (an update let a non-finite gradient through)",
                                        blobName(graph.nodes[i], p), bad)};
  return std::nullopt;
}

std::optional<DivergenceFinding> findNonFiniteForward(Network& network) {
  const Graph& graph = network.graph();
  for (int i = 0; i < static_cast<int>(graph.nodes.size()); ++i) {
    const std::vector<float> values = network.valuesOf(i, false);
    const std::string bad = firstNonFinite(values);
    if (bad.empty()) continue;
    const GraphNode& node = graph.nodes[static_cast<size_t>(i)];
    if (node.schema->isInput)
      return DivergenceFinding{node.id, i, "forward", format("the batch's samples hold {}: check the dataset", bad)};
    const int writer = writerOf(network, i);
    if (writer != i)
      return DivergenceFinding{graph.nodes[static_cast<size_t>(writer)].id, writer, "forward",
                               format("its output (with its fused {} '{}') became {}", node.schema->name, node.id, bad)};
    return DivergenceFinding{node.id, i, "forward", format("its output became {}", bad)};
  }
  return std::nullopt;
}

std::optional<DivergenceFinding> findForwardProblem(Network& network) {
  std::optional<DivergenceFinding> nonFinite = findNonFiniteForward(network);
  std::optional<DivergenceFinding> growth = findExplodingForward(network);
  if (growth && (!nonFinite || growth->node < nonFinite->node)) return growth;
  return nonFinite;
}

std::optional<DivergenceFinding> findNonFiniteBackward(Network& network) {
  const Graph& graph = network.graph();
  const auto blobs = blobsByNode(network);
  for (int i = static_cast<int>(graph.nodes.size()) - 1; i >= 0; --i) {
    const GraphNode& node = graph.nodes[static_cast<size_t>(i)];
    if (node.schema->isInput || !network.runsBackward(i)) continue;
    for (const ParameterRef& p : blobs[static_cast<size_t>(i)])
      if (const std::string bad = nonFiniteOn(network.device(), p.grad); !bad.empty())
        return DivergenceFinding{node.id, i, "backward",
                                 format("the gradient of its parameter {} became {}", blobName(node, p), bad)};
    for (int producer : node.inputs) {
      if (graph.nodes[static_cast<size_t>(producer)].schema->isInput) continue;
      if (const std::string bad = firstNonFinite(network.valuesOf(producer, true)); !bad.empty())
        return DivergenceFinding{node.id, i, "backward",
                                 format("the gradient it passes back to '{}' became {}",
                                        graph.nodes[static_cast<size_t>(producer)].id, bad)};
    }
  }
  return std::nullopt;
}

std::optional<DivergenceFinding> findExplodingForward(Network& network) {
  const Graph& graph = network.graph();
  std::vector<double> largest(graph.nodes.size(), 0.0);
  for (int i = 0; i < static_cast<int>(graph.nodes.size()); ++i) {
    const GraphNode& node = graph.nodes[static_cast<size_t>(i)];
    const std::vector<float> values = network.valuesOf(i, false);
    if (values.empty()) continue;  // written by the layer after it, judged with it
    largest[static_cast<size_t>(i)] = largestMagnitude(values);
    if (!std::isfinite(largest[static_cast<size_t>(i)])) return std::nullopt;  // findNonFiniteForward's
    if (node.schema->isInput || node.schema->isLoss()) continue;
    // A layer whose output its fused ReLU holds is judged by that output, against its own inputs.
    double inputs = 1;
    const int writer = writerOf(network, i);
    for (int p : graph.nodes[static_cast<size_t>(writer)].inputs) inputs = std::max(inputs, largest[static_cast<size_t>(p)]);
    const double out = largest[static_cast<size_t>(i)];
    if (out > kDivergenceGrowth * inputs)
      return DivergenceFinding{graph.nodes[static_cast<size_t>(writer)].id, writer, "forward",
                               format("its output grew to {}, {} times the largest value of its input", threeDigits(out),
                                      threeDigits(out / inputs))};
  }
  return std::nullopt;
}

}  // namespace netsmith
