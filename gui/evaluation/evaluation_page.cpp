// EvaluationPage (evaluation_page.h): the layout, the runs, datasets and parameters to choose from.
// Evaluating and exporting: evaluation_page_result.cpp.
#include "gui/evaluation/evaluation_page.h"

#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "gui/evaluation/confusion_matrix_plot.h"
#include "gui/evaluation/inference_tab.h"
#include "gui/evaluation/sample_browser.h"
#include "gui/run/cli_command.h"

namespace netsmith::gui {

namespace {
const QString kCsvChoice = QStringLiteral("\x01csv");

QString runListPercent(double v) { return QLocale().toString(100 * v, 'f', 2) + QLatin1Char('%'); }
}  // namespace

EvaluationPage::EvaluationPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  // --- "train first" ---
  auto* trainFirst = new QLabel(tr("<h3>Train first</h3><p>Evaluation (accuracy, confusion matrix, per-class precision and "
                                   "recall, worst-classified samples) works on a trained run.</p>"
                                   "<p>Train the network on the <b>Training</b> page; its runs are kept in the project's "
                                   "<tt>.runs</tt> folder and appear here.</p>"),
                                this);
  trainFirst->setObjectName(QStringLiteral("trainFirst"));
  trainFirst->setAlignment(Qt::AlignCenter);
  trainFirst->setWordWrap(true);
  auto* otherFromEmpty = new QPushButton(tr("Evaluate another run folder…"), this);
  auto* empty = new QWidget(this);
  auto* emptyLayout = new QVBoxLayout(empty);
  emptyLayout->addStretch(1);
  emptyLayout->addWidget(trainFirst);
  emptyLayout->addWidget(otherFromEmpty, 0, Qt::AlignHCenter);
  emptyLayout->addStretch(2);

