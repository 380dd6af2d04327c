#include "gui/sweep/layer_settings.h"

#include "engine/op_interface/op_registry.h"

namespace netsmith::gui {

namespace {

QString rangeWords(const ParamSpec& p, bool integer) {
  const QString kind = integer ? sweepTr("an integer") : sweepTr("a number");
  if (p.min && p.max) return sweepTr("%1 in [%2, %3]").arg(kind, valueText(*p.min), valueText(*p.max));
  if (p.min) return sweepTr("%1 >= %2").arg(kind, valueText(*p.min));
  if (p.max) return sweepTr("%1 <= %2").arg(kind, valueText(*p.max));
  return kind;
}

}  // namespace

std::vector<SweepSetting> layerSettings(const NetworkSpec& network) {
  std::vector<SweepSetting> out;
  const OpRegistry& registry = OpRegistry::builtin();
  for (const NodeSpec& node : network.nodes) {
    const OpSchema* schema = registry.find(node.type);
    if (!schema || schema->isInput) continue;
    for (const ParamSpec& p : schema->params) {
      const bool choice = p.type == ParamType::String && !p.choices.empty();
      const bool numeric = p.type == ParamType::Int || p.type == ParamType::Float || p.type == ParamType::Ints;
      if (!choice && !numeric) continue;
      SweepSetting s;
      s.path = QStringLiteral("network.%1.%2").arg(QString::fromStdString(node.id), QString::fromStdString(p.name));
      s.label = QStringLiteral("%1: %2 (%3)").arg(QString::fromStdString(node.id), QString::fromStdString(p.name),
                                                  QString::fromStdString(schema->name));
      s.help = QString::fromStdString(p.help);
      if (choice) {
        for (const std::string& c : p.choices) s.choices << QString::fromStdString(c);
        s.expected = sweepTr("one of %1").arg(s.choices.join(QStringLiteral(", ")));
      } else {
        s.integer = p.type != ParamType::Float;
        s.bounds.min = p.min;
        s.bounds.max = p.max;
        s.expected = rangeWords(p, s.integer);
        if (p.type == ParamType::Ints) s.help += sweepTr(" (the value is set in every element of the list)");
      }
      out.push_back(s);
    }
  }
  return out;
}

}  // namespace netsmith::gui
