#include "gui/evaluation/sample_browser.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/dataset/dataset_preview.h"

namespace netsmith::gui {

namespace {

enum Column { kImage, kIndex, kTrue, kPredicted, kLikelihood, kColumns };
constexpr int kThumb = 40;

// The likelihood column: a bar as long as the predicted class's likelihood (red when the sample
// is misclassified, green when right) with the value written on it.
class LikelihoodDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override {
    const double v = index.data(Qt::UserRole).toDouble();
    const bool wrong = index.data(Qt::UserRole + 1).toBool();
    painter->save();
    const QRect r = option.rect.adjusted(4, 8, -4, -8);
    painter->fillRect(r, QColor(0xee, 0xee, 0xee));
    painter->fillRect(QRect(r.left(), r.top(), static_cast<int>(r.width() * std::clamp(v, 0.0, 1.0)), r.height()),
                      wrong ? QColor(0xe0, 0x7b, 0x6e) : QColor(0x7d, 0xc3, 0x8a));
    painter->setPen(Qt::black);
    painter->drawText(r, Qt::AlignCenter, index.data(Qt::DisplayRole).toString());
    painter->restore();
  }
};

QString key(const EvaluationResult& r) {
  return r.datasetFormat + QLatin1Char('|') + r.images + QLatin1Char('|') + r.labels + QLatin1Char('|') + r.csv +
         QLatin1Char('|') + QString::number(r.scale, 'g', 17);
}

}  // namespace

SampleBrowser::SampleBrowser(QWidget* parent) : QWidget(parent) {
  m_filter = new QComboBox(this);
  m_filter->setObjectName(QStringLiteral("sampleFilter"));
  // A confusion-matrix cell adds an entry with two class names later: grow with it, not only
  // with the entries there at first show.
  m_filter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  m_filter->addItem(tr("Worst-classified"), static_cast<int>(Filter::Worst));
  m_filter->addItem(tr("Misclassified"), static_cast<int>(Filter::Misclassified));
  m_filter->addItem(tr("All samples"), static_cast<int>(Filter::All));
  m_filter->setToolTip(tr("Worst-classified: misclassified samples with the lowest likelihood for their true class first.\n"
                          "Click a cell of the confusion matrix to see its samples."));
  m_count = new QLabel(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Show"), this));
  top->addWidget(m_filter);
  top->addWidget(m_count, 1);

  m_table = new QTableWidget(0, kColumns, this);
  m_table->setObjectName(QStringLiteral("sampleTable"));
  m_table->setHorizontalHeaderLabels({tr("Image"), tr("Sample"), tr("True"), tr("Predicted"), tr("Likelihood")});
  m_table->verticalHeader()->hide();
  m_table->verticalHeader()->setDefaultSectionSize(kThumb + 6);
  m_table->setIconSize(QSize(kThumb, kThumb));
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  m_table->horizontalHeader()->setSectionResizeMode(kLikelihood, QHeaderView::Stretch);
  m_table->setItemDelegateForColumn(kLikelihood, new LikelihoodDelegate(m_table));

  m_image = new QLabel(this);
  m_image->setFixedSize(112, 112);
  m_image->setAlignment(Qt::AlignCenter);
  m_image->setStyleSheet(QStringLiteral("background:#222; color:#aaa"));
  m_caption = new QLabel(this);
  m_caption->setWordWrap(true);
  m_caption->setObjectName(QStringLiteral("sampleCaption"));
  m_likelihoods = new QCustomPlot(this);
  m_likelihoods->setMinimumHeight(120);
  m_likelihoods->yAxis->setRange(0, 1);
  m_likelihoods->yAxis->setLabel(tr("likelihood"));
  m_likelihoods->xAxis->grid()->setVisible(false);
  auto* imageRow = new QHBoxLayout;
  imageRow->addWidget(m_image);
  imageRow->addWidget(m_caption, 1);
  auto* detail = new QVBoxLayout;
  detail->addLayout(imageRow);
  detail->addWidget(m_likelihoods, 1);
  auto* body = new QHBoxLayout;
  body->addWidget(m_table, 3);
  body->addLayout(detail, 2);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(top);
  layout->addLayout(body, 1);

  connect(m_filter, &QComboBox::activated, this, [this] {
    m_cellTrue = m_cellPredicted = -1;
    if (m_filter->count() > 3) m_filter->removeItem(3);
    fillRows();
  });
  connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showDetail(row); });
  connect(&m_watcher, &QFutureWatcher<LoadedDataset>::finished, this, [this] {
    const LoadedDataset loaded = m_watcher.result();
    if (m_loadingKey != key(m_result)) return;  // an older request
    m_dataKey = loaded.data ? m_loadingKey : QString();
    m_data = loaded.data;
    m_imageError = loaded.error;
    showImages();
    showDetail(m_table->currentRow());
    emit imagesReady();
  });
}

