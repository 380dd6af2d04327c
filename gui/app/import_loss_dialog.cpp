#include "gui/app/import_loss_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "engine/op_interface/op_registry.h"

namespace netsmith::gui {

ImportLossDialog::ImportLossDialog(const QString& model, const QString& recognisedLoss, const QString& reason,
                                   QWidget* parent)
    : QDialog(parent), m_recognised(recognisedLoss) {
  setWindowTitle(tr("Import %1").arg(QFileInfo(model).fileName()));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("A Netsmith network ends in a loss layer: choose the one the imported network will be "
                              "trained with."),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  m_loss = new QComboBox(this);
  m_loss->setObjectName(QStringLiteral("loss"));
  for (const OpSchema* s : OpRegistry::builtin().all())
    if (s->isLoss()) m_loss->addItem(QString::fromStdString(s->name), QString::fromStdString(s->name));
  auto* form = new QFormLayout;
  form->addRow(tr("&Loss:"), m_loss);
  layout->addLayout(form);

  // The engine's sentence: "the model ends in Affine 'fc' ... giving 1000 raw scores per sample, ...".
  auto* why = new QLabel(tr("Recognised: %1, because %2.").arg(recognisedLoss, reason), this);
  why->setObjectName(QStringLiteral("lossReason"));
  why->setWordWrap(true);
  why->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(why);
  m_choice = new QLabel(this);
  m_choice->setObjectName(QStringLiteral("lossDescription"));
  m_choice->setWordWrap(true);
  layout->addWidget(m_choice);
  layout->addStretch(1);  // the wrapped sentences keep their height; the room left goes below them

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Choose the project file…"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);

  connect(m_loss, &QComboBox::currentIndexChanged, this, &ImportLossDialog::describeChoice);
  setLoss(recognisedLoss);
  describeChoice();
  setMinimumWidth(520);
}

QString ImportLossDialog::loss() const { return m_loss->currentData().toString(); }

void ImportLossDialog::setLoss(const QString& type) {
  const int at = m_loss->findData(type);
  if (at >= 0) m_loss->setCurrentIndex(at);
}

void ImportLossDialog::describeChoice() {
  const OpSchema* s = OpRegistry::builtin().find(loss().toStdString());
  const QString doc = s ? QString::fromStdString(s->doc) : QString();
  m_choice->setText(loss() == m_recognised ? doc : tr("%1 (in place of the recognised %2.)").arg(doc, m_recognised));
}

}  // namespace netsmith::gui
