#include "gui/document/network_analysis.h"

#include <QFileInfo>
#include <QStringList>

#include <QRegularExpression>
#include <QString>
#include <set>

#include "engine/core/error.h"
#include "gui/document/qt_text.h"

namespace netsmith::gui {

int NetworkAnalysis::problemCount() const {
  int n = static_cast<int>(networkProblems.size());
  for (const auto& [id, facts] : nodes) n += static_cast<int>(facts.problems.size());
  return n;
}

namespace {

// The link `i` in words: "x → conv1".
QString linkWords(const NetworkSpec& spec, int i) {
  if (i < 0 || i >= static_cast<int>(spec.links.size())) return QStringLiteral("link %1").arg(i + 1);
  return QStringLiteral("%1 → %2").arg(qs(spec.links[i].from), qs(spec.links[i].to));
}

QString nodeWords(const NetworkSpec& spec, int i) {
  if (i < 0 || i >= static_cast<int>(spec.nodes.size())) return QStringLiteral("block %1").arg(i + 1);
  return QStringLiteral("block '%1'").arg(qs(spec.nodes[i].id));
}

// Producers of each node in port order, the way the engine fills ports (an explicit port, else the
// next free one in link order); -1 marks an unfilled port. Unknown ids are skipped (the validator
// reports them).
// `linkPorts` receives the port each link fills (-1: none).
std::vector<std::vector<int>> producers(const NetworkSpec& spec, const std::map<std::string, int>& byId,
                                        std::vector<int>& linkPorts) {
  std::vector<std::vector<int>> inputs(spec.nodes.size());
  linkPorts.assign(spec.links.size(), -1);
  for (size_t j = 0; j < spec.links.size(); ++j) {
    const LinkSpec& link = spec.links[j];
    const auto from = byId.find(link.from), to = byId.find(link.to);
    if (from == byId.end() || to == byId.end() || from->second == to->second) continue;
    auto& ports = inputs[to->second];
    if (link.port) {
      if (*link.port < 0 || *link.port > 64) continue;
      if (static_cast<int>(ports.size()) <= *link.port) ports.resize(*link.port + 1, -1);
      if (ports[*link.port] == -1) {
        ports[*link.port] = from->second;
        linkPorts[j] = *link.port;
      }
    } else {
      auto free = std::find(ports.begin(), ports.end(), -1);
      if (free == ports.end()) free = ports.insert(ports.end(), -1);
      *free = from->second;
      linkPorts[j] = static_cast<int>(free - ports.begin());
    }
  }
  return inputs;
}

// "network.nodes[3].params.kernel" -> (3, "kernel"); the parameter is empty when the path ends
// before it, and the index -1 when the path is not a node's.
std::pair<int, std::string> nodePathParts(const std::string& path) {
  static const QRegularExpression re(QStringLiteral("^/?network[./]nodes(?:\\[(\\d+)\\]|/(\\d+))(?:[./]params(?:[./](\\w+))?)?"));
  const auto m = re.match(qs(path));
  if (!m.hasMatch()) return {-1, {}};
  const QString index = m.captured(1).isEmpty() ? m.captured(2) : m.captured(1);
  return {index.toInt(), m.captured(3).toStdString()};
}

}  // namespace

NetworkAnalysis analyseNetwork(const NetworkSpec& spec, const OpRegistry& registry, const DatasetSamples* samples) {
  NetworkAnalysis a;
  const int n = static_cast<int>(spec.nodes.size());
  std::map<std::string, int> byId;
  for (int i = 0; i < n; ++i) {
    byId.emplace(spec.nodes[i].id, i);
    a.nodes[spec.nodes[i].id];
  }

  std::vector<GraphProblem> problems;
  try {
    problems = checkNetwork(spec, registry);
  } catch (const std::exception& e) {
    problems.push_back({"", "", e.what()});
  }
  a.valid = problems.empty();
  static const QRegularExpression linkPath(QStringLiteral("^network\\.links\\[(\\d+)\\]"));
  for (const auto& p : problems) {
    const std::string message = describeJsonPaths(p.message, spec);
    if (!p.nodeId.empty() && a.nodes.count(p.nodeId)) {
      // The block is known (the problem is drawn on it): name the field, if it is about one.
      const std::string param = nodePathParts(p.jsonPath).second;
      a.nodes[p.nodeId].problems.push_back(param.empty() ? message : "field '" + fieldLabel(param) + "': " + message);
    } else if (const auto m = linkPath.match(qs(p.jsonPath)); m.hasMatch()) {
      a.networkProblems.push_back(QStringLiteral("Link %1: ").arg(linkWords(spec, m.captured(1).toInt())).toStdString() + message);
    } else if (p.jsonPath.empty() || p.jsonPath == "network" || p.jsonPath == "network.nodes" ||
               p.jsonPath == "network.links") {
      a.networkProblems.push_back(message);
    } else {
      a.networkProblems.push_back(describeJsonPaths(p.text(), spec));
    }
  }

  // Shapes: repeatedly settle every node whose producers are all settled; a node gets a shape
  // only when all its producers have one (a cycle simply leaves its nodes unsettled).
  const auto inputs = producers(spec, byId, a.linkPorts);
  for (int i = 0; i < n; ++i) {
    const OpSchema* schema = registry.find(spec.nodes[i].type);
    const int linked = static_cast<int>(inputs[i].size());
    int ports = schema ? static_cast<int>(schema->inputs.size()) : std::max(1, linked);
    if (schema && schema->variadic) ports = std::max({ports, 2, linked + 1});
    a.nodes[spec.nodes[i].id].inputPorts = std::max(ports, schema && schema->inputs.empty() ? 0 : linked);
  }
  std::vector<bool> settled(n, false), hasShape(n, false);
  std::vector<Shape> shapes(n);
  for (bool progress = true; progress;) {
    progress = false;
    for (int i = 0; i < n; ++i) {
      if (settled[i]) continue;
      const auto& ports = inputs[i];
      bool ready = true, inputsKnown = true;
      for (int p : ports) {
        ready = ready && p >= 0 && settled[p];
        inputsKnown = inputsKnown && p >= 0 && hasShape[p];
      }
      if (!ready) continue;
      settled[i] = true;
      progress = true;
      const NodeSpec& node = spec.nodes[i];
      const OpSchema* schema = registry.find(node.type);
      if (!schema || !inputsKnown) continue;
      const size_t want = schema->inputs.size();
      if (schema->variadic ? ports.size() < std::max<size_t>(want, 1) : ports.size() != want) continue;
      std::vector<Shape> in;
      for (int p : ports) in.push_back(shapes[p]);
      try {
        const Json params = validateParams(*schema, node.params, "params");
        const OpParams view(params);
        Shape out = schema->inferShape(in, view);
        for (int64_t d : out)
          if (d < 1) throw Error("empty axis");
        int64_t count = 0;
        if (schema->parameterBlobs)
          for (const ParamBlob& blob : schema->parameterBlobs(in, view))
            if (blob.trainable) count += numel(blob.shape);
        NodeFacts& facts = a.nodes[node.id];
        facts.outputShape = out;
        facts.parameterCount = count;
        facts.multiplyAdds = schema->multiplyAdds ? schema->multiplyAdds(in, out, view) : 0;
        shapes[i] = std::move(out);
        hasShape[i] = true;
        a.parameterCount += facts.parameterCount;
        a.multiplyAdds += facts.multiplyAdds;
      } catch (const std::exception&) {
        // The validator has already said what is wrong with this node; it just has no shape.
      }
    }
  }
  // The trainer reshapes a sample into the input's shape when the counts agree, and refuses otherwise.
  if (samples)
    for (int i = 0; i < n; ++i) {
      const OpSchema* schema = registry.find(spec.nodes[i].type);
      if (!schema || !schema->inputs.empty() || !hasShape[i] || numel(shapes[i]) == numel(samples->shape)) continue;
      auto commas = [](const Shape& s) {
        QStringList parts;
        for (int64_t d : s) parts << QString::number(d);
        return parts.join(QLatin1Char(','));
      };
      a.nodes[spec.nodes[i].id].problems.push_back(
          QStringLiteral("the training data's samples have shape %1 (%2 values, %3) but this block gives %4 (%5 values): "
                         "set its shape to %1")
              .arg(commas(samples->shape))
              .arg(numel(samples->shape))
              .arg(QFileInfo(qs(samples->source)).fileName(), commas(shapes[i]))
              .arg(numel(shapes[i]))
              .toStdString());
      a.valid = false;
    }
  return a;
}

std::string fieldLabel(const std::string& param) {
  QString label = qs(param);
  label.replace(QLatin1Char('_'), QLatin1Char(' '));
  if (!label.isEmpty()) label[0] = label[0].toUpper();
  return label.toStdString();
}

std::string problemSentence(const std::string& nodeId, const std::string& problem) {
  const bool aboutField = problem.rfind("field '", 0) == 0;
  return "Block '" + nodeId + "'" + (aboutField ? ", " : ": ") + problem;
}

std::string describeJsonPaths(const std::string& message, const NetworkSpec& spec) {
  // Dotted paths (the validator's) and JSON pointers (nlohmann's), for nodes and links.
  static const QRegularExpression nodeRe(QStringLiteral(
      "/?network[./]nodes(?:\\[(\\d+)\\]|/(\\d+))(?:[./]params(?:[./](\\w+))?)?(?:[./](\\w+))?"));
  static const QRegularExpression linkRe(QStringLiteral("/?network[./]links(?:\\[(\\d+)\\]|/(\\d+))(?:[./](\\w+))?"));
  QString text = qs(message);
  for (auto m = nodeRe.match(text); m.hasMatch(); m = nodeRe.match(text, m.capturedStart())) {
    const int index = (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)).toInt();
    QString words = nodeWords(spec, index);
    if (!m.captured(3).isEmpty())
      words = QStringLiteral("field '%1' of %2").arg(qs(fieldLabel(m.captured(3).toStdString())), words);
    else if (!m.captured(4).isEmpty() && m.captured(4) != QLatin1String("params"))
      words = QStringLiteral("the %1 of %2").arg(m.captured(4), words);
    text.replace(m.capturedStart(), m.capturedLength(), words);
  }
  for (auto m = linkRe.match(text); m.hasMatch(); m = linkRe.match(text, m.capturedStart())) {
    const int index = (m.captured(1).isEmpty() ? m.captured(2) : m.captured(1)).toInt();
    text.replace(m.capturedStart(), m.capturedLength(), QStringLiteral("the link %1").arg(linkWords(spec, index)));
  }
  text.replace(QRegularExpression(QStringLiteral("\\bnetwork\\.nodes\\b")), QStringLiteral("the network"));
  return text.toStdString();
}

}  // namespace netsmith::gui
