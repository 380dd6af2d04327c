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
#include "gui/dataset/sample_thumbnails.h"
#include "gui/document/settings_edit.h"

namespace netsmith::gui {

namespace {
constexpr int kSamplesPerClass = 8;
constexpr int kMaxBalanceTicks = 30;  // more classes: a tick every few classes
}  // namespace

QImage sampleToImage(const Dataset& data, int64_t i) {
  // Images: (1,H,W) or (3,H,W), shown with their own min/max so any scale displays.
  const auto& s = data.sampleShape;
  if (s.size() != 3 || (s[0] != 1 && s[0] != 3) || i < 0 || i >= data.size) return {};
  const std::vector<float> values = data.sampleValues(i);
  return imageFromValues(values.data(), s);
}

DatasetPreview previewDataSource(const DataSourceSpec& spec, double scale, int perClass, int augmentCount) {
  DatasetPreview p;
  try {
    const Dataset data = loadDataSource(spec, scale, "skip");
    p.size = data.size;
    p.shape = qs(shapeToString(data.sampleShape));
    p.classes = data.numClasses;
    for (const std::string& name : data.classNames) p.classNames << qs(name);
    if (data.numClasses > 0) {
      p.classCounts.fill(0, static_cast<int>(data.numClasses));
      for (int64_t i = 0; i < data.size; ++i) {
        const auto c = static_cast<int64_t>(*data.label(i));
        if (c >= 0 && c < data.numClasses) p.classCounts[static_cast<int>(c)] += 1;
      }
    }
    const auto& s = data.sampleShape;
    p.images = s.size() == 3 && (s[0] == 1 || s[0] == 3);
    if (!p.images) return p;
    const auto className = [&](int64_t c) {
      return c >= 0 && c < static_cast<int64_t>(data.classNames.size()) ? qs(data.classNames[static_cast<size_t>(c)]) : QString();
    };
    if (data.numClasses > 0) {
      // The first perClass samples of each of the first kMaxClassRows classes, in file order.
      const int rows = static_cast<int>(std::min<int64_t>(data.numClasses, kMaxClassRows));
      QVector<QList<long long>> picked(rows);
      int full = 0;
      for (int64_t i = 0; i < data.size && full < rows; ++i) {
        const auto c = static_cast<int64_t>(*data.label(i));
        if (c < 0 || c >= rows || picked[static_cast<int>(c)].size() >= perClass) continue;
        picked[static_cast<int>(c)] << i;
        if (picked[static_cast<int>(c)].size() == perClass) ++full;
      }
      for (int c = 0; c < rows; ++c) {
        ClassSamples row;
        row.label = c;
        row.name = className(c);
        row.count = static_cast<long long>(p.classCounts[c]);
        row.indices = picked[c];
        for (const long long i : picked[c]) row.images << sampleToImage(data, i);
        p.classRows << row;
      }
      // Augmentation: the first sample of each of the first classes.
      for (int c = 0; c < rows && p.augmentSources.size() < augmentCount; ++c) {
        if (picked[c].isEmpty()) continue;
        const long long i = picked[c].front();
        p.augmentSources << AugmentSource{i, className(c).isEmpty() ? QObject::tr("class %1").arg(c) : className(c),
                                          data.sampleShape, data.sampleValues(i)};
      }
    } else {
      // Vector targets: one row of the first samples.
      ClassSamples row;
      row.label = -1;
      row.name = QObject::tr("first samples");
      row.count = data.size;
      for (int64_t i = 0; i < std::min<int64_t>(perClass, data.size); ++i) {
        row.indices << i;
        row.images << sampleToImage(data, i);
      }
      p.classRows << row;
      for (int64_t i = 0; i < std::min<int64_t>(augmentCount, data.size); ++i)
        p.augmentSources << AugmentSource{i, QObject::tr("sample %1").arg(i), data.sampleShape, data.sampleValues(i)};
    }
  } catch (const std::exception& e) {
    p.error = QString::fromUtf8(e.what());
  }
  return p;
}

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

void DatasetPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  reloadPreview();
}

QString DatasetPage::previewKey() const {
  const Project p = m_doc->toProject();
  const DataSourceSpec& spec = p.dataset.training;
  return qs(spec.format + "|" + spec.images + "|" + spec.labels + "|" + spec.csv) + QString::number(p.dataset.scale);
}

