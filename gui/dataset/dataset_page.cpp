#include "gui/dataset/dataset_page.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QtConcurrent/QtConcurrentRun>

#include "engine/project/project_io.h"
#include "gui/app/field_cell.h"
#include "gui/document/settings_edit.h"

namespace netsmith::gui {

QImage sampleToImage(const Dataset& data, int64_t i) {
  // Images: (1,H,W) or (3,H,W), shown with their own min/max so any scale displays.
  const auto& s = data.sampleShape;
  if (s.size() != 3 || (s[0] != 1 && s[0] != 3) || i < 0 || i >= data.size) return {};
  const std::vector<float> values = data.sampleValues(i);
  const float* x = values.data();
  const int64_t h = s[1], w = s[2], plane = h * w;
  float lo = x[0], hi = x[0];
  for (int64_t k = 0; k < data.sampleNumel(); ++k) lo = std::min(lo, x[k]), hi = std::max(hi, x[k]);
  const float range = hi > lo ? hi - lo : 1;
  QImage img(static_cast<int>(w), static_cast<int>(h), QImage::Format_RGB32);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t xx = 0; xx < w; ++xx) {
      auto v = [&](int c) { return static_cast<int>(255 * (x[c * plane + y * w + xx] - lo) / range); };
      img.setPixel(static_cast<int>(xx), static_cast<int>(y), s[0] == 3 ? qRgb(v(0), v(1), v(2)) : qRgb(v(0), v(0), v(0)));
    }
  return img;
}

