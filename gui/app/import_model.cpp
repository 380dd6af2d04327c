#include "gui/app/import_model.h"

#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>

#include "gui/run/cli_command.h"

namespace netsmith::gui {

QString importModelDialog(QWidget* parent, const QString& startFolder) {
  const QString model = QFileDialog::getOpenFileName(parent, QObject::tr("Import model"), startFolder,
                                                     QObject::tr("Models (*.onnx *.nntxt *.nnp);;ONNX models (*.onnx);;"
                                                                 "Neural Network Console / nnabla (*.nntxt *.nnp);;All files (*)"));
  if (model.isEmpty()) return {};
  const QFileInfo info(model);
  const QString suggested = info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral(".nsproj"));
  const QString project = QFileDialog::getSaveFileName(parent, QObject::tr("Save the imported project as"), suggested,
                                                       QObject::tr("Netsmith projects (*.nsproj)"));
  if (project.isEmpty()) return {};
  // The dialog has already asked before replacing an existing file.
  QProcess cli;
  cli.setProcessChannelMode(QProcess::SeparateChannels);
  QApplication::setOverrideCursor(Qt::WaitCursor);
  cli.start(engineProgram(), {QStringLiteral("import"), model, QStringLiteral("--output"), project, QStringLiteral("--force")});
  const bool finished = cli.waitForStarted(10000) && cli.waitForFinished(600000);
  QApplication::restoreOverrideCursor();
  if (!finished || cli.exitStatus() != QProcess::NormalExit || cli.exitCode() != 0) {
    const QString why = QString::fromUtf8(cli.readAllStandardError()).trimmed();
    QMessageBox::critical(parent, QObject::tr("Cannot import the model"),
                          why.isEmpty() ? QObject::tr("netsmith-cli import did not finish: %1").arg(cli.errorString()) : why);
    return {};
  }
  // A Neural Network Console file's settings that have no Netsmith counterpart are listed by the
  // import (Note [NNabla settings]): show them, as the terminal would.
  const QString said = QString::fromUtf8(cli.readAllStandardOutput());
  const qsizetype notMapped = said.indexOf(QStringLiteral("Not mapped"));
  if (notMapped >= 0)
    QMessageBox::information(parent, QObject::tr("Imported"),
                             said.mid(notMapped).section(QStringLiteral("\nWrote "), 0, 0).trimmed());
  return project;
}

}  // namespace netsmith::gui