void DatasetPage::reloadPreview() {
  const Project p = m_doc->toProject();
  const DataSourceSpec spec = p.dataset.training;
  const QString key = previewKey();
  if (key == m_previewKey || m_watcher.isRunning()) return;
  m_previewKey = key;
  // A project whose training file does not exist yet (an imported model's NAME.csv, a new project
  // on another machine) is waiting for its data to be chosen: that is a state, not an error.
  const std::string file = spec.format == "csv" ? spec.csv : spec.images;
  if (!file.empty() && !QFileInfo::exists(qs(file))) {
    m_summary->setText(tr("<b>Choose a dataset.</b> The project's training data, <i>%1</i>, does not exist yet: name "
                          "a CSV file (or IDX files) above, or make one from a folder of images with <b>Create from "
                          "folder…</b>.")
                           .arg(qs(file).toHtmlEscaped()));
    m_classGrid->showMessage(tr("No training data chosen yet."));
    m_augment->setSources({});
    m_balance->clearPlottables();
    m_balance->replot();
    return;
  }
  m_summary->setText(tr("Loading %1…").arg(qs(file).toHtmlEscaped()));
  const double scale = p.dataset.scale;
  m_watcher.setFuture(QtConcurrent::run([spec, scale] { return previewDataSource(spec, scale, kSamplesPerClass); }));
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

void DatasetPage::showAugmentation() {
  const Project& p = m_doc->settings();
  m_augment->setAugmentation(p.config.augmentation, p.config.seed);
  m_augmentBox->setVisible(p.config.augmentation.enabled());
}

void DatasetPage::showPreview(const DatasetPreview& p) {
  m_balance->clearPlottables();
  auto ticker = m_balance->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  ticker->clear();
  if (!p.error.isEmpty()) {
    m_summary->setText(QStringLiteral("<span style='color:#c0392b'><b>Cannot read the training data:</b> %1</span>").arg(p.error.toHtmlEscaped()));
    m_classGrid->showMessage(tr("No samples to show."));
    m_augment->setSources({});
    m_balance->replot();
    return;
  }
  QString text = tr("<b>Training:</b> %1 samples of shape <b>%2</b>").arg(QLocale().toString(p.size), p.shape);
  if (p.classes > 0) {
    const auto [lo, hi] = std::minmax_element(p.classCounts.begin(), p.classCounts.end());
    text += tr(" · %1 classes (%2 to %3 samples each)").arg(p.classes).arg(QLocale().toString(*lo), QLocale().toString(*hi));
    if (!p.classNames.isEmpty()) text += tr(", with names");  // from classes.txt or dataset.class_names
  } else {
    text += tr(" · vector targets");
  }
  m_summary->setText(text);
  if (p.classes > 0) {
    auto* bars = new QCPBars(m_balance->xAxis, m_balance->yAxis);
    QVector<double> keys;
    for (int i = 0; i < p.classCounts.size(); ++i) keys << i;
    bars->setData(keys, p.classCounts);
    bars->setWidth(0.7);
    bars->setBrush(QColor(0x1f, 0x77, 0xb4, 190));
    bars->setPen(Qt::NoPen);
    // One tick per class at its bar (every few classes when there are many), named when named.
    const int n = static_cast<int>(p.classCounts.size());
    const int step = std::max(1, (n + kMaxBalanceTicks - 1) / kMaxBalanceTicks);
    int longest = 0;
    for (int i = 0; i < n; i += step) {
      const QString name = i < p.classNames.size() ? p.classNames[i] : QString::number(i);
      ticker->addTick(i, name);
      longest = std::max(longest, static_cast<int>(name.size()));
    }
    // Names that would not fit side by side are slanted.
    const int perTick = m_balance->axisRect()->width() / std::max(1, (n + step - 1) / step);
    const int wide = QFontMetrics(m_balance->xAxis->tickLabelFont()).averageCharWidth() * longest;
    m_balance->xAxis->setTickLabelRotation(wide > perTick - 6 ? 40 : 0);
    m_balance->xAxis->setLabel(p.classNames.isEmpty() ? tr("class") : QString());
    m_balance->xAxis->setRange(-0.6, n - 0.4);
    m_balance->yAxis->setRange(0, *std::max_element(p.classCounts.begin(), p.classCounts.end()) * 1.15);
  }
  m_balance->replot();
  if (p.images)
    m_classGrid->setClasses(p.classRows, p.classes);
  else
    m_classGrid->showMessage(tr("The samples are vectors of shape %1, not images: nothing to draw.").arg(p.shape));
  m_augment->setSources(p.augmentSources);
  showAugmentation();
}

}  // namespace netsmith::gui
