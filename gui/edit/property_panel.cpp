// PropertyPanel (property_panel.h): the fields of the block or blocks shown, built from their schema,
// and their values, errors and facts kept up to date. Edits are written in property_panel_commit.cpp.
#include "gui/edit/property_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QComboBox>
#include <QFormLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMap>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>
#include <limits>

#include "engine/core/error.h"
#include "gui/widgets/field_cell.h"
#include "gui/document/graph_commands.h"

namespace netsmith::gui {

QString paramText(const Json& value) {
  if (value.is_null()) return {};
  if (value.is_array()) {
    QStringList parts;
    for (const Json& e : value) parts << qs(e.dump());
    return parts.join(QLatin1Char(','));
  }
  if (value.is_string()) return qs(value.get<std::string>());
  return qs(value.dump());
}

PropertyPanel::PropertyPanel(GraphDocument* doc, QUndoStack* undo, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_undo(undo) {
  auto* layout = new QVBoxLayout(this);
  m_title = new QLabel(this);
  m_title->setTextFormat(Qt::RichText);
  m_doc_ = new QLabel(this);
  m_doc_->setWordWrap(true);
  m_doc_->setStyleSheet(QStringLiteral("color:#555"));
  m_facts = new QLabel(this);
  m_facts->setWordWrap(true);
  m_facts->setTextFormat(Qt::RichText);
  m_problems = new QLabel(this);
  m_problems->setWordWrap(true);
  m_problems->setStyleSheet(QStringLiteral("color:#c0392b"));
  m_error = new QLabel(this);
  m_error->setWordWrap(true);
  m_error->setStyleSheet(QStringLiteral("color:#c0392b; font-weight:bold"));
  m_error->setObjectName(QStringLiteral("propertyError"));
  layout->addWidget(m_title);
  layout->addWidget(m_doc_);
  m_form = new QWidget(this);
  m_formLayout = new QFormLayout(m_form);
  m_formLayout->setContentsMargins(0, 4, 0, 4);
  layout->addWidget(m_form);
  layout->addWidget(m_error);
  layout->addWidget(m_facts);
  layout->addWidget(m_problems);
  layout->addStretch(1);
  setMinimumWidth(250);

  connect(doc, &GraphDocument::nodeParamsChanged, this, [this](const QString& id) {
    if (m_targets.contains(id)) syncValues();
  });
  connect(doc, &GraphDocument::nodeRenamed, this, [this](const QString& from, const QString& to) {
    const qsizetype at = m_targets.indexOf(from);
    if (at < 0) return;
    m_targets[at] = to;
    if (from != m_id) return;
    m_id = to;
    if (m_idEdit) m_idEdit->setText(to);
    refreshFacts();
  });
  connect(doc, &GraphDocument::nodeRemoved, this, [this](const QString& id) {
    if (!m_targets.contains(id)) return;
    QStringList rest = m_targets;
    rest.removeAll(id);
    showNodes(rest);
  });
  connect(doc, &GraphDocument::modelReset, this, [this] { showNode({}); });
  connect(doc, &GraphDocument::analysisChanged, this, &PropertyPanel::refreshFacts);
  showNode({});
}

QString PropertyPanel::errorText() const {
  QStringList errors;
  if (!m_error->text().isEmpty()) errors << m_error->text();
  for (const QString& param : m_order)
    if (const QLabel* label = m_fieldErrors.value(param); label && !label->text().isEmpty()) errors << label->text();
  return errors.join(QLatin1Char('\n'));
}

QString PropertyPanel::fieldError(const QString& param) const {
  const QLabel* label = m_fieldErrors.value(param);
  return label ? label->text() : QString();
}

void PropertyPanel::setFieldError(const QString& param, const QString& message) {
  QLabel* label = m_fieldErrors.value(param);
  QWidget* editor = m_editors.value(param);
  if (!label || !editor) {
    m_error->setText(message);
    return;
  }
  label->setText(message);
  label->setVisible(!message.isEmpty());
  editor->setStyleSheet(message.isEmpty() ? QString() : QStringLiteral("border:2px solid #c0392b"));
  if (message.isEmpty()) {
    m_erroredValue.remove(param);
  } else if (const NodeSpec* node = m_doc->node(ss(m_id))) {
    const OpSchema* schema = OpRegistry::builtin().find(node->type);
    const ParamSpec* spec = schema ? schema->findParam(ss(param)) : nullptr;
    m_erroredValue[param] = spec ? currentValue(*spec) : Json();
  }
}

void PropertyPanel::watchKeys(QWidget* editor) {
  editor->installEventFilter(this);
}

bool PropertyPanel::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() != QEvent::ShortcutOverride && event->type() != QEvent::KeyPress)
    return QWidget::eventFilter(watched, event);
  auto* key = static_cast<QKeyEvent*>(event);
  const bool undo = key->matches(QKeySequence::Undo), redo = key->matches(QKeySequence::Redo);
  if (!undo && !redo) return QWidget::eventFilter(watched, event);
  // Typing not yet committed belongs to the field, which undoes it itself; anything else is the
  // document's (a line edit's own history ends where the panel last wrote its text, so without
  // this Ctrl+Z in a field would do nothing).
  auto* line = qobject_cast<QLineEdit*>(watched);
  if (!line) line = static_cast<QWidget*>(watched)->findChild<QLineEdit*>();  // a spin box's
  const bool own = line && line->isModified() && (undo ? line->isUndoAvailable() : line->isRedoAvailable());
  if (own) return QWidget::eventFilter(watched, event);
  event->accept();
  if (event->type() == QEvent::KeyPress) undo ? m_undo->undo() : m_undo->redo();
  return true;
}

