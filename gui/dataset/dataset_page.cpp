#include "gui/dataset/dataset_page.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QtConcurrent/QtConcurrentRun>

#include "engine/project/project_io.h"
#include "gui/widgets/field_cell.h"
#include "gui/dataset/create_dataset_dialog.h"
#include "gui/document/settings_edit.h"

namespace netsmith::gui {

DatasetPage::DatasetPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* sources = new QHBoxLayout;
  sources->addWidget(sourceBox(QStringLiteral("training"), tr("Training data")));
  sources->addWidget(sourceBox(QStringLiteral("validation"), tr("Validation data")));

  auto* common = new QGroupBox(tr("Input"), this);
  auto* commonForm = new QFormLayout(common);
  auto* scale = new QLineEdit(this);
  scale->setObjectName(QStringLiteral("datasetScale"));
  scale->setToolTip(tr("Multiplies every input value (1/255 = 0.00392 for 8-bit images)."));
  // Written when the user is done (Enter, or leaving the field): written per keystroke, "1/2" of
  // "1/255" became the scale and the field was rewritten to "0.5" under the user's fingers.
  connect(scale, &QLineEdit::editingFinished, this, [this, scale] {
    if (!scale->isModified()) return;
    scale->setModified(false);
    edited(QStringLiteral("dataset.scale"), valueFromText(scale->text()));
  });
  auto* shuffle = new QCheckBox(tr("reshuffle the training set every epoch"), this);
  connect(shuffle, &QCheckBox::toggled, this, [this](bool on) { edited(QStringLiteral("dataset.shuffle"), Json(on)); });
  m_editors.insert(QStringLiteral("dataset.scale"), scale);
  m_editors.insert(QStringLiteral("dataset.shuffle"), shuffle);
  auto* scaleError = new QLabel(this);
  scaleError->setObjectName(QStringLiteral("datasetScaleError"));
  scaleError->setStyleSheet(QStringLiteral("color:#c0392b"));
  scaleError->hide();
  m_errors.insert(QStringLiteral("dataset.scale"), scaleError);
  commonForm->addRow(tr("Scale"), scale);
  commonForm->addRow(QString(), scaleError);
  commonForm->addRow(tr("Shuffle"), shuffle);
  sources->addWidget(common);

  m_summary = new QLabel(tr("Loading the training data…"), this);
  m_summary->setObjectName(QStringLiteral("datasetSummary"));
  m_summary->setWordWrap(true);
  m_summary->setTextFormat(Qt::RichText);
  auto* create = new QPushButton(tr("Create from folder…"), this);
  create->setObjectName(QStringLiteral("createFromFolder"));
  create->setToolTip(tr("Make a training dataset from a folder of images, one subfolder per class "
                        "(netsmith-cli dataset create), and use it in this project."));
  connect(create, &QPushButton::clicked, this, [this] { openCreateDialog(); });
  auto* reload = new QPushButton(tr("Reload preview"), this);
  connect(reload, &QPushButton::clicked, this, [this] {
    m_previewKey.clear();
    reloadPreview();
  });

  m_balance = new QCustomPlot(this);
  m_balance->setMinimumSize(320, 200);
  m_balance->xAxis->setLabel(tr("class"));
  m_balance->yAxis->setLabel(tr("samples"));
  m_balance->plotLayout()->insertRow(0);
  m_balance->plotLayout()->addElement(0, 0, new QCPTextElement(m_balance, tr("Class balance (training)"),
                                                               QFont(font().family(), font().pointSize(), QFont::Bold)));
  m_balance->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
  m_balance->xAxis->setSubTicks(false);
  m_balance->xAxis->grid()->setVisible(false);

  m_augment = new AugmentationPreview(this);
  m_augment->setObjectName(QStringLiteral("augmentationPreview"));
  m_augmentBox = new QGroupBox(tr("Augmentation (training samples as each epoch sees them)"), this);
  (new QVBoxLayout(m_augmentBox))->addWidget(m_augment);
  m_augmentBox->hide();

