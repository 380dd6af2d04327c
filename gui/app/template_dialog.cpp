#include "gui/app/template_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "engine/op_interface/op_registry.h"
#include "engine/project/graph.h"
#include "engine/project/network_templates.h"
#include "gui/document/qt_text.h"

namespace netsmith::gui {

namespace {

QString millions(int64_t n) {
  if (n >= 1'000'000'000) return QStringLiteral("%1 G").arg(n / 1e9, 0, 'f', 2);
  if (n >= 1'000'000) return QStringLiteral("%1 M").arg(n / 1e6, 0, 'f', 2);
  return QLocale().toString(static_cast<qlonglong>(n));
}

QSpinBox* spin(QWidget* parent, int min, int max, const QString& name) {
  auto* s = new QSpinBox(parent);
  s->setRange(min, max);
  s->setObjectName(name);
  return s;
}

}  // namespace

TemplateDialog::TemplateDialog(const Shape& inputShape, int64_t classes, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("New from template"));
  m_template = new QComboBox(this);
  m_template->setObjectName(QStringLiteral("template"));
  for (const NetworkTemplate& t : networkTemplates()) m_template->addItem(qs(t.name), qs(t.id));
  m_description = new QLabel(this);
  m_description->setWordWrap(true);
  m_channels = spin(this, 1, 4096, QStringLiteral("channels"));
  m_height = spin(this, 1, 8192, QStringLiteral("height"));
  m_width = spin(this, 1, 8192, QStringLiteral("width"));
  m_classes = spin(this, 2, 100000, QStringLiteral("classes"));
  auto* shapeRow = new QHBoxLayout;
  for (auto [label, box] : {std::pair{tr("channels"), m_channels}, {tr("height"), m_height}, {tr("width"), m_width}}) {
    shapeRow->addWidget(box);
    shapeRow->addWidget(new QLabel(label, this));
  }
  shapeRow->addStretch(1);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("templateSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* note = new QLabel(tr("The new project keeps the current project's dataset, Global Config and Optimizer; "
                             "only the network is replaced. It is not saved until File ▸ Save As."),
                          this);
  note->setWordWrap(true);
  note->setStyleSheet(QStringLiteral("color:#555"));

  auto* form = new QFormLayout;
  form->addRow(tr("Template"), m_template);
  form->addRow(QString(), m_description);
  form->addRow(tr("Input"), shapeRow);
  form->addRow(tr("Classes"), m_classes);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_summary);
  layout->addWidget(note);
  layout->addStretch(1);
  layout->addWidget(m_buttons);

  setInput(inputShape, classes);
  connect(m_template, &QComboBox::currentIndexChanged, this, &TemplateDialog::refresh);
  for (QSpinBox* s : {m_channels, m_height, m_width, m_classes})
    connect(s, &QSpinBox::valueChanged, this, &TemplateDialog::refresh);
  refresh();
  resize(560, sizeHint().height());
}

void TemplateDialog::setTemplate(const QString& id) {
  const int i = m_template->findData(id);
  if (i >= 0) m_template->setCurrentIndex(i);
}

void TemplateDialog::setInput(const Shape& shape, int64_t classes) {
  const bool image = shape.size() == 3;
  m_channels->setValue(image ? static_cast<int>(shape[0]) : 3);
  m_height->setValue(image ? static_cast<int>(shape[1]) : 32);
  m_width->setValue(image ? static_cast<int>(shape[2]) : 32);
  m_classes->setValue(static_cast<int>(std::max<int64_t>(classes, 2)));
  refresh();
}

QString TemplateDialog::templateId() const { return m_template->currentData().toString(); }

Shape TemplateDialog::inputShape() const { return {m_channels->value(), m_height->value(), m_width->value()}; }

NetworkSpec TemplateDialog::network() const {
  return makeTemplateNetwork(templateId().toStdString(), inputShape(), m_classes->value());
}

QString TemplateDialog::summary() const { return m_summary->text(); }

bool TemplateDialog::canAccept() const { return m_buttons->button(QDialogButtonBox::Ok)->isEnabled(); }

void TemplateDialog::refresh() {
  for (const NetworkTemplate& t : networkTemplates())
    if (qs(t.id) == templateId()) m_description->setText(qs(t.description));
  bool ok = false;
  try {
    const Graph g = buildGraph(network(), OpRegistry::builtin());
    m_summary->setText(tr("%1 for %2x%3x%4, %5 classes: %6 layers, %7 parameters, %8 multiply-adds per sample")
                           .arg(m_template->currentText())
                           .arg(m_channels->value())
                           .arg(m_height->value())
                           .arg(m_width->value())
                           .arg(m_classes->value())
                           .arg(g.nodes.size())
                           .arg(millions(g.parameterCount), millions(g.multiplyAdds)));
    m_summary->setStyleSheet(QString());
    ok = true;
  } catch (const std::exception& e) {
    m_summary->setText(qs(e.what()));
    m_summary->setStyleSheet(QStringLiteral("color:#c0392b"));
  }
  m_buttons->button(QDialogButtonBox::Ok)->setEnabled(ok);
}

}  // namespace netsmith::gui