void PropertyPanel::showNode(const QString& id) { showNodes(id.isEmpty() ? QStringList() : QStringList{id}); }

void PropertyPanel::showNodes(const QStringList& ids) {
  m_targets.clear();
  for (const QString& id : ids)
    if (m_doc->node(ss(id)) && !m_targets.contains(id)) m_targets << id;
  m_id = m_targets.size() == 1 ? m_targets.front() : QString();
  rebuild();
}

Json PropertyPanel::currentValue(const ParamSpec& spec) const {
  return commonValue(spec).value_or(Json());
}

void PropertyPanel::rebuild() {
  // Old editors may be the sender of the signal that led here: delete them later.
  m_editors.clear();
  m_order.clear();
  m_fieldErrors.clear();
  m_erroredValue.clear();
  m_idEdit = nullptr;
  m_frozen = nullptr;
  m_lrMult = nullptr;
  m_error->clear();
  m_form->hide();
  m_form->deleteLater();
  m_form = new QWidget(this);
  m_formLayout = new QFormLayout(m_form);
  m_formLayout->setContentsMargins(0, 4, 0, 4);
  m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  static_cast<QVBoxLayout*>(layout())->insertWidget(2, m_form);

  if (m_targets.size() > 1) return rebuildSeveral();
  const NodeSpec* node = m_doc->node(ss(m_id));
  if (!node) {
    m_title->setText(tr("<b>No layer selected</b>"));
    m_doc_->setText(tr("Select a block to edit its parameters. Drag layers from the palette onto the canvas; "
                       "drag from a block's blue output port to another block to link them."));
    refreshFacts();
    return;
  }
  const OpSchema* schema = OpRegistry::builtin().find(node->type);
  m_title->setText(QStringLiteral("<b>%1</b>").arg(qs(node->type).toHtmlEscaped()));
  m_doc_->setText(schema ? qs(schema->doc) : tr("'%1' is not a layer type of this version.").arg(qs(node->type)));

  m_idEdit = new QLineEdit(m_id, m_form);
  m_idEdit->setToolTip(tr("The layer's name: unique in the network; links and the project file use it."));
  connect(m_idEdit, &QLineEdit::editingFinished, this, &PropertyPanel::rename);
  watchKeys(m_idEdit);
  m_formLayout->addRow(tr("Name"), m_idEdit);

  if (schema) {
    for (const ParamSpec& spec : schema->params) addParamField(spec);
    if (schema->parameterBlobs) addTrainingFields();
  }
  syncValues();
  refreshFacts();
}

