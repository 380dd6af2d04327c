// PropertyPanel (property_panel.h): a field's edit checked and written: typed text parsed, the
// value checked with the registry's own validateParams(), a refusal shown under its field in words,
// an accepted value (or a new name, or Frozen and the learning-rate multiplier) pushed as one undo
// command.
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QUndoStack>

#include "engine/core/error.h"
#include "gui/document/graph_commands.h"
#include "gui/edit/property_panel.h"

namespace netsmith::gui {

std::optional<Json> parseIntList(const QString& text) {
  Json list = Json::array();
  for (const QString& part : text.split(QLatin1Char(','), Qt::KeepEmptyParts)) {
    bool ok = false;
    const qlonglong v = part.trimmed().toLongLong(&ok);
    if (!ok) return std::nullopt;
    list.push_back(v);
  }
  return list;
}

void PropertyPanel::commitTraining(bool frozen, double lrMult) {
  const NodeSpec* node = m_doc->node(ss(m_id));
  if (!node || (node->frozen == frozen && node->lrMult == lrMult)) return;
  m_undo->push(new SetNodeTrainingCommand(m_doc, node->id, {node->frozen, node->lrMult}, {frozen, lrMult}));
}

void PropertyPanel::commitText(const QString& param, ParamType type, const QString& text) {
  const QString t = text.trimmed();
  if (t.isEmpty()) return commit(param, Json());  // empty: back to the default
  if (type == ParamType::Ints) {
    const auto list = parseIntList(t);
    if (!list) {
      setFieldError(param, qs(problemSentence(ss(m_id), "field '" + fieldLabel(ss(param)) + "': ")) +
                               tr("expected integers separated by commas, e.g. 3,3"));
      return;
    }
    return commit(param, *list);
  }
  if (type == ParamType::Int) {  // several blocks' integer field (one block's is a spin box)
    bool ok = false;
    const qlonglong v = t.toLongLong(&ok);
    if (!ok) {
      setFieldError(param, tr("Field '%1': expected a whole number, e.g. 3").arg(qs(fieldLabel(ss(param)))));
      return;
    }
    return commit(param, Json(v));
  }
  if (type == ParamType::Float) {
    bool ok = false;
    const double v = QLocale::c().toDouble(t, &ok);
    if (!ok) {
      setFieldError(param, qs(problemSentence(ss(m_id), "field '" + fieldLabel(ss(param)) + "': ")) +
                               tr("expected a number, e.g. 0.5 or 1e-3"));
      return;
    }
    return commit(param, Json(v));
  }
  commit(param, Json(ss(t)));
}

void PropertyPanel::commit(const QString& param, const Json& value) {
  if (m_targets.size() > 1) return commitSeveral(param, value);
  const NodeSpec* node = m_doc->node(ss(m_id));
  const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
  if (!schema) return;
  const ParamSpec* spec = schema->findParam(ss(param));
  Json params = node->params.is_object() ? node->params : Json::object();
  // A value equal to the default is left out, so the project file holds only what was chosen.
  if (value.is_null() || (spec && value == spec->defaultValue)) params.erase(ss(param));
  else params[ss(param)] = value;
  if (params == (node->params.is_object() ? node->params : Json::object())) {
    setFieldError(param, {});
    syncValues();
    return;
  }
  try {
    validateParams(*schema, params, "params");
  } catch (const Error& e) {
    // "params.kernel: expected 2 integers, got [3]": the field it names, in words.
    std::string message = e.what();
    QString field = param;
    if (message.rfind("params.", 0) == 0) {
      const auto colon = message.find(": ");
      const std::string named = message.substr(7, colon == std::string::npos ? std::string::npos : colon - 7);
      if (m_editors.contains(qs(named))) field = qs(named);
      if (colon != std::string::npos) message = message.substr(colon + 2);
    }
    setFieldError(field, qs(problemSentence(node->id, "field '" + fieldLabel(ss(field)) + "': " + message)));
    return;
  }
  setFieldError(param, {});
  m_undo->push(new SetParamsCommand(m_doc, node->id, node->params, params));
}

void PropertyPanel::rename() {
  if (!m_idEdit) return;
  const QString to = m_idEdit->text().trimmed();
  if (to == m_id) return;
  QString refusal;
  if (to.isEmpty()) refusal = tr("a layer needs a name");
  else if (m_doc->node(ss(to))) refusal = tr("the name '%1' is already used by another layer").arg(to);
  if (!refusal.isEmpty()) {
    m_error->setText(qs(problemSentence(ss(m_id), "field 'Name': ")) + refusal);
    m_idEdit->setText(m_id);
    return;
  }
  m_error->clear();
  m_undo->push(new RenameNodeCommand(m_doc, ss(m_id), ss(to)));
}

}  // namespace netsmith::gui