  // --- choice of run, dataset, parameters ---
  m_run = new QComboBox(this);
  m_run->setObjectName(QStringLiteral("evaluationRun"));
  m_run->setMinimumContentsLength(34);
  m_run->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_run->setToolTip(tr("A run of this project (newest first) with how it ended"));
  auto* other = new QPushButton(tr("Other run…"), this);
  other->setToolTip(tr("Evaluate a run folder of another project"));
  m_dataset = new QComboBox(this);
  m_dataset->setObjectName(QStringLiteral("evaluationDataset"));
  m_dataset->addItem(tr("validation"), QStringLiteral("validation"));
  m_dataset->addItem(tr("training"), QStringLiteral("training"));
  m_dataset->addItem(tr("CSV file…"), kCsvChoice);
  m_parameters = new QComboBox(this);
  m_parameters->setObjectName(QStringLiteral("evaluationParameters"));
  m_parameters->addItem(tr("last"), QStringLiteral("last"));
  m_parameters->addItem(tr("best"), QStringLiteral("best"));
  m_parameters->setToolTip(tr("last: the parameters at the end of training; best: those of the epoch with the lowest "
                              "validation error (config.save_best)"));
  m_evaluate = new QPushButton(tr("Evaluate"), this);
  m_evaluate->setObjectName(QStringLiteral("evaluateButton"));
  m_exportOnnx = new QPushButton(tr("Export ONNX…"), this);
  m_exportOnnx->setToolTip(tr("netsmith-cli export RUN --onnx FILE: the trained network as a standard ONNX model (opset 13)"));
  m_exportCsv = new QPushButton(tr("Export CSV…"), this);
  m_exportCsv->setToolTip(tr("The per-class table (precision, recall, F-measure, support, macro averages) as CSV"));
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Run"), this));
  bar->addWidget(m_run, 2);
  bar->addWidget(other);
  bar->addSpacing(12);
  auto* datasetLabel = new QLabel(tr("Dataset"), this);
  bar->addWidget(datasetLabel);
  bar->addWidget(m_dataset);
  bar->addWidget(new QLabel(tr("Parameters"), this));
  bar->addWidget(m_parameters);
  bar->addWidget(m_evaluate);
  bar->addStretch(1);
  bar->addWidget(m_exportOnnx);
  bar->addWidget(m_exportCsv);

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("evaluationStatus"));
  m_status->setWordWrap(true);
  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("evaluationSummary"));
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // --- results ---
  m_matrix = new ConfusionMatrixPlot(this);
  m_perClass = new QTableWidget(0, 5, this);
  m_perClass->setObjectName(QStringLiteral("perClassTable"));
  m_perClass->setHorizontalHeaderLabels({tr("Class"), tr("Precision"), tr("Recall"), tr("F-measure"), tr("Support")});
  m_perClass->verticalHeader()->hide();
  m_perClass->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_perClass->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  m_samples = new SampleBrowser(this);

  auto* tables = new QSplitter(Qt::Horizontal, this);
  tables->addWidget(m_matrix);
  tables->addWidget(m_perClass);
  tables->setStretchFactor(0, 3);
  tables->setStretchFactor(1, 2);
  auto* vertical = new QSplitter(Qt::Vertical, this);
  vertical->addWidget(tables);
  vertical->addWidget(m_samples);
  vertical->setStretchFactor(0, 1);
  vertical->setStretchFactor(1, 1);
  vertical->setSizes({430, 330});

  // The Inference tab uses the run and parameters chosen in the bar; the dataset, Evaluate and the
  // evaluation's summary belong to the Evaluation tab only.
  m_inference = new InferenceTab(this);
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("evaluationTabs"));
  m_tabs->setDocumentMode(true);
  m_tabs->addTab(vertical, tr("Evaluation"));
  m_tabs->addTab(m_inference, tr("Inference"));
  const QList<QWidget*> evaluationOnly{datasetLabel, m_dataset, m_evaluate, m_exportCsv, m_summary, m_status};
  connect(m_tabs, &QTabWidget::currentChanged, this, [evaluationOnly](int tab) {
    for (QWidget* w : evaluationOnly) w->setVisible(tab == 0);
  });

  auto* results = new QWidget(this);
  auto* resultsLayout = new QVBoxLayout(results);
  resultsLayout->setContentsMargins(0, 0, 0, 0);
  resultsLayout->addLayout(bar);
  resultsLayout->addWidget(m_status);
  resultsLayout->addWidget(m_summary);
  resultsLayout->addWidget(m_tabs, 1);

  m_stack = new QStackedWidget(this);
  m_stack->addWidget(empty);
  m_stack->addWidget(results);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(m_stack);

  // --- wiring ---
  auto chooseOther = [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Run folder to evaluate"), selectedRun());
    if (!dir.isEmpty()) selectRun(dir);
  };
  connect(other, &QPushButton::clicked, this, chooseOther);
  connect(otherFromEmpty, &QPushButton::clicked, this, chooseOther);
  connect(m_run, &QComboBox::activated, this, &EvaluationPage::runChosen);
  connect(m_parameters, &QComboBox::activated, this, &EvaluationPage::runChosen);
  connect(m_dataset, &QComboBox::activated, this, [this] {
    if (m_dataset->currentData().toString() == kCsvChoice) {
      const QString file = QFileDialog::getOpenFileName(this, tr("Dataset CSV (x:image,y:label)"), QString(), tr("CSV files (*.csv)"));
      if (file.isEmpty()) {
        m_dataset->setCurrentIndex(0);
      } else {
        setDataset(file);
      }
    }
    runChosen();
  });
  connect(m_evaluate, &QPushButton::clicked, this, [this] { evaluate(); });
  connect(m_exportCsv, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export the per-class table"),
                                                      QDir(selectedRun()).filePath(QStringLiteral("per_class.csv")),
                                                      tr("CSV files (*.csv)"));
    if (!file.isEmpty()) exportCsv(file);
  });
  connect(m_exportOnnx, &QPushButton::clicked, this, [this] {
    const QString file = QFileDialog::getSaveFileName(this, tr("Export the model as ONNX"),
                                                      QDir(selectedRun()).filePath(QStringLiteral("model.onnx")),
                                                      tr("ONNX models (*.onnx)"));
    if (!file.isEmpty()) exportOnnx(file);
  });
  connect(m_matrix, &ConfusionMatrixPlot::cellClicked, m_samples, &SampleBrowser::showCell);
  connect(doc, &ProjectDocument::loaded, this, [this] {
    m_extraRuns.clear();
    refreshRuns();
  });
  connect(doc, &ProjectDocument::pathChanged, this, &EvaluationPage::refreshRuns);

  refreshRuns();
}

EvaluationPage::~EvaluationPage() {
  cancelCliCommand(m_query);
  cancelCliCommand(m_export);
}

void EvaluationPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshRuns();
}

QString EvaluationPage::statusText() const { return m_status->text(); }
QString EvaluationPage::summaryText() const { return m_summary->text(); }
bool EvaluationPage::showsTrainFirst() const { return m_stack->currentIndex() == 0; }

void EvaluationPage::setStatus(const QString& text, bool error) {
  m_status->setText(text);
  m_status->setStyleSheet(error ? QStringLiteral("color:#c0392b") : QString());
}