SampleBrowser::~SampleBrowser() { m_watcher.waitForFinished(); }

SampleBrowser::Filter SampleBrowser::filter() const { return static_cast<Filter>(m_filter->currentData().toInt()); }

void SampleBrowser::clear() {
  m_result = {};
  m_rows.clear();
  m_table->setRowCount(0);
  m_count->clear();
  showDetail(-1);
}

void SampleBrowser::setResult(const EvaluationResult& result) {
  m_result = result;
  m_cellTrue = m_cellPredicted = -1;
  if (m_filter->count() > 3) m_filter->removeItem(3);
  const QString k = key(result);
  if (k != m_dataKey) {
    m_data.reset();
    m_dataKey.clear();
    m_imageError.clear();
    m_loadingKey = k;
    DataSourceSpec spec;
    spec.format = result.datasetFormat.toStdString();
    spec.images = result.images.toStdString();
    spec.labels = result.labels.toStdString();
    spec.csv = result.csv.toStdString();
    const double scale = result.scale;
    // "skip" gives the indices evaluate used: it read the rows the same way, or none were bad.
    m_watcher.setFuture(QtConcurrent::run([spec, scale] {
      LoadedDataset loaded;
      try {
        loaded.data = std::make_shared<const Dataset>(loadDataSource(spec, scale, "skip"));
      } catch (const std::exception& e) {
        loaded.error = QString::fromUtf8(e.what());
      }
      return loaded;
    }));
  }
  fillRows();
}

void SampleBrowser::setFilter(Filter filter) {
  const int i = m_filter->findData(static_cast<int>(filter));
  if (i < 0) return;
  m_filter->setCurrentIndex(i);
  if (filter != Filter::Cell) {
    m_cellTrue = m_cellPredicted = -1;
    if (m_filter->count() > 3) m_filter->removeItem(3);
  }
  fillRows();
}

void SampleBrowser::showCell(int trueClass, int predictedClass) {
  m_cellTrue = trueClass;
  m_cellPredicted = predictedClass;
  if (m_filter->count() > 3) m_filter->removeItem(3);
  m_filter->addItem(tr("True %1, predicted %2").arg(m_result.className(trueClass), m_result.className(predictedClass)),
                    static_cast<int>(Filter::Cell));
  m_filter->setCurrentIndex(3);
  fillRows();
}

void SampleBrowser::fillRows() {
  switch (filter()) {
    case Filter::Worst: m_rows = m_result.worst; break;
    case Filter::Misclassified: m_rows = readPredictions(m_result.predictionsFile, kMaxRows, true); break;
    case Filter::All: m_rows = readPredictions(m_result.predictionsFile, kMaxRows, false); break;
    case Filter::Cell: {
      m_rows.clear();
      for (const SamplePrediction& s : readPredictions(m_result.predictionsFile, 0, false))
        if (s.trueClass == m_cellTrue && s.predictedClass == m_cellPredicted && m_rows.size() < kMaxRows) m_rows << s;
      break;
    }
  }
  m_count->setText(m_rows.size() >= kMaxRows ? tr("the first %1 samples").arg(kMaxRows) : tr("%n sample(s)", nullptr, m_rows.size()));
  m_table->setRowCount(0);
  m_table->setRowCount(static_cast<int>(m_rows.size()));
  for (int r = 0; r < m_rows.size(); ++r) {
    const SamplePrediction& s = m_rows[r];
    m_table->setItem(r, kImage, new QTableWidgetItem);
    m_table->setItem(r, kIndex, new QTableWidgetItem(QString::number(s.index)));
    m_table->setItem(r, kTrue, new QTableWidgetItem(m_result.className(s.trueClass)));
    auto* predicted = new QTableWidgetItem(m_result.className(s.predictedClass));
    if (s.misclassified()) predicted->setForeground(QColor(0xc0, 0x39, 0x2b));
    m_table->setItem(r, kPredicted, predicted);
    auto* bar = new QTableWidgetItem(s.misclassified() ? tr("%1 (true class %2)")
                                                             .arg(s.predictedLikelihood(), 0, 'f', 3)
                                                             .arg(s.trueLikelihood(), 0, 'g', 2)
                                                       : QString::number(s.predictedLikelihood(), 'f', 3));
    bar->setData(Qt::UserRole, s.predictedLikelihood());
    bar->setData(Qt::UserRole + 1, s.misclassified());
    m_table->setItem(r, kLikelihood, bar);
  }
  showImages();
  if (!m_rows.isEmpty()) m_table->setCurrentCell(0, kIndex);
  else showDetail(-1);
}

