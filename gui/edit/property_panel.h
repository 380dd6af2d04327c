// PropertyPanel: the selected block's parameters, with one typed editor per parameter of its
// registry schema (spin box for Int, number field for Float, check box for Bool, "5,5" field for
// Ints, list for String choices), labelled in words ("With bias"), its JSON name, default and help
// as tooltip. A value is checked with the registry's own validateParams() before it is written; a
// refused value changes nothing and shows the validator's sentence under its own field, worded for
// a person ("Block 'conv1', field 'Kernel': expected 2 integers"), as long as the field keeps the
// refused text; several fields can show their errors at once. Edits are undo commands; Ctrl+Z and
// Ctrl+Shift+Z in a field undo the field's own typing first, then the document's edits.
//
// Note [Editing several blocks]
// With several blocks selected the panel edits them together: Frozen and Learning-rate
// multiplier (on those of them that have parameters), and each parameter that every one of them
// has with the same type and choices. A field shows the blocks' value when they agree and
// "mixed" (an empty field, a partly checked box) when not. A change is checked against every
// block first (one refusal changes none, and says which block refused) and is one undo step.
// The block context menu's Freeze / Unfreeze do the same for Frozen (canvas_menus.h).
#pragma once

#include <QHash>
#include <QStringList>
#include <optional>
#include <vector>
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
  // Note [Editing several blocks]: with several blocks, the fields they share (Frozen, lr_mult,
  // a parameter every one of them has) edit all of them at once, one undo step per change.
  void showNodes(const QStringList& ids);
  QString nodeId() const { return m_id; }  // empty unless exactly one block is shown
  QStringList nodeIds() const { return m_targets; }

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
  void rebuildSeveral();
  void addParamField(const ParamSpec& spec);
  void syncValues();  // editors show the document's values (after undo, say)
  void syncSeveral();
  void commitSeveral(const QString& param, const Json& value);
  // The value every shown block has (nullopt: they differ), and the parameters they all have.
  std::optional<Json> commonValue(const ParamSpec& spec) const;
  std::vector<ParamSpec> sharedParams() const;
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
  QStringList m_targets;  // the blocks shown: m_id alone, or several
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