// One parameter's field: its editor and, under it, its own error line. With several blocks
// shown an Int is a text field too (it can be empty: "mixed") and a Bool check box has a third,
// mixed state.
void PropertyPanel::addParamField(const ParamSpec& spec) {
  const bool several = m_targets.size() > 1;
  const QString name = qs(spec.name);
  const QString label = qs(fieldLabel(spec.name));
  QString tip = QStringLiteral("<b>%1</b> (%2, <tt>%3</tt> in the project file)<br>%4")
                    .arg(label, QString::fromLatin1(paramTypeName(spec.type)), name, qs(spec.help).toHtmlEscaped());
  tip += spec.defaultValue.is_null() ? tr("<br>required") : tr("<br>default: %1").arg(paramText(spec.defaultValue));
  if (spec.min || spec.max)
    tip += tr("<br>range: %1 … %2")
               .arg(spec.min ? QLocale::c().toString(*spec.min) : QStringLiteral("-∞"),
                    spec.max ? QLocale::c().toString(*spec.max) : QStringLiteral("∞"));
  QWidget* editor = nullptr;
  switch (spec.type) {
    case ParamType::Int: {
      if (several) {
        auto* line = new QLineEdit(m_form);
        connect(line, &QLineEdit::editingFinished, this, [this, name, line] {
          if (line->isModified()) commitText(name, ParamType::Int, line->text());
          line->setModified(false);
        });
        editor = line;
        break;
      }
      auto* box = new QSpinBox(m_form);
      box->setRange(spec.min ? static_cast<int>(std::max<double>(*spec.min, std::numeric_limits<int>::min()))
                             : std::numeric_limits<int>::min(),
                    spec.max ? static_cast<int>(std::min<double>(*spec.max, std::numeric_limits<int>::max()))
                             : std::numeric_limits<int>::max());
      box->setKeyboardTracking(false);  // one edit when the user is done typing, not per digit
      connect(box, &QSpinBox::valueChanged, this, [this, name](int v) { commit(name, Json(v)); });
      editor = box;
      break;
    }
    case ParamType::Bool: {
      auto* box = new QCheckBox(m_form);
      // A mixed box (several blocks) becomes a plain one once changed; syncValues sets values
      // with signals blocked, so only a person's change writes.
      connect(box, &QCheckBox::toggled, this, [this, name, box](bool v) {
        box->setTristate(false);
        commit(name, Json(v));
      });
      editor = box;
      break;
    }
    case ParamType::String:
      if (!spec.choices.empty()) {
        auto* box = new QComboBox(m_form);
        for (const auto& c : spec.choices) box->addItem(qs(c));
        connect(box, &QComboBox::currentTextChanged, this, [this, name](const QString& v) { commit(name, Json(ss(v))); });
        editor = box;
        break;
      }
      [[fallthrough]];
    case ParamType::Float:
    case ParamType::Ints: {
      auto* line = new QLineEdit(m_form);
      if (spec.type == ParamType::Ints) line->setPlaceholderText(spec.length > 0 ? tr("%n integer(s), e.g. 3,3", nullptr, spec.length) : tr("integers, e.g. 10"));
      const ParamType type = spec.type;
      connect(line, &QLineEdit::editingFinished, this, [this, name, type, line] {
        if (line->isModified()) commitText(name, type, line->text());
        line->setModified(false);
      });
      editor = line;
      break;
    }
  }
  editor->setToolTip(tip);
  editor->setObjectName(QStringLiteral("param_") + name);
  watchKeys(editor);
  // The field: its editor, and under it its own error line (hidden while there is none).
  auto* field = new QWidget(m_form);
  auto* fieldLayout = new QVBoxLayout(field);
  fieldLayout->setContentsMargins(0, 0, 0, 0);
  fieldLayout->setSpacing(2);
  editor->setParent(field);
  fieldLayout->addWidget(editor);
  auto* error = new FieldErrorLabel(field);  // as tall as its sentence at the field's width
  error->setObjectName(QStringLiteral("error_") + name);
  error->hide();
  fieldLayout->addWidget(error);
  auto* labelWidget = new QLabel(label, m_form);
  labelWidget->setToolTip(tip);
  labelWidget->setBuddy(editor);
  m_formLayout->addRow(labelWidget, field);
  m_editors.insert(name, editor);
  m_fieldErrors.insert(name, error);
  m_order << name;
}

