#include "gui/dataset/create_dataset_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <limits>

namespace netsmith::gui {

namespace {

QString fromPath(const std::filesystem::path& p) { return QString::fromStdString(p.string()); }

// Whether `folder` holds train/ and val/ (or test/): the builder then uses that split as given
// (Note [Image folder layout]) and takes no validation percent.
bool hasGivenSplit(const QString& folder) {
  if (folder.isEmpty()) return false;
  const QDir dir(folder);
  return dir.exists(QStringLiteral("train")) && (dir.exists(QStringLiteral("val")) || dir.exists(QStringLiteral("test")));
}

QPushButton* browseButton(QWidget* parent) {
  auto* b = new QPushButton(QObject::tr("Browse…"), parent);
  b->setAutoDefault(false);
  return b;
}

}  // namespace

CreateDatasetDialog::CreateDatasetDialog(QWidget* parent) : QDialog(parent) {
  qRegisterMetaType<FolderDatasetResult>();
  setWindowTitle(tr("Create a dataset from a folder of images"));

  m_form = new QWidget(this);
  auto* form = new QFormLayout(m_form);
  form->setContentsMargins(0, 0, 0, 0);

  auto* intro = m_intro = new QLabel(tr("The folder holds one subfolder per class, named after the class (<i>cat/1.jpg</i>, "
                              "<i>dog/2.png</i>), or <i>train/</i> and <i>val/</i> folders that each hold class folders. "
                              "PNG and JPEG files are read; the folder itself is only read."),
                           this);
  intro->setWordWrap(true);

  m_source = new QLineEdit(this);
  m_source->setObjectName(QStringLiteral("sourceFolder"));
  m_source->setPlaceholderText(tr("the folder of class folders"));
  auto* sourceBrowse = browseButton(this);
  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(m_source, 1);
  sourceRow->addWidget(sourceBrowse);
  form->addRow(tr("Image folder"), sourceRow);

  m_output = new QLineEdit(this);
  m_output->setObjectName(QStringLiteral("outputFolder"));
  m_output->setPlaceholderText(tr("a new or empty folder"));
  m_output->setToolTip(tr("Receives training.csv, validation.csv, the resized images, classes.txt and report.txt."));
  auto* outputBrowse = browseButton(this);
  auto* outputRow = new QHBoxLayout;
  outputRow->addWidget(m_output, 1);
  outputRow->addWidget(outputBrowse);
  form->addRow(tr("Write to"), outputRow);

  m_size = new QComboBox(this);
  m_size->setObjectName(QStringLiteral("imageSize"));
  m_size->setEditable(true);
  m_size->addItem(tr("automatic (most common in the folder)"));
  for (const char* s : {"28x28", "32x32", "64x64", "96x96", "128x128", "224x224"}) m_size->addItem(QLatin1String(s));
  m_size->setToolTip(tr("Width x height in pixels, such as 28x28 or 224x224; automatic: the most common size in the folder."));
  form->addRow(tr("Image size"), m_size);

  m_channels = new QComboBox(this);
  m_channels->setObjectName(QStringLiteral("channels"));
  m_channels->addItem(tr("automatic (RGB if any image is in colour, else gray)"), 0);
  m_channels->addItem(tr("1 (gray)"), 1);
  m_channels->addItem(tr("3 (RGB)"), 3);
  form->addRow(tr("Channels"), m_channels);

  m_resize = new QComboBox(this);
  m_resize->setObjectName(QStringLiteral("resize"));
  m_resize->addItem(tr("squash: stretch to the size"), static_cast<int>(ResizeMode::Squash));
  m_resize->addItem(tr("crop: fill the size, cut the centre"), static_cast<int>(ResizeMode::Crop));
  m_resize->addItem(tr("pad: fit in the size, pad with black"), static_cast<int>(ResizeMode::Pad));
  m_resize->setToolTip(tr("How images of another aspect ratio reach the size."));
  form->addRow(tr("Resize"), m_resize);

  m_validation = new QDoubleSpinBox(this);
  m_validation->setObjectName(QStringLiteral("validationPercent"));
  m_validation->setRange(0, 99.9);
  m_validation->setDecimals(1);
  m_validation->setSuffix(QStringLiteral(" %"));
  m_validation->setValue(kDefaultValidationPercent);
  m_validation->setToolTip(tr("The share of each class drawn for validation (0: no validation set)."));
  m_validationNote = new QLabel(tr("of each class, drawn at random"), this);
  m_validationNote->setStyleSheet(QStringLiteral("color:#666"));
  auto* validationRow = new QHBoxLayout;
  validationRow->addWidget(m_validation);
  validationRow->addWidget(m_validationNote, 1);
  form->addRow(tr("Validation"), validationRow);

  m_seed = new QSpinBox(this);
  m_seed->setObjectName(QStringLiteral("seed"));
  m_seed->setRange(0, std::numeric_limits<int>::max());
  m_seed->setMaximumWidth(160);
  m_seed->setToolTip(tr("The seed of the validation draw: the same seed draws the same split."));
  form->addRow(tr("Seed"), m_seed);

  m_overwrite = new QCheckBox(tr("replace an older dataset made by Netsmith in that folder"), this);
  m_overwrite->setObjectName(QStringLiteral("overwrite"));
  form->addRow(QString(), m_overwrite);

  m_stage = new QLabel(this);
  m_stage->setObjectName(QStringLiteral("buildStatus"));
  m_stage->setWordWrap(true);
  m_stage->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_progress = new QProgressBar(this);
  m_progress->setObjectName(QStringLiteral("buildProgress"));
  m_progress->hide();

  m_summary = new QLabel(this);
  m_summary->setObjectName(QStringLiteral("buildSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_summary->hide();
  m_files = new QListWidget(this);
  m_files->setObjectName(QStringLiteral("buildFiles"));
  m_files->setMinimumHeight(140);
  m_files->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_files->hide();
  m_projectNote = new QLabel(this);
  m_projectNote->setWordWrap(true);
  m_projectNote->setTextFormat(Qt::RichText);
  m_projectNote->hide();

  m_create = new QPushButton(tr("Create"), this);
  m_create->setObjectName(QStringLiteral("createButton"));
  m_create->setDefault(true);
  m_cancel = new QPushButton(tr("Cancel"), this);
  m_cancel->setObjectName(QStringLiteral("cancelButton"));
  m_cancel->setAutoDefault(false);
  auto* buttons = new QDialogButtonBox(this);
  buttons->addButton(m_create, QDialogButtonBox::ActionRole);
  buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(intro);
  layout->addWidget(m_form);
  layout->addWidget(m_stage);
  layout->addWidget(m_progress);
  layout->addWidget(m_summary);
  layout->addWidget(m_files, 1);
  layout->addWidget(m_projectNote);
  layout->addStretch(0);
  layout->addWidget(buttons);
  setMinimumWidth(560);

  connect(sourceBrowse, &QPushButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("The folder of images"), m_source->text());
    if (!dir.isEmpty()) setSource(dir);
  });
  connect(outputBrowse, &QPushButton::clicked, this, [this] {
    const QString start = m_output->text().isEmpty() ? QFileInfo(m_source->text()).absolutePath() : m_output->text();
    const QString dir = QFileDialog::getExistingDirectory(this, tr("The folder to write the dataset to"), start);
    if (!dir.isEmpty()) {
      m_outputEdited = true;
      m_output->setText(dir);
    }
  });
  connect(m_source, &QLineEdit::textChanged, this, &CreateDatasetDialog::sourceChanged);
  connect(m_output, &QLineEdit::textEdited, this, [this] { m_outputEdited = !m_output->text().isEmpty(); });
  connect(m_create, &QPushButton::clicked, this, [this] { start(); });
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    if (isBuilding()) cancelBuild();
    else reject();
  });
  connect(&m_watcher, &QFutureWatcher<FolderBuildOutcome>::finished, this, &CreateDatasetDialog::finishBuild);
}

