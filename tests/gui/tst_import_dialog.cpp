// File ▸ Import… (issue 27 item 2): the loss is a choice. For a model that ends in a Gemm of 5
// raw scores (tests/support/onnx_import_heads.py heads) the dialog offers every loss layer in a
// combo box with SoftmaxCrossEntropy preselected and the engine's sentence saying why (the model
// ends in Affine 'fc' giving 5 raw scores per sample); a Gemm of one output preselects
// SquaredError. Through a real MainWindow's File ▸ Import… (its file dialogs and the loss dialog
// answered as a person would) the opened project ends in the preselected loss, or in the one the
// person picked instead.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <functional>

#include "gui/app/import_loss_dialog.h"
#include "gui/app/import_model.h"
#include "gui/app/main_window.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestImportDialog : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;

  QString model(const char* name) const { return m_dir.filePath(QString(name) + ".onnx"); }

  // File ▸ Import… in `window`: picks `modelFile`, checks the loss dialog's preselection, picks
  // `loss` there, saves as `project`. Returns the loss the dialog had preselected.
  QString importThroughMainWindow(MainWindow& window, const QString& modelFile, const QString& loss, const QString& project) {
    QString preselected, said;
    int step = 0;
    std::function<void()> answer = [&] {
      QWidget* modal = QApplication::activeModalWidget();
      if (auto* files = qobject_cast<QFileDialog*>(modal)) {
        // Typed as a person would (selectFile of a file not there yet keeps the suggested name).
        auto* name = files->findChild<QLineEdit*>("fileNameEdit");
        if (!name) return static_cast<QDialog*>(files)->reject();  // not Qt's own dialog: fails on the step count
        name->setText(step == 0 ? modelFile : project);
        ++step;
        static_cast<QDialog*>(files)->accept();  // QFileDialog::accept is protected; QDialog::accept is its public face
      } else if (auto* losses = qobject_cast<ImportLossDialog*>(modal)) {
        preselected = losses->loss();
        losses->setLoss(loss);
        ++step;
        losses->accept();
      } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
        said = box->text();  // the import refused: said in the result, and the flow ends
        box->done(QMessageBox::Ok);
        return;
      }
      if (step < 3) QTimer::singleShot(20, answer);
    };
    QTimer::singleShot(20, answer);
    window.findChild<QAction*>("importModel")->trigger();
    if (!said.isEmpty()) return "(a message: " + said + ")";
    return step == 3 ? preselected : QString("(the dialogs were not all shown: %1 answered)").arg(step);
  }

  static QString lossOf(MainWindow& window) {
    for (const NodeSpec& n : window.document()->toProject().network.nodes)
      if (OpRegistry::builtin().find(n.type)->isLoss()) return QString::fromStdString(n.type);
    return {};
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    QVERIFY(m_dir.isValid());
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("/usr/bin/python3", {NETSMITH_SOURCE_DIR "/tests/support/onnx_import_heads.py", "heads", m_dir.path()});
    QVERIFY(p.waitForFinished(120000));
    const QString said = QString::fromUtf8(p.readAll());
    if (p.exitCode() == 77) QSKIP(qPrintable(said));
    QVERIFY2(p.exitCode() == 0, qPrintable(said));
  }

  void dialogPreselectsTheRecognisedLoss() {
    const ImportPreview preview = previewImport(model("gemm_classifier"));
    QVERIFY2(preview.ok, qPrintable(preview.error));
    QCOMPARE(preview.loss, QString("SoftmaxCrossEntropy"));
    ImportLossDialog dialog(model("gemm_classifier"), preview.loss, preview.lossReason);
    auto* box = dialog.findChild<QComboBox*>("loss");
    QVERIFY(box);
    QCOMPARE(box->currentText(), QString("SoftmaxCrossEntropy"));
    for (const char* other : {"SquaredError", "SigmoidCrossEntropy", "HuberLoss"}) QVERIFY2(box->findText(other) >= 0, other);
    QVERIFY(box->findText("Affine") < 0);  // losses only
    const QString why = dialog.findChild<QLabel*>("lossReason")->text();
    QVERIFY2(why.contains("Affine 'fc'") && why.contains("5 raw scores per sample, as a classifier does"), qPrintable(why));
    dialog.setLoss("SquaredError");
    QCOMPARE(dialog.loss(), QString("SquaredError"));
    QVERIFY2(dialog.findChild<QLabel*>("lossDescription")->text().contains("in place of the recognised SoftmaxCrossEntropy"),
             qPrintable(dialog.findChild<QLabel*>("lossDescription")->text()));

    const ImportPreview regression = previewImport(model("gemm_regression"));
    QVERIFY2(regression.ok, qPrintable(regression.error));
    ImportLossDialog second(model("gemm_regression"), regression.loss, regression.lossReason);
    QCOMPARE(second.findChild<QComboBox*>("loss")->currentText(), QString("SquaredError"));
    QVERIFY2(second.findChild<QLabel*>("lossReason")->text().contains("one value per sample"),
             qPrintable(second.findChild<QLabel*>("lossReason")->text()));
  }

  void mainWindowImportsWithTheChosenLoss() {
    MainWindow window;
    const QString first = m_dir.filePath("chosen/classifier.nsproj");
    QDir().mkpath(m_dir.filePath("chosen"));
    QCOMPARE(importThroughMainWindow(window, model("gemm_classifier"), "SoftmaxCrossEntropy", first),
             QString("SoftmaxCrossEntropy"));
    QCOMPARE(window.document()->path(), first);
    QCOMPARE(lossOf(window), QString("SoftmaxCrossEntropy"));

    // The person prefers the raw scores: the project ends in SquaredError.
    const QString second = m_dir.filePath("chosen/raw.nsproj");
    QCOMPARE(importThroughMainWindow(window, model("gemm_classifier"), "SquaredError", second), QString("SoftmaxCrossEntropy"));
    QCOMPARE(window.document()->path(), second);
    QCOMPARE(lossOf(window), QString("SquaredError"));
  }
};

QTEST_MAIN(TestImportDialog)
#include "tst_import_dialog.moc"
