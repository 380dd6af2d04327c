#include "gui/evaluation/confusion_matrix_plot.h"

#include <qcustomplot.h>

#include <QVBoxLayout>

namespace netsmith::gui {

ConfusionMatrixPlot::ConfusionMatrixPlot(QWidget* parent) : QWidget(parent) {
  m_plot = new QCustomPlot(this);
  m_plot->setObjectName(QStringLiteral("confusionMatrix"));
  m_plot->setMinimumSize(300, 300);
  m_map = new QCPColorMap(m_plot->xAxis, m_plot->yAxis);
  m_map->setInterpolate(false);
  m_map->setTightBoundary(false);  // each cell spans ±0.5 around its class
  QCPColorGradient gradient;
  gradient.setColorStopAt(0, QColor(0xf7, 0xfb, 0xff));
  gradient.setColorStopAt(0.5, QColor(0x6b, 0xae, 0xd6));
  gradient.setColorStopAt(1, QColor(0x08, 0x30, 0x6b));
  m_map->setGradient(gradient);
  m_map->setDataRange(QCPRange(0, 1));
  m_plot->yAxis->setRangeReversed(true);  // true class 0 on the top row
  m_plot->xAxis->setLabel(tr("Predicted class"));
  m_plot->yAxis->setLabel(tr("True class"));
  m_plot->xAxis->grid()->setVisible(false);
  m_plot->yAxis->grid()->setVisible(false);
  m_plot->xAxis->setTickLabelRotation(-45);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_plot);
  connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    double key = 0, value = 0;
    m_map->pixelsToCoords(e->position(), key, value);
    const int p = qRound(key), t = qRound(value);
    if (t >= 0 && t < m_counts.size() && p >= 0 && p < m_counts[t].size()) emit cellClicked(t, p);
  });
}

void ConfusionMatrixPlot::clear() {
  m_counts.clear();
  m_plot->clearItems();
  m_map->data()->clear();
  m_plot->replot();
}

void ConfusionMatrixPlot::setMatrix(const QVector<QVector<long long>>& counts, const QStringList& names) {
  m_counts = counts;
  m_plot->clearItems();
  const int n = static_cast<int>(counts.size());
  m_map->data()->setSize(n, n);
  m_map->data()->setRange(QCPRange(0, std::max(0, n - 1)), QCPRange(0, std::max(0, n - 1)));
  // Small matrices get large digits; 30 classes still fit a label per cell.
  QFont font = m_plot->font();
  font.setPointSizeF(n <= 10 ? 9 : n <= 20 ? 7 : 5.5);
  for (int t = 0; t < n; ++t) {
    long long row = 0;
    for (long long c : counts[t]) row += c;
    for (int p = 0; p < n; ++p) {
      const long long count = p < counts[t].size() ? counts[t][p] : 0;
      const double share = row > 0 ? static_cast<double>(count) / row : 0;
      m_map->data()->setCell(p, t, share);
      auto* label = new QCPItemText(m_plot);
      label->position->setType(QCPItemPosition::ptPlotCoords);
      label->position->setCoords(p, t);
      label->setText(QString::number(count));
      label->setFont(font);
      label->setColor(share > 0.45 ? Qt::white : count == 0 ? QColor(0xb0, 0xb0, 0xb0) : Qt::black);
      label->setClipToAxisRect(true);
    }
  }
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < n; ++i) ticker->addTick(i, i < names.size() ? names[i] : QString::number(i));
  m_plot->xAxis->setTicker(ticker);
  m_plot->yAxis->setTicker(ticker);
  m_plot->xAxis->setRange(-0.5, n - 0.5);
  m_plot->yAxis->setRange(-0.5, n - 0.5);
  m_plot->replot();
}

QString ConfusionMatrixPlot::cellText(int trueClass, int predictedClass) const {
  for (int i = 0; i < m_plot->itemCount(); ++i) {
    auto* label = qobject_cast<QCPItemText*>(m_plot->item(i));
    if (!label) continue;
    const QPointF c = label->position->coords();
    if (qRound(c.x()) == predictedClass && qRound(c.y()) == trueClass) return label->text();
  }
  return {};
}

double ConfusionMatrixPlot::cellValue(int trueClass, int predictedClass) const {
  return m_map->data()->cell(predictedClass, trueClass);
}

}  // namespace netsmith::gui