DatasetPreview previewDataSource(const DataSourceSpec& spec, double scale, int sampleCount) {
  DatasetPreview p;
  try {
    const Dataset data = loadDataSource(spec, scale, "skip");
    p.size = data.size;
    p.shape = qs(shapeToString(data.sampleShape));
    p.classes = data.numClasses;
    if (data.numClasses > 0) {
      p.classCounts.fill(0, static_cast<int>(data.numClasses));
      for (int64_t i = 0; i < data.size; ++i) {
        const auto c = static_cast<int64_t>(*data.label(i));
        if (c >= 0 && c < data.numClasses) p.classCounts[static_cast<int>(c)] += 1;
      }
    }
    const auto& s = data.sampleShape;
    const bool image = s.size() == 3 && (s[0] == 1 || s[0] == 3);
    for (int64_t i = 0; image && i < std::min<int64_t>(sampleCount, data.size); ++i) {
      p.samples << sampleToImage(data, i);
      p.labels << (data.labelWidth == 1 ? QString::number(*data.label(i)) : QStringLiteral("…"));
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
  scale->setToolTip(tr("Multiplies every input value (1/255 = 0.00392 for 8-bit images)."));
  connect(scale, &QLineEdit::textEdited, this, [this](const QString& t) { edited(QStringLiteral("dataset.scale"), valueFromText(t)); });
  auto* shuffle = new QCheckBox(tr("reshuffle the training set every epoch"), this);
  connect(shuffle, &QCheckBox::toggled, this, [this](bool on) { edited(QStringLiteral("dataset.shuffle"), Json(on)); });
  m_editors.insert(QStringLiteral("dataset.scale"), scale);
  m_editors.insert(QStringLiteral("dataset.shuffle"), shuffle);
  auto* scaleError = new QLabel(this);
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
  auto* reload = new QPushButton(tr("Reload preview"), this);
  connect(reload, &QPushButton::clicked, this, [this] {
    m_previewKey.clear();
    reloadPreview();
  });

  m_balance = new QCustomPlot(this);
  m_balance->setMinimumSize(360, 260);
  m_balance->xAxis->setLabel(tr("class"));
  m_balance->yAxis->setLabel(tr("samples"));
  m_balance->plotLayout()->insertRow(0);
  m_balance->plotLayout()->addElement(0, 0, new QCPTextElement(m_balance, tr("Class balance (training)"),
                                                               QFont(font().family(), font().pointSize(), QFont::Bold)));
  m_gridHost = new QWidget(this);
  m_grid = new QGridLayout(m_gridHost);
  m_grid->setSpacing(6);
  auto* samplesBox = new QGroupBox(tr("Samples (training, first 32)"), this);
  (new QVBoxLayout(samplesBox))->addWidget(m_gridHost);

  auto* previewRow = new QHBoxLayout;
  previewRow->addWidget(m_balance, 1);
  previewRow->addWidget(samplesBox, 1);

  auto* summaryRow = new QHBoxLayout;
  summaryRow->addWidget(m_summary, 1);
  summaryRow->addWidget(reload);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(sources);
  layout->addLayout(summaryRow);
  layout->addLayout(previewRow, 1);

  connect(&m_watcher, &QFutureWatcher<DatasetPreview>::finished, this, [this] {
    showPreview(m_watcher.result());
    emit previewReady();
  });
  connect(doc, &ProjectDocument::settingsChanged, this, [this] {
    showValues();
    if (isVisible()) reloadPreview();
  });
  connect(doc, &ProjectDocument::loaded, this, [this] {
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
  connect(format, &QComboBox::activated, this, [this, base, format, which] {
    const QString f = format->currentData().toString();
    if (f.isEmpty()) return edited(base, Json());
    Json source = settingValue(*m_doc, base);
    if (!source.is_object()) source = Json::object();
    source["format"] = ss(f);
    // Keep only the keys of the chosen format; the user fills the paths next.
    Json fresh = {{"format", ss(f)}};
    for (const char* key : {"images", "labels", "csv"})
      if (source.contains(key)) fresh[key] = source[key];
    if (f == QLatin1String("csv")) fresh.erase("images"), fresh.erase("labels");
    else fresh.erase("csv");
    if (f == QLatin1String("csv") && !fresh.contains("csv")) fresh["csv"] = "";
    if (f == QLatin1String("idx")) {
      if (!fresh.contains("images")) fresh["images"] = "";
      if (!fresh.contains("labels")) fresh["labels"] = "";
    }
    edited(base, fresh);
    Q_UNUSED(which);
  });
  m_editors.insert(base + QStringLiteral(".format"), format);
  form->addRow(tr("Format"), format);
  for (const char* key : {"images", "labels", "csv"}) {
    const QString path = base + QStringLiteral(".") + QLatin1String(key);
    auto* line = new QLineEdit(this);
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
    form->addRow(QLatin1String(key), field.cell);
    m_editors.insert(path, line);
    m_errors.insert(path, field.error);
  }
  return box;
}

void DatasetPage::edited(const QString& path, const Json& value) {
  if (m_showing) return;
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
    std::string p = "/" + ss(path);
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
  m_showing = false;
}

void DatasetPage::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  reloadPreview();
}

void DatasetPage::reloadPreview() {
  const Project p = m_doc->toProject();
  const DataSourceSpec spec = p.dataset.training;
  const QString key = qs(spec.format + "|" + spec.images + "|" + spec.labels + "|" + spec.csv) + QString::number(p.dataset.scale);
  if (key == m_previewKey || m_watcher.isRunning()) return;
  m_previewKey = key;
  m_summary->setText(tr("Loading %1…").arg(qs(spec.format == "csv" ? spec.csv : spec.images).toHtmlEscaped()));
  const double scale = p.dataset.scale;
  m_watcher.setFuture(QtConcurrent::run([spec, scale] { return previewDataSource(spec, scale, 32); }));
}

QString DatasetPage::summaryText() const { return m_summary->text(); }

void DatasetPage::showPreview(const DatasetPreview& p) {
  while (QLayoutItem* item = m_grid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_balance->clearPlottables();
  if (!p.error.isEmpty()) {
    m_summary->setText(QStringLiteral("<span style='color:#c0392b'><b>Cannot read the training data:</b> %1</span>").arg(p.error.toHtmlEscaped()));
    m_balance->replot();
    return;
  }
  QString text = tr("<b>Training:</b> %1 samples of shape <b>%2</b>").arg(QLocale().toString(p.size), p.shape);
  if (p.classes > 0) {
    const auto [lo, hi] = std::minmax_element(p.classCounts.begin(), p.classCounts.end());
    text += tr(" · %1 classes (%2 to %3 samples each)").arg(p.classes).arg(*lo).arg(*hi);
  } else {
    text += tr(" · vector targets");
  }
  m_summary->setText(text);
  if (p.classes > 0) {
    auto* bars = new QCPBars(m_balance->xAxis, m_balance->yAxis);
    QVector<double> keys;
    for (int i = 0; i < p.classCounts.size(); ++i) keys << i;
    bars->setData(keys, p.classCounts);
    bars->setBrush(QColor(0x1f, 0x77, 0xb4, 190));
    bars->setPen(Qt::NoPen);
    m_balance->xAxis->setRange(-0.7, p.classCounts.size() - 0.3);
    m_balance->yAxis->setRange(0, *std::max_element(p.classCounts.begin(), p.classCounts.end()) * 1.15);
  }
  m_balance->replot();
  constexpr int kColumns = 8;
  for (int i = 0; i < p.samples.size(); ++i) {
    auto* cell = new QLabel(m_gridHost);
    cell->setPixmap(QPixmap::fromImage(p.samples[i].scaled(56, 56, Qt::KeepAspectRatio, Qt::FastTransformation)));
    auto* label = new QLabel(p.labels[i], m_gridHost);
    label->setAlignment(Qt::AlignCenter);
    m_grid->addWidget(cell, (i / kColumns) * 2, i % kColumns, Qt::AlignCenter);
    m_grid->addWidget(label, (i / kColumns) * 2 + 1, i % kColumns, Qt::AlignCenter);
  }
}

}  // namespace netsmith::gui