  m_classGrid = new ClassGrid(this);
  m_classGrid->setObjectName(QStringLiteral("classGrid"));
  auto* gridScroll = new QScrollArea(this);
  gridScroll->setWidget(m_classGrid);
  gridScroll->setWidgetResizable(true);
  gridScroll->setFrameShape(QFrame::NoFrame);
  auto* samplesBox = new QGroupBox(tr("Samples per class (training)"), this);
  (new QVBoxLayout(samplesBox))->addWidget(gridScroll);

  auto* leftColumn = new QVBoxLayout;
  leftColumn->addWidget(m_balance, 1);
  leftColumn->addWidget(m_augmentBox);
  auto* previewRow = new QHBoxLayout;
  previewRow->addLayout(leftColumn, 1);
  previewRow->addWidget(samplesBox, 1);

  auto* summaryRow = new QHBoxLayout;
  summaryRow->addWidget(m_summary, 1);
  summaryRow->addWidget(create);
  summaryRow->addWidget(reload);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(sources);
  layout->addLayout(summaryRow);
  layout->addLayout(previewRow, 1);

  connect(&m_watcher, &QFutureWatcher<DatasetPreview>::finished, this, [this] {
    showPreview(m_watcher.result());
    emit previewReady();
    // The source changed while this one was read: read the new one.
    if (isVisible() && previewKey() != m_previewKey) reloadPreview();
  });
  connect(doc, &ProjectDocument::settingsChanged, this, [this] {
    showValues();
    showAugmentation();
    if (isVisible()) reloadPreview();
  });
  connect(doc, &ProjectDocument::loaded, this, [this] {
    m_pendingSource.clear();
    showValues();
    m_previewKey.clear();
    if (isVisible()) reloadPreview();
  });
  showValues();
}

DatasetPage::~DatasetPage() { m_watcher.waitForFinished(); }

QWidget* DatasetPage::sourceBox(const QString& which, const QString& title) {
  auto* box = new QGroupBox(title, this);
  auto* form = new QFormLayout(box);
  const QString base = QStringLiteral("dataset.") + which;
  auto* format = new QComboBox(this);
  format->addItem(tr("IDX (images + labels)"), QStringLiteral("idx"));
  format->addItem(tr("CSV (Neural Network Console)"), QStringLiteral("csv"));
  if (which == QLatin1String("validation")) format->addItem(tr("none"), QString());
  format->setObjectName(base + QStringLiteral(".format"));
  connect(format, &QComboBox::activated, this, [this, base, format] { formatChosen(base, format->currentData().toString()); });
  m_editors.insert(base + QStringLiteral(".format"), format);
  form->addRow(tr("Format"), format);
  for (const char* key : {"images", "labels", "csv"}) {
    const QString path = base + QStringLiteral(".") + QLatin1String(key);
    auto* line = new QLineEdit(this);
    line->setObjectName(path);
    line->setToolTip(tr("A path; ${DATASETS} is %1; relative paths are relative to the project file.").arg(qs(datasetsRoot())));
    connect(line, &QLineEdit::editingFinished, this, [this, path, line] {
      if (line->isModified()) edited(path, Json(ss(line->text().trimmed())));
      line->setModified(false);
    });
    auto* browse = new QPushButton(tr("…"), this);
    browse->setMaximumWidth(32);
    connect(browse, &QPushButton::clicked, this, [this, path, line] {
      const QString file = QFileDialog::getOpenFileName(this, tr("Choose a file"), line->text());
      if (!file.isEmpty()) edited(path, Json(ss(file)));
    });
    const FieldCell field = makeFieldCell(this, line, browse);
    field.error->setObjectName(path + QStringLiteral(".error"));
    form->addRow(QLatin1String(key), field.cell);
    m_pathRows.insert(path, {form, field.cell});
    m_editors.insert(path, line);
    m_errors.insert(path, field.error);
  }
  return box;
}

