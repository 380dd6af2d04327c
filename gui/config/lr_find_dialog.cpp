#include "gui/config/lr_find_dialog.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "engine/solvers/solver_table.h"
#include "gui/document/settings_edit.h"
#include "gui/run/cli_command.h"

namespace netsmith::gui {

namespace {

constexpr int kTimeoutMs = 60 * 60 * 1000;  // a range test is a short training; an hour is generous

QString rateText(double v) { return QString::number(v, 'g', 3); }

}  // namespace

LrFindDialog::LrFindDialog(ProjectDocument* doc, QWidget* parent) : QDialog(parent), m_doc(doc) {
  setWindowTitle(tr("Find a learning rate"));
  m_low = new QLineEdit(QStringLiteral("1e-7"), this);
  m_high = new QLineEdit(QStringLiteral("10"), this);
  m_iterations = new QSpinBox(this);
  m_iterations->setRange(10, 100000);
  m_iterations->setValue(100);
  auto* form = new QFormLayout;
  form->addRow(tr("From rate"), m_low);
  form->addRow(tr("To rate"), m_high);
  form->addRow(tr("Iterations"), m_iterations);
  auto* explain = new QLabel(tr("A short training on the project as saved, its devices and data: the rate grows from the "
                                "first value to the last while each iteration's loss is recorded, until the loss "
                                "explodes. The suggested rate is where the loss falls fastest."),
                             this);
  explain->setWordWrap(true);
  m_start = new QPushButton(tr("Start"), this);
  m_stop = new QPushButton(tr("Stop"), this);
  m_use = new QPushButton(tr("Use this rate"), this);
  m_use->setToolTip(tr("Sets the solver's learning rate to the suggested one (undo reverts it)"));
  auto* close = new QPushButton(tr("Close"), this);
  connect(m_start, &QPushButton::clicked, this, [this] { start(); });
  connect(m_stop, &QPushButton::clicked, this, &LrFindDialog::stop);
  connect(m_use, &QPushButton::clicked, this, [this] { useSuggestedRate(); });
  connect(close, &QPushButton::clicked, this, &QDialog::reject);

  m_plot = new QCustomPlot(this);
  m_plot->setMinimumSize(520, 320);
  m_plot->xAxis->setScaleType(QCPAxis::stLogarithmic);
  m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  m_plot->xAxis->setLabel(tr("learning rate (log scale)"));
  m_plot->yAxis->setLabel(tr("training loss"));
  QCPGraph* raw = m_plot->addGraph();
  raw->setName(tr("loss of each iteration"));
  raw->setLineStyle(QCPGraph::lsNone);
  raw->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 4));
  QCPGraph* smoothed = m_plot->addGraph();
  smoothed->setName(tr("smoothed"));
  smoothed->setPen(QPen(QColor(31, 119, 180), 2));
  QCPGraph* suggestion = m_plot->addGraph();
  suggestion->setName(tr("suggested rate"));
  suggestion->setPen(QPen(QColor(214, 39, 40), 2, Qt::DashLine));
  m_plot->legend->setVisible(true);

  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* side = new QVBoxLayout;
  side->addLayout(form);
  side->addWidget(explain);
  side->addStretch(1);
  auto* top = new QHBoxLayout;
  top->addLayout(side, 1);
  top->addWidget(m_plot, 3);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_status, 1);
  for (QPushButton* b : {m_start, m_stop, m_use, close}) buttons->addWidget(b);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top, 1);
  layout->addLayout(buttons);
  resize(900, 520);
  updateButtons();
}

LrFindDialog::~LrFindDialog() { cancelCliCommand(m_process); }

void LrFindDialog::setRange(const QString& low, const QString& high, int iterations) {
  m_low->setText(low);
  m_high->setText(high);
  m_iterations->setValue(iterations);
}

