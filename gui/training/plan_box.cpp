// PlanBox (plan_box.h): the plan the engine's dry run gives for the document as it is.
#include "gui/training/plan_box.h"

#include <QLabel>
#include <QLocale>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QTemporaryDir>
#include <QVBoxLayout>

#include <algorithm>

#include "engine/core/error.h"
#include "engine/project/project_io.h"
#include "gui/document/project_document.h"
#include "gui/run/cli_command.h"
#include "gui/run/engine_text.h"
#include "gui/training/cluster_panel.h"
#include "gui/training/figures_text.h"
#include "gui/widgets/class_count_bar.h"

namespace netsmith::gui {

PlanBox::PlanBox(ProjectDocument* doc, const ClusterPanel* cluster, QWidget* parent)
    : QWidget(parent), m_doc(doc), m_cluster(cluster) {
  m_text = new QLabel(tr("The plan appears here."), this);
  m_text->setObjectName(QStringLiteral("planSummary"));
  m_text->setWordWrap(true);
  m_text->setTextFormat(Qt::RichText);
  m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_text->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  // The plan grows with the data and memory rows: it scrolls within rather than being cut off.
  auto* scroll = new QScrollArea(this);
  scroll->setWidget(m_text);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setMinimumHeight(110);
  // Note [Classifier head]: a dataset with another number of classes than the head outputs is
  // offered the fix above the plan, whose warning (or refusal) says the same.
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* classCount = new ClassCountBar(doc, this);
  layout->addWidget(classCount);
  layout->addWidget(scroll, 1);
  m_largest = new QPushButton(this);
  m_largest->setObjectName(QStringLiteral("largestBatch"));
  m_largest->setToolTip(tr("Sets config.batch_size so that each device holds the largest batch the plan says fits "
                           "its memory (undo restores it)."));
  m_largest->hide();
  layout->addWidget(m_largest, 0, Qt::AlignLeft);
  connect(m_largest, &QPushButton::clicked, this, &PlanBox::applyLargestBatch);
  connect(classCount, &ClassCountBar::applied, this, [this] { m_debounce.start(); });

  m_debounce.setSingleShot(true);
  m_debounce.setInterval(400);
  connect(&m_debounce, &QTimer::timeout, this, &PlanBox::refresh);
}

PlanBox::~PlanBox() { cancelCliCommand(m_query); }

QString PlanBox::text() const { return m_text->text(); }

void PlanBox::setRefusal(const QString& why) {
  m_refusal = why;
  emit refusalChanged();
}

void PlanBox::applyLargestBatch() {
  if (m_largestBatchSize <= 0) return;
  Project before = m_doc->settings();
  Project after = before;
  after.config.batchSize = m_largestBatchSize;
  if (after.config.batchSize == before.config.batchSize) return;
  m_doc->undoStack()->push(new SettingsCommand(m_doc, before, after, QStringLiteral("config.batch_size")));
}

void PlanBox::refresh() {
  if (m_running) return;
  if (!m_dir) m_dir = std::make_unique<QTemporaryDir>();
  const QString file = m_dir->filePath(QStringLiteral("plan.nsproj"));
  try {
    saveProject(m_doc->toProject(), ss(file));
  } catch (const Error& e) {
    m_text->setText(tr("<span style='color:#c0392b'>%1</span>").arg(qs(e.what()).toHtmlEscaped()));
    setRefusal(qs(e.what()));
    return;
  }
  cancelCliCommand(m_query);
  m_text->setText(m_text->text() + tr("<br><i>updating…</i>"));
  m_query = runCliCommand(this, {QStringLiteral("train"), file, QStringLiteral("--dry-run"), QStringLiteral("--json")},
                          [this](const CliResult& r) {
                            m_query = nullptr;
                            if (r.exitCode == 0) {
                              const auto event = parseEngineEvent(r.standardOutput.trimmed());
                              if (event && std::holds_alternative<PlanEvent>(*event)) {
                                showPlan(std::get<PlanEvent>(*event).plan);
                                setRefusal({});
                                emit planUpdated();
                                return;
                              }
                            }
                            const QString why = engineTextForPeople(
                                r.errorText(), m_doc->graph()->spec(),
                                m_dir ? m_dir->filePath(QStringLiteral("plan.nsproj")) : QString());
                            m_text->setText(tr("<span style='color:#c0392b'><b>Cannot train yet:</b> %1</span>")
                                                .arg(why.toHtmlEscaped()));
                            setRefusal(why);
                            emit planUpdated();
                          });
}

void PlanBox::showPlan(const TrainingPlan& plan) {
  QStringList devices;
  for (const PlannedDevice& d : plan.devices)
    devices << QStringLiteral("%1 (batch %2%3)").arg(qs(d.id)).arg(d.batch).arg(d.threads > 0 ? tr(", %n thread(s)", nullptr, d.threads) : QString());
  QString text = tr("<table cellspacing=2>"
                    "<tr><td>Devices</td><td><b>%1</b></td></tr>"
                    "<tr><td>Logical batch</td><td><b>%2</b> (batch size %3 per device)</td></tr>"
                    "<tr><td>Learning rate</td><td><b>%4</b> (configured %5)</td></tr>"
                    "<tr><td>Iterations / epoch</td><td><b>%6</b>%7</td></tr>"
                    "<tr><td>LR update interval</td><td>every %8</td></tr>"
                    "<tr><td>Warm-up</td><td>%9</td></tr></table>")
                     .arg(devices.join(QStringLiteral(", ")).toHtmlEscaped())
                     .arg(plan.logicalBatch)
                     .arg(plan.batchSize)
                     .arg(numberText(plan.effectiveLr), numberText(plan.baseLr))
                     .arg(plan.iterationsPerEpoch)
                     .arg(plan.trainSamples > 0 ? tr(" over %1 samples").arg(QLocale().toString(plan.trainSamples)) : QString())
                     .arg(tr("%n iteration(s)", nullptr, static_cast<int>(plan.lrUpdateInterval)))
                     .arg(plan.warmupIterations > 0 ? tr("%n iteration(s)", nullptr, static_cast<int>(plan.warmupIterations))
                                                    : tr("none"));
  // The epochs, precision, data and memory the run will have (the dry run states them).
  QString more;
  if (plan.maxEpoch > 0) more += tr("<tr><td>Epochs</td><td><b>%1</b></td></tr>").arg(plan.maxEpoch);
  if (!plan.precision.empty()) more += tr("<tr><td>Precision</td><td>%1</td></tr>").arg(qs(plan.precision).toHtmlEscaped());
  // The training controls a step runs with, when on (the Optimizer panel and Global Config set them).
  if (plan.accumulation > 1)
    more += tr("<tr><td>Accumulation</td><td>%1 micro-batches of %2 per device and step, one update</td></tr>")
                .arg(plan.accumulation)
                .arg(plan.batchSize);
  if (plan.clipGradientNorm > 0)
    more += tr("<tr><td>Gradient clipping</td><td>global norm at most %1</td></tr>").arg(numberText(plan.clipGradientNorm));
  if (plan.emaDecay > 0)
    more += tr("<tr><td>Weights</td><td>moving average, decay %1 (validated and saved)</td></tr>")
                .arg(numberText(plan.emaDecay));
  for (const auto& d : plan.data) more += tr("<tr><td>Data</td><td>%1</td></tr>").arg(describeDataSet(d).toHtmlEscaped());
  if (plan.memoryBytesNeeded > 0 && plan.memory.empty())
    more += tr("<tr><td>Memory</td><td>about %1</td></tr>")
                .arg(QLocale().formattedDataSize(plan.memoryBytesNeeded));
  // Note [Memory before launch]: each device's need and its parts; the batch at which the most
  // loaded device holds the largest batch that fits (the held batch scales with batch_size).
  m_largestBatchSize = 0;
  bool gpu = false, fits = true;
  for (const protocol::DeviceMemoryNeed& m : plan.memory) {
    const QLocale locale;
    QString parts = tr("parameters, gradients and solver %1, activations %2")
                        .arg(locale.formattedDataSize(m.parametersBytes + m.gradientsBytes + m.optimizerStateBytes),
                             locale.formattedDataSize(m.activationsBytes));
    if (m.device == "cpu")
      parts += tr(", the process %1, data %2").arg(locale.formattedDataSize(m.baseBytes), locale.formattedDataSize(m.dataBytes));
    else
      parts += tr(", CUDA context %1").arg(locale.formattedDataSize(m.baseBytes));
    if (m.workspaceBytes > 0) parts += tr(", workspace %1").arg(locale.formattedDataSize(m.workspaceBytes));
    if (m.communicationBytes > 0) parts += tr(", NCCL %1").arg(locale.formattedDataSize(m.communicationBytes));
    const QString of = m.capacityBytes > 0 ? tr(" of %1").arg(locale.formattedDataSize(m.capacityBytes)) : QString();
    more += tr("<tr><td>Memory %1</td><td>%2about %3%4</b>%5 (%6)</td></tr>")
                .arg(m.device == "cpu" ? tr("(CPU)") : qs(m.device).toHtmlEscaped(),
                     m.fits() ? QStringLiteral("<b>") : QStringLiteral("<b style='color:#c0392b'>"),
                     locale.formattedDataSize(m.totalBytes), of,
                     m.largestBatch > 0 ? tr("; largest batch about %1").arg(locale.toString(m.largestBatch)) : QString(),
                     parts.toHtmlEscaped());
    gpu = gpu || m.device != "cpu";
    fits = fits && m.fits();
    if (m.largestBatch > 0 && m.batch > 0) {
      const int64_t size = plan.batchSize * m.largestBatch / m.batch;
      m_largestBatchSize = m_largestBatchSize ? std::min(m_largestBatchSize, size) : size;
    }
  }
  // On CPU workers the machine's whole memory is rarely the batch anyone wants: offered there only
  // to rescue a batch that does not fit.
  const bool offer = m_largestBatchSize > 0 && m_largestBatchSize != plan.batchSize && (gpu || !fits);
  m_largest->setText(tr("Use the largest batch that fits (batch size %1)").arg(QLocale().toString(m_largestBatchSize)));
  m_largest->setVisible(offer && !m_running);
  text.replace(QStringLiteral("</table>"), more + QStringLiteral("</table>"));
  const ClusterSettings cluster = m_cluster->settings();
  const bool ranked = std::any_of(plan.devices.begin(), plan.devices.end(),
                                  [](const PlannedDevice& d) { return d.id.rfind("rank", 0) == 0; });
  if (cluster.enabled && !ranked && !m_running)
    text += tr("<p><b>Cluster:</b> %1 processes, each with these devices: logical batch %2 in all; the engine "
               "derives the learning rate and iterations per epoch from the whole job.</p>")
                .arg(cluster.processes)
                .arg(plan.logicalBatch * cluster.processes);
  for (const std::string& w : plan.warnings) text += QStringLiteral("<p style='color:#b9770e'>⚠ %1</p>").arg(qs(w).toHtmlEscaped());
  m_text->setText(text);
}

}  // namespace netsmith::gui