// Note [Format switch]: a source's keys depend on its format (IDX: images + labels, CSV: csv), and
// the loader refuses a source without them, so a switch cannot be written to the project until
// its files are named. The page keeps the switch pending: the combo shows the new format, its
// path rows are empty with a sentence saying what to choose, and the project keeps the old source.
// When the last path is given the whole source is written in one undo step; choosing the old
// format again, or opening another project, cancels the switch.
void DatasetPage::formatChosen(const QString& base, const QString& format) {
  if (m_showing) return;
  m_pendingSource.remove(base);
  const Json current = settingValue(*m_doc, base);
  if (format.isEmpty()) return edited(base, Json());
  if (current.is_object() && current.value("format", std::string()) == ss(format)) return showValues();
  m_pendingSource.insert(base, Json{{"format", ss(format)}});
  applyPendingSource(base);
}

QStringList DatasetPage::sourceKeys(const QString& format) {
  if (format == QLatin1String("csv")) return {QStringLiteral("csv")};
  if (format == QLatin1String("idx")) return {QStringLiteral("images"), QStringLiteral("labels")};
  return {};
}

void DatasetPage::applyPendingSource(const QString& base) {
  const Json source = m_pendingSource.value(base);
  for (const QString& key : sourceKeys(qs(source.value("format", std::string())))) {
    const Json v = source.value(ss(key), Json());
    if (!v.is_string() || QString::fromStdString(v.get<std::string>()).trimmed().isEmpty()) return showValues();
  }
  const QString refusal = applySetting(m_doc, base, source);
  if (refusal.isEmpty()) m_pendingSource.remove(base);
  showValues();
  if (!refusal.isEmpty()) {
    QLabel* error = m_errors.value(base + QStringLiteral(".") + sourceKeys(qs(source["format"].get<std::string>())).first());
    error->setText(refusal);
    error->show();
  }
}

void DatasetPage::edited(const QString& path, const Json& value) {
  if (m_showing) return;
  const QString base = path.section(QLatin1Char('.'), 0, 1);
  if (m_pendingSource.contains(base) && path != base) {
    m_pendingSource[base][ss(path.section(QLatin1Char('.'), 2))] = value;
    return applyPendingSource(base);
  }
  const QString refusal = applySetting(m_doc, path, value);
  if (QLabel* error = m_errors.value(path)) {
    error->setText(refusal);
    error->setVisible(!refusal.isEmpty());
  } else if (!refusal.isEmpty()) {
    m_summary->setText(QStringLiteral("<span style='color:#c0392b'>%1</span>").arg(refusal.toHtmlEscaped()));
  }
}

void DatasetPage::showValues() {
  m_showing = true;
  const Json json = projectToJson(m_doc->toProject());
  auto at = [&](const QString& path) {
    std::string p = ss(QStringLiteral("/") + path);  // (GCC 12 warns falsely about "/" + std::string)
    std::replace(p.begin(), p.end(), '.', '/');
    const Json::json_pointer ptr(p);
    return json.contains(ptr) ? json.at(ptr) : Json();
  };
  for (auto it = m_editors.cbegin(); it != m_editors.cend(); ++it) {
    const Json v = at(it.key());
    const QSignalBlocker block(it.value());
    if (auto* line = qobject_cast<QLineEdit*>(it.value())) {
      line->setText(v.is_null() ? QString() : v.is_string() ? qs(v.get<std::string>()) : qs(v.dump()));
    } else if (auto* box = qobject_cast<QComboBox*>(it.value())) {
      const int i = box->findData(v.is_string() ? qs(v.get<std::string>()) : QString());
      box->setCurrentIndex(std::max(0, i));
    } else if (auto* check = qobject_cast<QCheckBox*>(it.value())) {
      check->setChecked(v.is_boolean() && v.get<bool>());
    }
  }
  for (QLabel* e : std::as_const(m_errors)) e->hide();
  // A pending format switch (Note [Format switch]) shows its own format and what it has so far.
  for (auto it = m_pendingSource.cbegin(); it != m_pendingSource.cend(); ++it) {
    const QString format = qs(it.value()["format"].get<std::string>());
    auto* box = qobject_cast<QComboBox*>(m_editors.value(it.key() + QStringLiteral(".format")));
    box->setCurrentIndex(std::max(0, box->findData(format)));
    bool hinted = false;
    for (const QString& key : sourceKeys(format)) {
      const Json v = it.value().value(ss(key), Json());
      const QString text = v.is_string() ? qs(v.get<std::string>()) : QString();
      qobject_cast<QLineEdit*>(m_editors.value(it.key() + QStringLiteral(".") + key))->setText(text);
      if (hinted || !text.trimmed().isEmpty()) continue;
      const Json before = at(it.key() + QStringLiteral(".format"));
      QLabel* hint = m_errors.value(it.key() + QStringLiteral(".") + key);
      hint->setText(format == QLatin1String("csv")
                        ? tr("Choose the CSV file to switch this source to CSV; until then the project keeps %1.")
                              .arg(before.is_string() ? qs(before.get<std::string>()).toUpper() : tr("no source"))
                        : tr("Choose the IDX %1 file to switch this source to IDX; until then the project keeps %2.")
                              .arg(key, before.is_string() ? qs(before.get<std::string>()).toUpper() : tr("no source")));
      hint->show();
      hinted = true;
    }
  }
  // Only the path fields of each source's format: images and labels for IDX, csv for CSV.
  for (auto it = m_pathRows.cbegin(); it != m_pathRows.cend(); ++it) {
    const QString base = it.key().section(QLatin1Char('.'), 0, 1);
    const QString key = it.key().section(QLatin1Char('.'), 2);
    const Json format = m_pendingSource.contains(base) ? m_pendingSource.value(base)["format"]
                                                       : at(base + QStringLiteral(".format"));
    const std::string f = format.is_string() ? format.get<std::string>() : std::string();
    it->first->setRowVisible(it->second, f == "csv" ? key == QLatin1String("csv") : f == "idx" && key != QLatin1String("csv"));
  }
  m_showing = false;
}

