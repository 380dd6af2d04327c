// PropertyPanel (property_panel.h) with several blocks shown: Note [Editing several blocks] —
// the fields they share, their common values or "mixed", and a change made to all of them in one
// undo step.
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMap>
#include <QUndoStack>

#include "engine/core/error.h"
#include "gui/document/graph_commands.h"
#include "gui/edit/property_panel.h"

namespace netsmith::gui {

namespace {
Json valueOfNode(const NodeSpec& node, const ParamSpec& spec) {
  if (node.params.is_object() && node.params.contains(spec.name)) return node.params.at(spec.name);
  return spec.defaultValue;
}
}  // namespace

std::optional<Json> PropertyPanel::commonValue(const ParamSpec& spec) const {
  std::optional<Json> common;
  for (const QString& id : m_targets) {
    const NodeSpec* node = m_doc->node(ss(id));
    if (!node) continue;
    const Json value = valueOfNode(*node, spec);
    if (common && *common != value) return std::nullopt;  // the blocks differ: "mixed"
    common = value;
  }
  return common ? common : std::optional<Json>(spec.defaultValue);
}

std::vector<ParamSpec> PropertyPanel::sharedParams() const {
  // Note [Editing several blocks]: a field every selected block has, of one type and one set of
  // choices (the kernel of three Convolutions; with_bias of a Convolution and an Affine).
  std::vector<ParamSpec> shared;
  const NodeSpec* first = m_targets.isEmpty() ? nullptr : m_doc->node(ss(m_targets.front()));
  const OpSchema* firstSchema = first ? OpRegistry::builtin().find(first->type) : nullptr;
  if (!firstSchema) return shared;
  for (const ParamSpec& spec : firstSchema->params) {
    bool everywhere = true;
    for (const QString& id : m_targets) {
      const NodeSpec* node = m_doc->node(ss(id));
      const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
      const ParamSpec* other = schema ? schema->findParam(spec.name) : nullptr;
      everywhere = everywhere && other && other->type == spec.type && other->choices == spec.choices &&
                   other->length == spec.length;
    }
    if (everywhere) shared.push_back(spec);
  }
  return shared;
}

void PropertyPanel::rebuildSeveral() {
  QMap<QString, int> types;
  for (const QString& id : m_targets) ++types[qs(m_doc->node(ss(id))->type)];
  QStringList kinds;
  for (auto it = types.cbegin(); it != types.cend(); ++it) kinds << QStringLiteral("%1 %2").arg(it.value()).arg(it.key());
  m_title->setText(tr("<b>%n blocks</b>", nullptr, static_cast<int>(m_targets.size())) +
                   QStringLiteral(" (%1)").arg(kinds.join(QStringLiteral(", ")).toHtmlEscaped()));
  m_doc_->setText(tr("A change here is made to every selected block, in one undo step. A field shows a value when "
                     "the blocks agree, and \"mixed\" when they do not."));
  for (const ParamSpec& spec : sharedParams()) addParamField(spec);
  if (!trainableBlocks(*m_doc, m_targets).isEmpty()) addTrainingFields();
  syncValues();
  refreshFacts();
}

void PropertyPanel::syncSeveral() {
  const QStringList trainable = trainableBlocks(*m_doc, m_targets);
  if (m_frozen && m_lrMult && !trainable.isEmpty()) {
    const QSignalBlocker blockFrozen(m_frozen), blockMult(m_lrMult);
    int frozen = 0;
    bool sameMult = true;
    const double firstMult = m_doc->node(ss(trainable.front()))->lrMult;
    for (const QString& id : trainable) {
      frozen += m_doc->node(ss(id))->frozen ? 1 : 0;
      sameMult = sameMult && m_doc->node(ss(id))->lrMult == firstMult;
    }
    const bool mixed = frozen > 0 && frozen < trainable.size();
    m_frozen->setTristate(mixed);
    m_frozen->setCheckState(mixed ? Qt::PartiallyChecked : frozen > 0 ? Qt::Checked : Qt::Unchecked);
    m_lrMult->setMinimum(sameMult ? 0 : -1);
    m_lrMult->setSpecialValueText(sameMult ? QString() : tr("mixed"));
    m_lrMult->setValue(sameMult ? firstMult : -1);
  }
  for (const ParamSpec& spec : sharedParams()) {
    QWidget* editor = m_editors.value(qs(spec.name));
    if (!editor) continue;
    const std::optional<Json> value = commonValue(spec);
    const QSignalBlocker block(editor);
    if (auto* check = qobject_cast<QCheckBox*>(editor)) {
      check->setTristate(!value);
      check->setCheckState(!value ? Qt::PartiallyChecked : value->is_boolean() && value->get<bool>() ? Qt::Checked : Qt::Unchecked);
    } else if (auto* combo = qobject_cast<QComboBox*>(editor)) {
      if (value) combo->setCurrentText(paramText(*value));
      else combo->setCurrentIndex(-1);
    } else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
      line->setText(value ? paramText(*value) : QString());
      line->setPlaceholderText(value ? QString() : tr("mixed"));
      line->setModified(false);
    }
  }
}

void PropertyPanel::commitSeveral(const QString& param, const Json& value) {
  // Every block's new parameters are checked first: one refusal changes none of them.
  std::vector<std::pair<const NodeSpec*, Json>> changes;
  for (const QString& id : m_targets) {
    const NodeSpec* node = m_doc->node(ss(id));
    const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
    if (!schema) continue;
    const ParamSpec* spec = schema->findParam(ss(param));
    Json params = node->params.is_object() ? node->params : Json::object();
    if (value.is_null() || (spec && value == spec->defaultValue)) params.erase(ss(param));
    else params[ss(param)] = value;
    if (params == (node->params.is_object() ? node->params : Json::object())) continue;
    try {
      validateParams(*schema, params, "params");
    } catch (const Error& e) {
      std::string message = e.what();
      if (const auto colon = message.find(": "); message.rfind("params.", 0) == 0 && colon != std::string::npos)
        message = message.substr(colon + 2);
      setFieldError(param, qs(problemSentence(node->id, "field '" + fieldLabel(ss(param)) + "': " + message)) +
                               tr(" (no block was changed)"));
      return;
    }
    changes.emplace_back(node, std::move(params));
  }
  setFieldError(param, {});
  if (changes.empty()) return syncValues();
  m_undo->beginMacro(tr("Change %1 of %n layer(s)", nullptr, static_cast<int>(changes.size())).arg(qs(fieldLabel(ss(param)))));
  for (auto& [node, params] : changes) m_undo->push(new SetParamsCommand(m_doc, node->id, node->params, params));
  m_undo->endMacro();
}

}  // namespace netsmith::gui
