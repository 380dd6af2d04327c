// PropertyPanel: the selected block's parameters, with one typed editor per parameter of its
// registry schema (spin box for Int, number field for Float, check box for Bool, "5,5" field for
// Ints, list for String choices), its default and help as tooltip. A value is checked with the
// registry's own validateParams() before it is written; a refused value shows the validator's
// sentence and changes nothing. Edits are undo commands.
#pragma once

#include <QHash>
#include <QWidget>

#include "gui/document/graph_document.h"

class QFormLayout;
class QLabel;
class QLineEdit;
class QUndoStack;

namespace netsmith::gui {

class PropertyPanel : public QWidget {
  Q_OBJECT
 public:
  PropertyPanel(GraphDocument* doc, QUndoStack* undo, QWidget* parent = nullptr);
  // Shows the block `id`; empty: none (a hint and the network totals).
  void showNode(const QString& id);
  QString nodeId() const { return m_id; }

  // For tests and the page: the editor of `param`, and the last refusal shown (empty: none).
  QWidget* editorFor(const QString& param) const { return m_editors.value(param); }
  QLineEdit* idEditor() const { return m_idEdit; }
  QString errorText() const;

 private:
  void rebuild();
  void syncValues();  // editors show the document's values (after undo, say)
  void refreshFacts();
  // Writes `value` for `param` (null: back to its default) if the validator accepts it.
  void commit(const QString& param, const Json& value);
  void commitText(const QString& param, ParamType type, const QString& text);
  void rename();
  Json currentValue(const ParamSpec& spec) const;

  GraphDocument* m_doc;
  QUndoStack* m_undo;
  QString m_id;
  QWidget* m_form = nullptr;
  QFormLayout* m_formLayout = nullptr;
  QLabel* m_title = nullptr;
  QLabel* m_doc_ = nullptr;
  QLabel* m_facts = nullptr;
  QLabel* m_problems = nullptr;
  QLabel* m_error = nullptr;
  QLineEdit* m_idEdit = nullptr;
  QHash<QString, QWidget*> m_editors;
};

// "5,5" -> [5,5]; nothing when the text is not a comma-separated list of integers.
std::optional<Json> parseIntList(const QString& text);
// Text for an editor: [5,5] -> "5,5", 0.001 -> "0.001".
QString paramText(const Json& value);

}  // namespace netsmith::gui
