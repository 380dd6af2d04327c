#include "gui/app/import_model.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QProcess>

#include "gui/app/import_loss_dialog.h"
#include "gui/run/cli_command.h"

namespace netsmith::gui {
namespace {

struct Finished {
  bool ok = false;  // ran and exited with 0
  QByteArray out;
  QString why;  // the engine's stderr, or why it did not finish
};

// `netsmith-cli ARGS`, waited for: a model of a few hundred MB takes seconds to read.
Finished runEngine(const QStringList& arguments) {
  QProcess cli;
  cli.setProcessChannelMode(QProcess::SeparateChannels);
  QApplication::setOverrideCursor(Qt::WaitCursor);
  cli.start(engineProgram(), arguments);
  const bool finished = cli.waitForStarted(10000) && cli.waitForFinished(600000);
  QApplication::restoreOverrideCursor();
  Finished f;
  f.ok = finished && cli.exitStatus() == QProcess::NormalExit && cli.exitCode() == 0;
  f.out = cli.readAllStandardOutput();
  f.why = QString::fromUtf8(cli.readAllStandardError()).trimmed();
  if (!f.ok && f.why.isEmpty()) f.why = QObject::tr("netsmith-cli import did not finish: %1").arg(cli.errorString());
  return f;
}

}  // namespace

ImportPreview previewImport(const QString& model) {
  const Finished f = runEngine({QStringLiteral("import"), model, QStringLiteral("--dry-run"), QStringLiteral("--json")});
  ImportPreview p;
  if (!f.ok) {
    p.error = f.why;
    return p;
  }
  const QJsonObject summary = QJsonDocument::fromJson(f.out).object();
  p.loss = summary.value(QStringLiteral("loss")).toString();
  p.lossReason = summary.value(QStringLiteral("loss_reason")).toString();
  p.ok = !p.loss.isEmpty();
  if (!p.ok) p.error = QObject::tr("netsmith-cli import --dry-run printed no loss: %1").arg(QString::fromUtf8(f.out.left(400)));
  return p;
}

QString runImport(QWidget* parent, const QString& model, const QString& project, const QString& loss) {
  // The save dialog has already asked before replacing an existing file.
  QStringList arguments{QStringLiteral("import"), model, QStringLiteral("--output"), project, QStringLiteral("--force")};
  if (!loss.isEmpty()) arguments << QStringLiteral("--loss") << loss;
  const Finished f = runEngine(arguments);
  if (!f.ok) {
    QMessageBox::critical(parent, QObject::tr("Cannot import the model"), f.why);
    return {};
  }
  // A Neural Network Console file's settings that have no Netsmith counterpart are listed by the
  // import (Note [NNabla settings]): show them, as the terminal would.
  const QString said = QString::fromUtf8(f.out);
  const qsizetype notMapped = said.indexOf(QStringLiteral("Not mapped"));
  if (notMapped >= 0)
    QMessageBox::information(parent, QObject::tr("Imported"),
                             said.mid(notMapped).section(QStringLiteral("\nWrote "), 0, 0).trimmed());
  return project;
}

QString importModelDialog(QWidget* parent, const QString& startFolder) {
  const QString model = QFileDialog::getOpenFileName(parent, QObject::tr("Import model"), startFolder,
                                                     QObject::tr("Models (*.onnx *.nntxt *.nnp);;ONNX models (*.onnx);;"
                                                                 "Neural Network Console / nnabla (*.nntxt *.nnp);;All files (*)"));
  if (model.isEmpty()) return {};
  // The model is read before anything else is asked: one it cannot import is said at once.
  const ImportPreview preview = previewImport(model);
  if (!preview.ok) {
    QMessageBox::critical(parent, QObject::tr("Cannot import the model"), preview.error);
    return {};
  }
  ImportLossDialog lossDialog(model, preview.loss, preview.lossReason, parent);
  if (lossDialog.exec() != QDialog::Accepted) return {};
  const QFileInfo info(model);
  const QString suggested = info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral(".nsproj"));
  const QString project = QFileDialog::getSaveFileName(parent, QObject::tr("Save the imported project as"), suggested,
                                                       QObject::tr("Netsmith projects (*.nsproj)"));
  if (project.isEmpty()) return {};
  // The recognised loss is what the import chooses by itself (a file's own loss keeps its settings).
  return runImport(parent, model, project, lossDialog.loss() == preview.loss ? QString() : lossDialog.loss());
}

}  // namespace netsmith::gui
