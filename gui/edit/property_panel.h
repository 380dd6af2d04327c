// PropertyPanel: the selected block's parameters, with one typed editor per parameter of its
// registry schema (spin box for Int, number field for Float, check box for Bool, "5,5" field for
// Ints, list for String choices), labelled in words ("With bias"), its JSON name, default and help
// as tooltip. A value is checked with the registry's own validateParams() before it is written; a
// refused value changes nothing and shows the validator's sentence under its own field, worded for
// a person ("Block 'conv1', field 'Kernel': expected 2 integers"), as long as the field keeps the
// refused text; several fields can show their errors at once. Edits are undo commands; Ctrl+Z and
// Ctrl+Shift+Z in a field undo the field's own typing first, then the document's edits.
#pragma once

#include <QHash>
#include <QWidget>

#include "gui/document/graph_document.h"

class QCheckBox;
class QDoubleSpinBox;
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
  // Note [Frozen layers]: "Frozen" and "Learning-rate multiplier", shown for layers with
  // parameters only (null otherwise).
  QCheckBox* frozenEditor() const { return m_frozen; }
  QDoubleSpinBox* lrMultEditor() const { return m_lrMult; }
  // Every error shown (the name's, then each field's in form order), one a line.
  QString errorText() const;
  QString fieldError(const QString& param) const;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void rebuild();
  void syncValues();  // editors show the document's values (after undo, say)
  void refreshFacts();
  // Writes `value` for `param` (null: back to its default) if the validator accepts it.
  void commit(const QString& param, const Json& value);
  void commitText(const QString& param, ParamType type, const QString& text);
  void rename();
  void addTrainingFields();
  void commitTraining(bool frozen, double lrMult);
  Json currentValue(const ParamSpec& spec) const;
  // Shows `message` under `param`'s field (empty: clears it).
  void setFieldError(const QString& param, const QString& message);
  void watchKeys(QWidget* editor);

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
  QCheckBox* m_frozen = nullptr;
  QDoubleSpinBox* m_lrMult = nullptr;
  QHash<QString, QWidget*> m_editors;
  QStringList m_order;                     // parameters in form order
  QHash<QString, QLabel*> m_fieldErrors;   // under each field
  QHash<QString, Json> m_erroredValue;     // the document's value when the field's error was shown
};

// "5,5" -> [5,5]; nothing when the text is not a comma-separated list of integers.
std::optional<Json> parseIntList(const QString& text);
// Text for an editor: [5,5] -> "5,5", 0.001 -> "0.001".
QString paramText(const Json& value);

}  // namespace netsmith::gui
