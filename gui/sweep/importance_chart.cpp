#include "gui/sweep/importance_chart.h"

#include <algorithm>
#include <numeric>

namespace netsmith::gui {

ImportanceChart::ImportanceChart(QWidget* parent) : QCustomPlot(parent) {
  setObjectName(QStringLiteral("studyImportance"));
  // Horizontal bars: the settings on the vertical (key) axis, their share on the horizontal one.
  m_bars = new QCPBars(yAxis, xAxis);
  m_bars->setWidth(0.6);
  m_bars->setPen(Qt::NoPen);
  m_bars->setBrush(QColor(0x3b, 0x6e, 0xb5));
  xAxis->setRange(0, 1.18);
  auto percent = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i <= 4; ++i) percent->addTick(i / 4.0, QStringLiteral("%1 %").arg(i * 25));
  xAxis->setTicker(percent);
  xAxis->setLabel(tr("share of the variance of the best validation error the settings explain"));
  yAxis->grid()->setVisible(false);
  m_note = new QCPItemText(this);
  m_note->setPositionAlignment(Qt::AlignCenter);
  m_note->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_note->position->setCoords(0.5, 0.5);
  m_note->setColor(QColor(0x60, 0x60, 0x60));
}

void ImportanceChart::setStudy(const std::vector<study::SearchParameter>& parameters,
                               const std::vector<study::TrialRecord>& trials) {
  std::vector<study::Observation> observed;
  for (const auto& t : trials)
    if (t.values.size() == parameters.size()) observed.push_back(t.observation());
  m_importance = study::settingImportance(parameters, observed);
  const auto scored = std::count_if(observed.begin(), observed.end(), [](const auto& o) { return o.objective.has_value(); });

  // Largest on top: the key axis counts upwards.
  std::vector<size_t> order(m_importance.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m_importance[a].share < m_importance[b].share; });
  auto names = QSharedPointer<QCPAxisTickerText>::create();
  QVector<double> keys, values;
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& s = m_importance[order[k]];
    names->addTick(static_cast<double>(k + 1), QString::fromStdString(s.name));
    keys << static_cast<double>(k + 1);
    values << s.share;
  }
  yAxis->setTicker(names);
  yAxis->setRange(0.4, static_cast<double>(order.size()) + 0.6);
  clearItems();  // the value labels of the last call (m_note is made again below)
  m_note = new QCPItemText(this);
  m_note->setPositionAlignment(Qt::AlignCenter);
  m_note->position->setType(QCPItemPosition::ptAxisRectRatio);
  m_note->position->setCoords(0.5, 0.5);
  m_note->setColor(QColor(0x60, 0x60, 0x60));
  const double total = std::accumulate(values.begin(), values.end(), 0.0);
  if (static_cast<size_t>(scored) < study::kMinImportanceTrials) {
    m_note->setText(tr("Importance needs %1 trials with a validation error (%2 so far)").arg(study::kMinImportanceTrials).arg(scored));
    m_bars->data()->clear();
  } else {
    m_bars->setData(keys, values, true);
    m_note->setText(total > 0 ? QString() : tr("No setting explains the differences between the trials' errors"));
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& s = m_importance[order[k]];
      auto* label = new QCPItemText(this);
      // Inside a long bar (white), after a short one.
      const bool inside = s.share > 0.7;
      label->position->setCoords(inside ? s.share - 0.02 : s.share + 0.02, static_cast<double>(k + 1));
      label->setPositionAlignment((inside ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
      if (inside) label->setColor(Qt::white);
      label->setText(tr("%1 %  (ε² %2)").arg(s.share * 100, 0, 'f', 0).arg(s.explained, 0, 'f', 2));
    }
  }
  replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace netsmith::gui
