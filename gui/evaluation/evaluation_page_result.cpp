// EvaluationPage (evaluation_page.h): `netsmith-cli evaluate` run as a child process and its
// result shown (accuracy, confusion matrix, per-class table, samples), and the exports (the
// per-class table as CSV, the ONNX model through `netsmith-cli export`).
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSaveFile>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>

#include "gui/evaluation/confusion_matrix_plot.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/evaluation/inference_tab.h"
#include "gui/evaluation/sample_browser.h"
#include "gui/run/cli_command.h"

namespace netsmith::gui {

namespace {
constexpr int kEvaluateTimeoutMs = 60 * 60 * 1000;  // the training set of a large network on CPU
constexpr int kExportTimeoutMs = 10 * 60 * 1000;

QString resultPercent(double v) { return QLocale().toString(100 * v, 'f', 2) + QLatin1Char('%'); }
QString resultFixed(double v) { return QLocale().toString(v, 'f', 3); }
}  // namespace

// --- evaluate --------------------------------------------------------------------------------------

bool EvaluationPage::evaluate() {
  if (isEvaluating()) return false;
  const QString run = selectedRun();
  if (run.isEmpty()) {
    setStatus(tr("Choose a run to evaluate."), true);
    return false;
  }
  const QStringList args{QStringLiteral("evaluate"), run, QStringLiteral("--dataset"), datasetArgument(),
                         QStringLiteral("--parameters"), m_parameters->currentData().toString(), QStringLiteral("--json")};
  setStatus(tr("Evaluating %1 on the %2 set…").arg(QDir(run).dirName(), m_dataset->currentText()));
  m_query = runCliCommand(this, args, [this](const CliResult& r) {
    m_query = nullptr;
    QString why;
    const auto result = parseEvaluation(r.standardOutput.trimmed(), &why);
    if (r.exitCode == 0 && result) {
      showResult(*result);
      setStatus(tr("Evaluated in %1 s on %2.").arg(QLocale().toString(result->seconds, 'f', 1), result->devices.join(QStringLiteral(", "))));
      emit evaluated(true);
      return;
    }
    // The engine's {"error": ...} says it best; else its standard error.
    if (!r.started || r.standardOutput.trimmed().isEmpty()) why = r.errorText();
    setStatus(tr("Cannot evaluate: %1").arg(why), true);
    updateEnabled();
    emit evaluated(false);
  }, kEvaluateTimeoutMs);
  updateEnabled();
  return true;
}

void EvaluationPage::showResult(const EvaluationResult& r) {
  m_result = r;
  m_stack->setCurrentIndex(1);
  QString params = r.parametersWhich;
  if (r.bestEpoch > 0) params += tr(" (epoch %1)").arg(r.bestEpoch);
  m_summary->setText(tr("<span style='font-size:14pt'>Accuracy <b>%1</b></span> &nbsp; error %2 &nbsp;·&nbsp; %3 of %4 "
                        "samples right &nbsp;·&nbsp; macro F-measure %5 &nbsp;·&nbsp; %6 set, %7 parameters, %8 classes")
                         .arg(resultPercent(r.accuracy), resultPercent(r.error), QLocale().toString(r.correct), QLocale().toString(r.samples),
                              resultFixed(r.macroFMeasure), r.datasetName.toHtmlEscaped(), params.toHtmlEscaped())
                         .arg(r.classes));
  QStringList names;
  for (int c = 0; c < r.confusion.size(); ++c) names << r.className(c);
  m_matrix->setMatrix(r.confusion, names);

  m_perClass->setRowCount(0);
  m_perClass->setRowCount(static_cast<int>(r.perClass.size()) + 1);
  auto set = [this](int row, int col, const QString& text, bool bold = false) {
    auto* item = new QTableWidgetItem(text);
    item->setTextAlignment(col == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
    if (bold) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
    }
    m_perClass->setItem(row, col, item);
  };
  for (int i = 0; i < r.perClass.size(); ++i) {
    const ClassFigures& f = r.perClass[i];
    set(i, 0, f.name.isEmpty() || f.name == QString::number(f.classIndex) ? QString::number(f.classIndex)
                                                                          : QStringLiteral("%1 %2").arg(f.classIndex).arg(f.name));
    set(i, 1, resultFixed(f.precision));
    set(i, 2, resultFixed(f.recall));
    set(i, 3, resultFixed(f.fMeasure));
    set(i, 4, QLocale().toString(f.support));
  }
  const int macro = static_cast<int>(r.perClass.size());
  set(macro, 0, tr("Macro average"), true);
  set(macro, 1, resultFixed(r.macroPrecision), true);
  set(macro, 2, resultFixed(r.macroRecall), true);
  set(macro, 3, resultFixed(r.macroFMeasure), true);
  set(macro, 4, QLocale().toString(r.samples), true);
  m_samples->setResult(r);
  updateEnabled();
}

// --- export ----------------------------------------------------------------------------------------

bool EvaluationPage::exportCsv(const QString& file) {
  if (!m_result) {
    setStatus(tr("Evaluate a run first."), true);
    return false;
  }
  QSaveFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Text) || out.write(perClassCsv(*m_result).toUtf8()) < 0 || !out.commit()) {
    setStatus(tr("Cannot write %1: %2").arg(file, out.errorString()), true);
    return false;
  }
  setStatus(tr("Per-class table written to %1").arg(QDir::toNativeSeparators(file)));
  return true;
}

bool EvaluationPage::exportOnnx(const QString& file) {
  if (m_export || selectedRun().isEmpty()) return false;
  setStatus(tr("Exporting %1 to ONNX…").arg(QDir(selectedRun()).dirName()));
  m_export = runCliCommand(this, {QStringLiteral("export"), selectedRun(), QStringLiteral("--onnx"), file},
                           [this, file](const CliResult& r) {
                             m_export = nullptr;
                             updateEnabled();
                             if (r.exitCode == 0 && QFileInfo::exists(file)) {
                               const QString message = tr("ONNX model written to %1").arg(QDir::toNativeSeparators(file));
                               setStatus(message);
                               emit exported(true, message);
                               return;
                             }
                             const QString why = r.errorText();
                             setStatus(tr("Cannot export: %1").arg(why), true);
                             emit exported(false, why);
                           },
                           kExportTimeoutMs);
  updateEnabled();
  return true;
}

}  // namespace netsmith::gui