QString DatasetPage::summaryText() const { return m_summary->text(); }

CreateDatasetDialog* DatasetPage::openCreateDialog() {
  // The same dialog until it has made a dataset (after a cancel or an error its fields stay
  // filled in for another try); a fresh one after that.
  const auto& outcome = m_createDialog ? m_createDialog->outcome() : std::nullopt;
  if (outcome && outcome->result && !outcome->result->cancelled && !m_createDialog->isBuilding()) {
    m_createDialog->deleteLater();
    m_createDialog = nullptr;
  }
  if (!m_createDialog) {
    m_createDialog = new CreateDatasetDialog(this);
    CreateDatasetDialog* dialog = m_createDialog;
    connect(dialog, &CreateDatasetDialog::created, this, [this, dialog](const FolderDatasetResult& r) {
      const QString refusal = useCreatedDataset(r);
      if (refusal.isEmpty())
        dialog->setProjectNote(tr("The project now trains on <b>%1</b>%2 with scale 1/255. Edit ▸ Undo puts the previous dataset back.")
                                   .arg(QString::fromStdString(r.trainingCsv.string()).toHtmlEscaped(),
                                        r.validationCsv.empty() ? tr(" (no validation set)")
                                                                : tr(" and validates on <b>%1</b>")
                                                                      .arg(QString::fromStdString(r.validationCsv.string()).toHtmlEscaped())));
      else
        dialog->setProjectNote(QStringLiteral("<span style='color:#c0392b'>%1 %2</span>")
                                   .arg(tr("The project's dataset was not changed:"), refusal.toHtmlEscaped()));
    });
  }
  m_createDialog->open();
  return m_createDialog;
}

QString DatasetPage::useCreatedDataset(const FolderDatasetResult& r) {
  std::vector<std::pair<QString, Json>> changes;
  changes.emplace_back(QStringLiteral("dataset.training"), Json{{"format", "csv"}, {"csv", r.trainingCsv.string()}});
  changes.emplace_back(QStringLiteral("dataset.validation"),
                       r.validationCsv.empty() ? Json() : Json{{"format", "csv"}, {"csv", r.validationCsv.string()}});
  changes.emplace_back(QStringLiteral("dataset.scale"), Json(1.0 / 255.0));
  // The field name keeps two creations from merging into one undo step unless they write the same folder.
  return applySettings(m_doc, tr("dataset (created in %1)").arg(QString::fromStdString(r.output.string())), changes);
}

bool DatasetPage::isAugmentationShown() const { return m_augmentBox->isVisibleTo(this); }

}  // namespace netsmith::gui
