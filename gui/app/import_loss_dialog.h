// File ▸ Import…, the step between the model and the project file: the loss the imported network
// will end in, as a choice (every loss layer of the registry) preselected by what the import
// recognised in the model's last layers, with the engine's sentence saying why (Note [Classifier
// output recognised], engine/import/imported_loss.h) and what the selected loss does.
#pragma once

#include <QDialog>

class QComboBox;
class QLabel;

namespace netsmith::gui {

class ImportLossDialog : public QDialog {
  Q_OBJECT
 public:
  // `recognisedLoss` and `reason`: what `netsmith-cli import MODEL --dry-run --json` said (its
  // "loss" and "loss_reason"). The combo box is named "loss", the reason label "lossReason".
  ImportLossDialog(const QString& model, const QString& recognisedLoss, const QString& reason, QWidget* parent = nullptr);

  QString loss() const;  // the loss layer type chosen
  void setLoss(const QString& type);

 private:
  void describeChoice();

  QString m_recognised;
  QComboBox* m_loss;
  QLabel* m_choice;  // what the selected loss does (its registry doc), and whether it is the recognised one
};

}  // namespace netsmith::gui