// Note [Frozen layers]: two fields under the layer's own parameters.
void PropertyPanel::addTrainingFields() {
  m_frozen = new QCheckBox(m_form);
  m_frozen->setObjectName(QStringLiteral("frozen"));
  m_frozen->setToolTip(tr("<b>Frozen</b> (<tt>frozen</tt> in the project file)<br>The layer's parameters get no "
                          "gradients and no optimizer state and stay as the initial parameters give them (transfer "
                          "learning); a BatchNormalization uses its running statistics and does not update them."));
  connect(m_frozen, &QCheckBox::toggled, this, [this](bool on) {
    m_frozen->setTristate(false);
    if (m_targets.size() > 1) {
      const int n = static_cast<int>(trainableBlocks(*m_doc, m_targets).size());
      pushTrainingEdit(m_undo, m_doc, m_targets, on, std::nullopt,
                       on ? tr("Freeze %n layer(s)", nullptr, n) : tr("Unfreeze %n layer(s)", nullptr, n));
    } else
      commitTraining(on, m_lrMult->value());
  });
  watchKeys(m_frozen);
  m_formLayout->addRow(tr("Frozen"), m_frozen);
  m_lrMult = new QDoubleSpinBox(m_form);
  m_lrMult->setObjectName(QStringLiteral("lr_mult"));
  m_lrMult->setRange(0, 1000);
  m_lrMult->setDecimals(3);
  m_lrMult->setSingleStep(0.1);
  m_lrMult->setKeyboardTracking(false);
  m_lrMult->setToolTip(tr("<b>Learning-rate multiplier</b> (<tt>lr_mult</tt> in the project file)<br>The optimizer "
                          "updates this layer's parameters with the learning rate × this. 1: as the others; 0: not "
                          "updated."));
  connect(m_lrMult, &QDoubleSpinBox::valueChanged, this, [this](double v) {
    if (m_targets.size() <= 1) return commitTraining(m_frozen->isChecked(), v);
    if (v < 0) return;  // "mixed", below the range a value can take
    m_lrMult->setSpecialValueText({});
    m_lrMult->setMinimum(0);
    pushTrainingEdit(m_undo, m_doc, m_targets, std::nullopt, v, tr("Set the learning-rate multiplier of %n layer(s)", nullptr,
                                                                    static_cast<int>(trainableBlocks(*m_doc, m_targets).size())));
  });
  watchKeys(m_lrMult);
  m_formLayout->addRow(tr("Learning-rate multiplier"), m_lrMult);
}

void PropertyPanel::syncValues() {
  if (m_targets.size() > 1) return syncSeveral();
  const NodeSpec* node = m_doc->node(ss(m_id));
  const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
  if (!schema) return;
  if (m_frozen && m_lrMult) {
    const QSignalBlocker blockFrozen(m_frozen), blockMult(m_lrMult);
    m_frozen->setChecked(node->frozen);
    m_lrMult->setValue(node->lrMult);
  }
  for (const ParamSpec& spec : schema->params) {
    QWidget* editor = m_editors.value(qs(spec.name));
    if (!editor) continue;
    const Json value = currentValue(spec);
    // A field showing a refused value keeps it (and its error) while the document's value is the
    // one it had then; an undo that changes the value replaces both.
    if (const auto it = m_erroredValue.constFind(qs(spec.name)); it != m_erroredValue.constEnd()) {
      if (*it == value) continue;
      setFieldError(qs(spec.name), {});
    }
    const QSignalBlocker block(editor);
    if (auto* box = qobject_cast<QSpinBox*>(editor)) box->setValue(value.is_number() ? value.get<int>() : 0);
    else if (auto* check = qobject_cast<QCheckBox*>(editor)) check->setChecked(value.is_boolean() && value.get<bool>());
    else if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(paramText(value));
    else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
      line->setText(paramText(value));
      line->setModified(false);
    }
  }
}

void PropertyPanel::refreshFacts() {
  const auto& analysis = m_doc->analysis();
  if (m_targets.size() > 1) {
    int64_t parameters = 0;
    for (const QString& id : m_targets)
      if (const auto found = analysis.nodes.find(ss(id)); found != analysis.nodes.end()) parameters += found->second.parameterCount;
    m_facts->setText(tr("Selected blocks: %1 parameters").arg(QLocale().toString(static_cast<qlonglong>(parameters))));
    m_problems->clear();
    return;
  }
  const auto it = analysis.nodes.find(ss(m_id));
  if (m_id.isEmpty() || it == analysis.nodes.end()) {
    m_facts->setText(tr("Network: %1 parameters, %2 multiply-adds per sample")
                         .arg(QLocale().toString(static_cast<qlonglong>(analysis.parameterCount)),
                              QLocale().toString(static_cast<qlonglong>(analysis.multiplyAdds))));
    m_problems->clear();
    return;
  }
  const NodeFacts& f = it->second;
  m_facts->setText(tr("Output shape: <b>%1</b><br>Parameters: %2<br>Multiply-adds per sample: %3")
                       .arg(f.outputShape ? qs(shapeToString(*f.outputShape)) : tr("unknown"),
                            QLocale().toString(static_cast<qlonglong>(f.parameterCount)),
                            QLocale().toString(static_cast<qlonglong>(f.multiplyAdds))));
  QStringList problems;
  for (const auto& p : f.problems) problems << qs(p);
  m_problems->setText(problems.join(QLatin1Char('\n')));
}

}  // namespace netsmith::gui
