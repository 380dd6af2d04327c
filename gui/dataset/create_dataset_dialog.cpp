// CreateDatasetDialog (create_dataset_dialog.h): the options and their defaults. The build and its
// summary: create_dataset_build.cpp.
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
