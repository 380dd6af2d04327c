// CreateDatasetDialog (create_dataset_dialog.h): the build on a worker thread (buildFolderDataset),
// its progress and Cancel, and the summary of the dataset it made.
#include <QDir>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/dataset/create_dataset_dialog.h"

namespace netsmith::gui {

namespace {
QString fsPathText(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }
}  // namespace

bool CreateDatasetDialog::start() {
  if (isBuilding()) return false;
  const DialogOptions d = options();
  if (!d.problem.isEmpty()) {
    m_stage->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(d.problem.toHtmlEscaped()));
    return false;
  }
  m_outcome.reset();
  m_summary->hide();
  m_files->hide();
  m_files->clear();
  m_projectNote->hide();
  m_stage->setText(tr("Scanning the folder…"));
  m_progress->setRange(0, 0);
  setBuilding(true);
  auto flag = std::make_shared<std::atomic<bool>>(false);
  m_cancelFlag = flag;
  const FolderDatasetOptions options = d.options;
  // The builder calls back on the worker thread; progress hops to this dialog with a queued call
  // (dropped if the dialog is gone; the destructor waits for the worker anyway).
  m_watcher.setFuture(QtConcurrent::run([this, options, flag] {
    FolderBuildOutcome out;
    FolderDatasetCallbacks callbacks;
    callbacks.cancelled = [flag] { return flag->load(); };
    callbacks.progress = [this](const BuildProgress& p) {
      QMetaObject::invokeMethod(this, [this, p] { showProgress(p); }, Qt::QueuedConnection);
    };
    try {
      out.result = buildFolderDataset(options, callbacks);
    } catch (const std::exception& e) {
      out.error = QString::fromUtf8(e.what());
    }
    return out;
  }));
  return true;
}

void CreateDatasetDialog::cancelBuild() {
  if (!isBuilding() || !m_cancelFlag) return;
  m_cancelFlag->store(true);
  m_stage->setText(tr("Cancelling: removing the unfinished folder…"));
  m_cancel->setEnabled(false);
}

void CreateDatasetDialog::showProgress(const BuildProgress& p) {
  if (!isBuilding() || (m_cancelFlag && m_cancelFlag->load())) return;
  const QLocale locale;
  switch (p.stage) {
    case BuildStage::Scanning: m_stage->setText(tr("Scanning the folder…")); break;
    case BuildStage::Reading:
      m_stage->setText(tr("Reading images: %1 of %2").arg(locale.toString(p.done), locale.toString(p.total)));
      break;
    case BuildStage::Converting:
      m_stage->setText(tr("Converting and writing images: %1 of %2").arg(locale.toString(p.done), locale.toString(p.total)));
      break;
    case BuildStage::Writing: m_stage->setText(tr("Writing the CSV files and sample stores…")); break;
    case BuildStage::Finishing: m_stage->setText(tr("Finishing…")); break;
  }
  if (p.total > 0) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(static_cast<int>(1000 * std::min<int64_t>(p.done, p.total) / p.total));
  } else {
    m_progress->setRange(0, 0);  // busy
  }
}

void CreateDatasetDialog::finishBuild() {
  m_outcome = m_watcher.result();
  m_cancel->setEnabled(true);
  setBuilding(false);
  if (!m_outcome->error.isEmpty()) {
    m_stage->setText(QStringLiteral("<span style='color:#c0392b'><b>%1</b> %2</span>")
                         .arg(tr("Not created:"), m_outcome->error.toHtmlEscaped()));
  } else if (m_outcome->result && m_outcome->result->cancelled) {
    m_stage->setText(tr("Cancelled: nothing was written."));
  } else if (m_outcome->result) {
    m_stage->clear();
    m_form->hide();
    m_intro->hide();
    m_create->hide();
    showSummary(*m_outcome->result);
    emit created(*m_outcome->result);
  }
  emit buildFinished();
  if (m_closeWhenDone) QDialog::reject();
}

void CreateDatasetDialog::showSummary(const FolderDatasetResult& r) {
  const QLocale locale;
  auto count = [&](int64_t n) { return locale.toString(static_cast<qlonglong>(n)); };
  QString text = tr("<b>Dataset written</b> to %1 (%2) in %3.")
                     .arg(fsPathText(r.output).toHtmlEscaped(), locale.formattedDataSize(static_cast<qint64>(r.bytesOnDisk)),
                          r.seconds < 1 ? tr("under a second") : tr("%1 s").arg(r.seconds, 0, 'f', 1));
  text += QStringLiteral("<br>") + tr("<b>Training:</b> %1 images").arg(count(r.trainingCount));
  if (r.layout == FolderLayout::GivenSplit)
    text += tr(" · <b>validation:</b> %1 images, from %2/").arg(count(r.validationCount), QString::fromStdString(r.validationFolder));
  else if (r.validationCount > 0)
    text += tr(" · <b>validation:</b> %1 images (%2% of each class, seed %3)")
                .arg(count(r.validationCount))
                .arg(r.validationPercent)
                .arg(r.seed);
  else
    text += tr(" · no validation set");
  text += r.classes.size() == 1 ? tr(" · <b>1 class</b>") : tr(" · <b>%1 classes</b>").arg(r.classes.size());
  text += QStringLiteral("<br>") + tr("<b>Images:</b> %1×%2, %3, resize %4 (size: %5; channels: %6)")
                                        .arg(r.width)
                                        .arg(r.height)
                                        .arg(r.channels == 1 ? tr("gray") : tr("RGB"), QString::fromLatin1(resizeModeName(r.resize)),
                                             QString::fromStdString(r.sizeChoice).toHtmlEscaped(),
                                             QString::fromStdString(r.channelsChoice).toHtmlEscaped());
  text += QStringLiteral("<br>") +
          (r.skipped.size() == 1 ? tr("<b>Skipped:</b> 1 file") : tr("<b>Skipped:</b> %1 files").arg(count(static_cast<int64_t>(r.skipped.size())))) +
          tr(" · <b>duplicates left out:</b> %1").arg(count(static_cast<int64_t>(r.duplicates.size())));
  if (!r.skipped.empty() || !r.duplicates.empty()) text += tr(" (listed below and in report.txt)");
  for (const std::string& w : r.warnings)
    text += QStringLiteral("<br><span style='color:#b35900'>%1</span>").arg(QString::fromStdString(w).toHtmlEscaped());
  m_summary->setText(text);
  m_summary->show();

  auto heading = [this](const QString& title) {
    auto* item = new QListWidgetItem(title, m_files);
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
  };
  heading(tr("Classes (training / validation images)"));
  for (size_t k = 0; k < r.classes.size(); ++k)
    m_files->addItem(QStringLiteral("  %1  %2: %3 / %4")
                         .arg(k)
                         .arg(QString::fromStdString(r.classes[k].name), count(r.classes[k].training),
                              count(r.classes[k].validation)));
  if (!r.skipped.empty()) {
    heading(tr("Skipped files (%1)").arg(count(static_cast<int64_t>(r.skipped.size()))));
    for (const SkippedFile& s : r.skipped)
      m_files->addItem(QStringLiteral("  %1: %2").arg(QString::fromStdString(s.path), QString::fromStdString(s.reason)));
  }
  if (!r.duplicates.empty()) {
    heading(tr("Duplicates left out (%1)").arg(count(static_cast<int64_t>(r.duplicates.size()))));
    for (const DuplicateFile& d : r.duplicates)
      m_files->addItem(tr("  %1: the same bytes as %2").arg(QString::fromStdString(d.path), QString::fromStdString(d.duplicateOf)));
  }
  m_files->show();
}

}  // namespace netsmith::gui