void EvaluationPage::updateEnabled() {
  const bool busy = m_query != nullptr;
  m_evaluate->setEnabled(!busy && m_run->count() > 0);
  m_run->setEnabled(!busy);
  m_dataset->setEnabled(!busy);
  m_parameters->setEnabled(!busy);
  m_exportCsv->setEnabled(m_result.has_value());
  m_exportOnnx->setEnabled(m_export == nullptr && m_run->count() > 0);
}

// --- runs ------------------------------------------------------------------------------------------

void EvaluationPage::refreshRuns() {
  if (isEvaluating()) return;
  const QString chosen = selectedRun();
  m_runs = listRuns(runsRootFor(m_doc->path(), qs(m_doc->settings().name)));
  m_run->clear();
  for (const RunSummary& run : m_runs) {
    QString text = run.displayName() + QStringLiteral(" · ") + (run.status.isEmpty() ? tr("no events") : run.status);
    if (hasValue(run.bestValidationError)) text += tr(" · best error %1").arg(runListPercent(run.bestValidationError));
    m_run->addItem(text, run.folder);
  }
  for (const QString& folder : m_extraRuns) m_run->addItem(folder, folder);
  m_stack->setCurrentIndex(m_run->count() > 0 || m_result ? 1 : 0);
  int index = m_run->findData(chosen);
  if (index < 0) {
    // The newest run that completed, else the newest.
    for (int i = 0; i < m_runs.size() && index < 0; ++i)
      if (m_runs[i].status == QLatin1String("completed")) index = i;
    if (index < 0 && m_run->count() > 0) index = 0;
  }
  m_run->setCurrentIndex(index);
  if (selectedRun() != chosen) runChosen();
  updateEnabled();
}

bool EvaluationPage::selectRun(const QString& folder) {
  const QString abs = QFileInfo(folder).absoluteFilePath();
  if (!QFileInfo(abs).isDir()) return false;
  int index = m_run->findData(abs);
  if (index < 0) {
    m_extraRuns << abs;
    m_run->addItem(abs, abs);
    index = m_run->count() - 1;
  }
  m_run->setCurrentIndex(index);
  m_stack->setCurrentIndex(1);
  runChosen();
  return true;
}

QString EvaluationPage::selectedRun() const { return m_run->currentData().toString(); }

void EvaluationPage::setDataset(const QString& dataset) {
  int index = m_dataset->findData(dataset);
  if (index < 0) {
    m_dataset->insertItem(m_dataset->count() - 1, QFileInfo(dataset).fileName(), QFileInfo(dataset).absoluteFilePath());
    m_dataset->setItemData(m_dataset->count() - 2, dataset, Qt::ToolTipRole);
    index = m_dataset->count() - 2;
  }
  m_dataset->setCurrentIndex(index);
}

void EvaluationPage::setParameters(const QString& which) {
  const int index = m_parameters->findData(which);
  if (index >= 0) m_parameters->setCurrentIndex(index);
}

QString EvaluationPage::datasetArgument() const { return m_dataset->currentData().toString(); }

QString EvaluationPage::evaluationFolder() const {
  const QString dataset = datasetArgument();
  const QString tag = dataset == QLatin1String("validation") || dataset == QLatin1String("training")
                          ? dataset
                          : QStringLiteral("csv-") + QFileInfo(dataset).completeBaseName();
  return QDir(selectedRun()).filePath(QStringLiteral("evaluation/") + tag + QLatin1Char('-') + m_parameters->currentData().toString());
}

void EvaluationPage::showTab(int index) { m_tabs->setCurrentIndex(index); }

void EvaluationPage::runChosen() {
  m_inference->setRun(selectedRun(), m_parameters->currentData().toString());
  m_result.reset();
  m_matrix->clear();
  m_perClass->setRowCount(0);
  m_samples->clear();
  m_summary->clear();
  if (selectedRun().isEmpty()) {
    setStatus(QString());
    updateEnabled();
    return;
  }
  // An evaluation already made of this choice is shown at once.
  QFile previous(QDir(evaluationFolder()).filePath(QStringLiteral("evaluation.json")));
  if (previous.open(QIODevice::ReadOnly)) {
    if (const auto r = parseEvaluation(previous.readAll())) {
      showResult(*r);
      setStatus(tr("Evaluation of %1 (%2). Press Evaluate to run it again.")
                    .arg(QLocale().toString(QFileInfo(previous).lastModified(), QLocale::ShortFormat), previous.fileName()));
      return;
    }
  }
  setStatus(tr("Press Evaluate to run the %1 parameters of this run on the %2 set.")
                .arg(m_parameters->currentData().toString(), m_dataset->currentText()));
  updateEnabled();
}

}  // namespace netsmith::gui
