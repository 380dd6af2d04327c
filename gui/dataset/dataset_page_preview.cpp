// DatasetPage (dataset_page.h): the preview of the training data, loaded off the GUI thread
// (dataset_preview.h) and shown as the summary line, the class balance, the class grid and what
// config.augmentation does to a few samples.
#include <qcustomplot.h>

#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "gui/dataset/dataset_page.h"

namespace netsmith::gui {

namespace {
constexpr int kPreviewSamplesPerClass = 8;
constexpr int kMaxBalanceTicks = 30;  // more classes: a tick every few classes
}  // namespace

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
  m_watcher.setFuture(QtConcurrent::run([spec, scale] { return previewDataSource(spec, scale, kPreviewSamplesPerClass); }));
}

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