CreateDatasetDialog::~CreateDatasetDialog() {
  if (m_cancelFlag) m_cancelFlag->store(true);
  m_watcher.waitForFinished();
}

void CreateDatasetDialog::setSource(const QString& folder) { m_source->setText(folder); }

void CreateDatasetDialog::setOutput(const QString& folder) {
  m_outputEdited = !folder.isEmpty();
  m_output->setText(folder);
}

void CreateDatasetDialog::sourceChanged() {
  const QString source = m_source->text().trimmed();
  // A suggestion beside the source until the person names the output themselves.
  if (!m_outputEdited && !source.isEmpty()) {
    const QFileInfo info(QDir::cleanPath(source));
    if (!info.fileName().isEmpty()) m_output->setText(info.dir().filePath(info.fileName() + QStringLiteral("-dataset")));
  }
  const bool given = hasGivenSplit(source);
  m_validation->setEnabled(!given);
  m_seed->setEnabled(!given);
  m_validationNote->setText(given ? tr("train/ and val/ (or test/) found: their split is used as given")
                                  : tr("of each class, drawn at random"));
}

DialogOptions CreateDatasetDialog::options() const {
  DialogOptions d;
  FolderDatasetOptions& o = d.options;
  const QString source = m_source->text().trimmed();
  const QString output = m_output->text().trimmed();
  if (source.isEmpty()) {
    d.problem = tr("Choose the folder of images.");
    return d;
  }
  if (output.isEmpty()) {
    d.problem = tr("Choose the folder to write the dataset to.");
    return d;
  }
  o.source = source.toStdString();
  o.output = output.toStdString();
  const QString size = m_size->currentText().trimmed();
  if (m_size->currentIndex() != 0 || size != m_size->itemText(0)) {
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,5})\\s*(?:[xX×]\\s*(\\d{1,5}))?$"));
    const auto match = pattern.match(size);
    const int w = match.hasMatch() ? match.captured(1).toInt() : 0;
    const int h = match.hasMatch() ? (match.captured(2).isEmpty() ? w : match.captured(2).toInt()) : 0;
    if (w < 1 || h < 1 || w > 8192 || h > 8192) {
      d.problem = tr("Image size: expected WIDTHxHEIGHT in pixels, such as 28x28 or 224x224 (each 1 to 8192), got '%1'.").arg(size);
      return d;
    }
    o.width = w;
    o.height = h;
  }
  o.channels = m_channels->currentData().toInt();
  o.resize = static_cast<ResizeMode>(m_resize->currentData().toInt());
  if (!hasGivenSplit(source)) o.validationPercent = m_validation->value();
  o.seed = static_cast<uint64_t>(m_seed->value());
  o.overwrite = m_overwrite->isChecked();
  return d;
}

