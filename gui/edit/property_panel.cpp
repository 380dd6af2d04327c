#include "gui/edit/property_panel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSpinBox>
#include <QUndoStack>
#include <QVBoxLayout>
#include <limits>

#include "engine/core/error.h"
#include "gui/document/graph_commands.h"

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
    if (id == m_id) syncValues();
  });
  connect(doc, &GraphDocument::nodeRenamed, this, [this](const QString& from, const QString& to) {
    if (from != m_id) return;
    m_id = to;
    if (m_idEdit) m_idEdit->setText(to);
    refreshFacts();
  });
  connect(doc, &GraphDocument::nodeRemoved, this, [this](const QString& id) {
    if (id == m_id) showNode({});
  });
  connect(doc, &GraphDocument::modelReset, this, [this] { showNode({}); });
  connect(doc, &GraphDocument::analysisChanged, this, &PropertyPanel::refreshFacts);
  showNode({});
}

QString PropertyPanel::errorText() const { return m_error->text(); }

void PropertyPanel::showNode(const QString& id) {
  m_id = m_doc->node(ss(id)) ? id : QString();
  rebuild();
}

Json PropertyPanel::currentValue(const ParamSpec& spec) const {
  const NodeSpec* node = m_doc->node(ss(m_id));
  if (node && node->params.is_object() && node->params.contains(spec.name)) return node->params.at(spec.name);
  return spec.defaultValue;
}

void PropertyPanel::rebuild() {
  // Old editors may be the sender of the signal that led here: delete them later.
  m_editors.clear();
  m_idEdit = nullptr;
  m_error->clear();
  m_form->hide();
  m_form->deleteLater();
  m_form = new QWidget(this);
  m_formLayout = new QFormLayout(m_form);
  m_formLayout->setContentsMargins(0, 4, 0, 4);
  m_formLayout->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  static_cast<QVBoxLayout*>(layout())->insertWidget(2, m_form);

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
  m_formLayout->addRow(tr("name"), m_idEdit);

  if (schema) {
    for (const ParamSpec& spec : schema->params) {
      const QString name = qs(spec.name);
      QString tip = QStringLiteral("<b>%1</b> (%2)<br>%3").arg(name, QString::fromLatin1(paramTypeName(spec.type)),
                                                               qs(spec.help).toHtmlEscaped());
      tip += spec.defaultValue.is_null() ? tr("<br>required") : tr("<br>default: %1").arg(paramText(spec.defaultValue));
      if (spec.min || spec.max)
        tip += tr("<br>range: %1 … %2")
                   .arg(spec.min ? QLocale::c().toString(*spec.min) : QStringLiteral("-∞"),
                        spec.max ? QLocale::c().toString(*spec.max) : QStringLiteral("∞"));
      QWidget* editor = nullptr;
      switch (spec.type) {
        case ParamType::Int: {
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
          connect(box, &QCheckBox::toggled, this, [this, name](bool v) { commit(name, Json(v)); });
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
      auto* label = new QLabel(name, m_form);
      label->setToolTip(tip);
      m_formLayout->addRow(label, editor);
      m_editors.insert(name, editor);
    }
  }
  syncValues();
  refreshFacts();
}

void PropertyPanel::syncValues() {
  const NodeSpec* node = m_doc->node(ss(m_id));
  const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
  if (!schema) return;
  for (const ParamSpec& spec : schema->params) {
    QWidget* editor = m_editors.value(qs(spec.name));
    if (!editor) continue;
    const Json value = currentValue(spec);
    const QSignalBlocker block(editor);
    if (auto* box = qobject_cast<QSpinBox*>(editor)) box->setValue(value.is_number() ? value.get<int>() : 0);
    else if (auto* check = qobject_cast<QCheckBox*>(editor)) check->setChecked(value.is_boolean() && value.get<bool>());
    else if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(paramText(value));
    else if (auto* line = qobject_cast<QLineEdit*>(editor)) {
      line->setText(paramText(value));
      line->setModified(false);
      line->setStyleSheet({});
    }
  }
}

void PropertyPanel::refreshFacts() {
  const auto& analysis = m_doc->analysis();
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

void PropertyPanel::commitText(const QString& param, ParamType type, const QString& text) {
  const QString t = text.trimmed();
  if (t.isEmpty()) return commit(param, Json());  // empty: back to the default
  if (type == ParamType::Ints) {
    const auto list = parseIntList(t);
    if (!list) {
      m_error->setText(tr("%1: expected integers separated by commas, e.g. 3,3").arg(param));
      if (QWidget* e = m_editors.value(param)) e->setStyleSheet(QStringLiteral("border:2px solid #c0392b"));
      return;
    }
    return commit(param, *list);
  }
  if (type == ParamType::Float) {
    bool ok = false;
    const double v = QLocale::c().toDouble(t, &ok);
    if (!ok) {
      m_error->setText(tr("%1: expected a number, e.g. 0.5 or 1e-3").arg(param));
      if (QWidget* e = m_editors.value(param)) e->setStyleSheet(QStringLiteral("border:2px solid #c0392b"));
      return;
    }
    return commit(param, Json(v));
  }
  commit(param, Json(ss(t)));
}

void PropertyPanel::commit(const QString& param, const Json& value) {
  const NodeSpec* node = m_doc->node(ss(m_id));
  const OpSchema* schema = node ? OpRegistry::builtin().find(node->type) : nullptr;
  if (!schema) return;
  const ParamSpec* spec = schema->findParam(ss(param));
  Json params = node->params.is_object() ? node->params : Json::object();
  // A value equal to the default is left out, so the project file holds only what was chosen.
  if (value.is_null() || (spec && value == spec->defaultValue)) params.erase(ss(param));
  else params[ss(param)] = value;
  if (params == (node->params.is_object() ? node->params : Json::object())) {
    m_error->clear();
    syncValues();
    return;
  }
  try {
    validateParams(*schema, params, "params");
  } catch (const Error& e) {
    m_error->setText(qs(e.what()));
    if (QWidget* editor = m_editors.value(param)) editor->setStyleSheet(QStringLiteral("border:2px solid #c0392b"));
    return;
  }
  m_error->clear();
  if (QWidget* editor = m_editors.value(param)) editor->setStyleSheet({});
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
    m_error->setText(refusal);
    m_idEdit->setText(m_id);
    return;
  }
  m_error->clear();
  m_undo->push(new RenameNodeCommand(m_doc, ss(m_id), ss(to)));
}

}  // namespace netsmith::gui