void SampleBrowser::showImages() {
  if (!m_data) return;
  for (int r = 0; r < m_rows.size() && r < m_table->rowCount(); ++r) {
    const QImage img = sampleToImage(*m_data, m_rows[r].index);
    if (!img.isNull())
      m_table->item(r, kImage)->setIcon(QIcon(QPixmap::fromImage(img.scaled(kThumb, kThumb, Qt::KeepAspectRatio))));
  }
}

void SampleBrowser::showDetail(int row) {
  m_likelihoods->clearPlottables();
  if (row < 0 || row >= m_rows.size()) {
    m_image->clear();
    m_caption->clear();
    m_likelihoods->replot();
    return;
  }
  const SamplePrediction& s = m_rows[row];
  const QImage img = m_data ? sampleToImage(*m_data, s.index) : QImage();
  if (!img.isNull()) m_image->setPixmap(QPixmap::fromImage(img.scaled(m_image->size(), Qt::KeepAspectRatio, Qt::FastTransformation)));
  else m_image->setText(m_data ? tr("not an image") : m_imageError.isEmpty() ? tr("loading…") : tr("no image"));
  if (!m_imageError.isEmpty()) m_image->setToolTip(m_imageError);
  m_caption->setText(tr("<b>Sample %1</b><br>true: <b>%2</b><br>predicted: <b style='color:%3'>%4</b> (%5)")
                         .arg(s.index)
                         .arg(m_result.className(s.trueClass).toHtmlEscaped(), s.misclassified() ? QStringLiteral("#c0392b") : QStringLiteral("#1e8449"),
                              m_result.className(s.predictedClass).toHtmlEscaped())
                         .arg(s.predictedLikelihood(), 0, 'f', 3));
  // Every class's likelihood; the true class green, a wrong prediction red.
  const int n = s.likelihoods.size() == 1 ? 2 : static_cast<int>(s.likelihoods.size());
  QVector<double> keys, values, trueKey, trueValue, wrongKey, wrongValue;
  for (int c = 0; c < n; ++c) {
    const double v = s.likelihoods.size() == 1 ? (c == 1 ? s.likelihoods[0] : 1 - s.likelihoods[0]) : s.likelihoods[c];
    if (c == s.trueClass) trueKey << c, trueValue << v;
    else if (c == s.predictedClass) wrongKey << c, wrongValue << v;
    else keys << c, values << v;
  }
  auto addBars = [this](const QVector<double>& k, const QVector<double>& v, const QColor& color) {
    auto* bars = new QCPBars(m_likelihoods->xAxis, m_likelihoods->yAxis);
    bars->setWidth(0.7);
    bars->setPen(Qt::NoPen);
    bars->setBrush(color);
    bars->setData(k, v, true);
  };
  addBars(keys, values, QColor(0x99, 0x99, 0x99));
  addBars(trueKey, trueValue, QColor(0x1e, 0x84, 0x49));
  addBars(wrongKey, wrongValue, QColor(0xc0, 0x39, 0x2b));
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int c = 0; c < n; ++c) ticker->addTick(c, m_result.className(c));
  m_likelihoods->xAxis->setTicker(ticker);
  m_likelihoods->xAxis->setRange(-0.6, n - 0.4);
  m_likelihoods->replot();
}

}  // namespace netsmith::gui