bool CreateDatasetDialog::isBuilding() const { return m_watcher.isRunning(); }

void CreateDatasetDialog::setBuilding(bool building) {
  m_form->setEnabled(!building);
  m_create->setEnabled(!building);
  m_cancel->setText(building ? tr("Cancel") : tr("Close"));
  m_cancel->setToolTip(building ? tr("Stops the build; nothing is written.") : QString());
  m_progress->setVisible(building);
}

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
                     .arg(fromPath(r.output).toHtmlEscaped(), locale.formattedDataSize(static_cast<qint64>(r.bytesOnDisk)),
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

void CreateDatasetDialog::setProjectNote(const QString& html) {
  m_projectNote->setText(html);
  m_projectNote->setVisible(!html.isEmpty());
}

void CreateDatasetDialog::reject() {
  if (isBuilding()) {
    // Closing while building cancels; the dialog closes once the partial folder is removed.
    m_closeWhenDone = true;
    cancelBuild();
    return;
  }
  QDialog::reject();
}

QString CreateDatasetDialog::statusText() const { return m_stage->text(); }
QString CreateDatasetDialog::summaryText() const { return m_summary->text(); }

QStringList CreateDatasetDialog::listedLines() const {
  QStringList lines;
  for (int i = 0; i < m_files->count(); ++i) lines << m_files->item(i)->text().trimmed();
  return lines;
}

}  // namespace netsmith::gui