bool LrFindDialog::start() {
  if (m_process) return false;
  if (m_doc->path().isEmpty() || m_doc->isModified()) {
    setStatus(tr("Save the project first: the test trains the project file as saved."));
    return false;
  }
  setStatus(tr("Training with a growing rate…"));
  m_process = runCliCommand(
      this,
      {QStringLiteral("lr-find"), m_doc->path(), QStringLiteral("--min-lr"), m_low->text().trimmed(),
       QStringLiteral("--max-lr"), m_high->text().trimmed(), QStringLiteral("--iterations"),
       QString::number(m_iterations->value()), QStringLiteral("--json")},
      [this](const CliResult& result) {
        m_process = nullptr;
        if (result.exitCode == 0 || (result.exitCode == 1 && result.standardOutput.startsWith('{')))
          showResult(result.standardOutput);
        else if (result.exitCode == 3)
          setStatus(tr("Stopped."));
        else
          setStatus(result.errorText());
        updateButtons();
        emit finished();
      },
      kTimeoutMs);
  updateButtons();
  return true;
}

void LrFindDialog::stop() {
  if (!m_process) return;
  m_process->terminate();  // the test stops within one iteration and the CLI prints what it has
  setStatus(tr("Stopping…"));
}

bool LrFindDialog::showResult(const QByteArray& json) {
  const Json result = Json::parse(json.toStdString(), nullptr, false);
  if (!result.is_object() || !result.contains("points") || !result["points"].is_array()) {
    setStatus(tr("The test's result could not be read: %1").arg(QString::fromUtf8(json.left(200))));
    return false;
  }
  QVector<double> rates, losses, smoothed;
  for (const Json& p : result["points"]) {
    if (!p.is_object() || !p.value("lr", Json()).is_number() || !p.value("loss", Json()).is_number()) continue;
    rates << p["lr"].get<double>();
    losses << p["loss"].get<double>();
    smoothed << p.value("smoothed_loss", p["loss"].get<double>());
  }
  m_plot->graph(0)->setData(rates, losses, true);
  m_plot->graph(1)->setData(rates, smoothed, true);
  m_suggested.reset();
  if (result.value("suggested_lr", Json()).is_number()) m_suggested = result["suggested_lr"].get<double>();
  // The interesting part is where the loss falls: the explosion at the end would flatten it, so
  // the axis stops at twice the first smoothed loss (as fastai's plot clips it).
  const double top = smoothed.isEmpty() ? 1 : 2 * smoothed.front();
  if (m_suggested) m_plot->graph(2)->setData({*m_suggested, *m_suggested}, {0, top});
  else m_plot->graph(2)->data()->clear();
  m_plot->rescaleAxes();
  m_plot->yAxis->setRange(0, top);
  m_plot->replot();
  const QString ended = QString::fromStdString(result.value("stopped_because", std::string()));
  setStatus(m_suggested ? tr("Suggested learning rate: %1 (the loss falls fastest there). Ended: %2.")
                              .arg(rateText(*m_suggested), ended)
                        : tr("No suggestion: the loss rose too soon (try a lower first rate). Ended: %1.").arg(ended));
  updateButtons();
  return true;
}

bool LrFindDialog::useSuggestedRate() {
  if (!m_suggested) return false;
  const Json solver = settingValue(*m_doc, QStringLiteral("optimizer.solver"));
  const SolverRow* row = solver.is_string() ? findSolver(solver.get<std::string>()) : nullptr;
  if (!row) return false;
  const QString path = QStringLiteral("optimizer.") + QString::fromLatin1(row->lrKey);
  const QString refusal = applySetting(m_doc, path, Json(*m_suggested));
  setStatus(refusal.isEmpty() ? tr("%1 is now %2 (Edit ▸ Undo reverts it).").arg(path, rateText(*m_suggested)) : refusal);
  return refusal.isEmpty();
}

QString LrFindDialog::statusText() const { return m_status->text(); }

void LrFindDialog::setStatus(const QString& text) { m_status->setText(text); }

void LrFindDialog::updateButtons() {
  m_start->setEnabled(!m_process);
  m_stop->setEnabled(m_process != nullptr);
  m_use->setEnabled(!m_process && m_suggested.has_value());
}

}  // namespace netsmith::gui
