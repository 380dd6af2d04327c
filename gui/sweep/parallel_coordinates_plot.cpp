#include "gui/sweep/parallel_coordinates_plot.h"

#include <algorithm>
#include <cmath>

#include "gui/sweep/sweep_request.h"

namespace netsmith::gui {

namespace {

constexpr double kFailedPlace = 1.08;  // above the error axis' top

// Blue for the lowest error of the study, red for the highest.
QColor errorColour(double t) {
  static QCPColorGradient gradient = [] {  // color() is not const (it caches its table)
    QCPColorGradient g;
    g.setColorStopAt(0.0, QColor(0x1f, 0x4e, 0xa8));
    g.setColorStopAt(0.5, QColor(0x9b, 0x6f, 0xb5));
    g.setColorStopAt(1.0, QColor(0xd9, 0x3a, 0x1e));
    return g;
  }();
  return QColor::fromRgb(gradient.color(t, QCPRange(0, 1)));
}

QString numberLabel(double v) { return QString::number(v, 'g', 3); }

}  // namespace

double ParallelCoordinatesPlot::Axis::place(const nlohmann::json& value) const {
  if (!categories.isEmpty()) {
    const int i = categories.indexOf(valueTextOf(value));
    if (i < 0) return std::nan("");
    return categories.size() == 1 ? 0.5 : static_cast<double>(i) / (categories.size() - 1);
  }
  if (!value.is_number()) return std::nan("");
  const double v = value.get<double>();
  if (log && (v <= 0 || low <= 0)) return std::nan("");
  const double lo = log ? std::log10(low) : low, hi = log ? std::log10(high) : high;
  if (hi <= lo) return 0.5;
  return ((log ? std::log10(v) : v) - lo) / (hi - lo);
}

std::vector<std::pair<double, QString>> ParallelCoordinatesPlot::Axis::ticks() const {
  std::vector<std::pair<double, QString>> out;
  if (!categories.isEmpty()) {
    for (int i = 0; i < categories.size(); ++i)
      out.emplace_back(categories.size() == 1 ? 0.5 : static_cast<double>(i) / (categories.size() - 1), categories[i]);
    return out;
  }
  if (log && low > 0 && high > low) {
    for (double decade = std::ceil(std::log10(low)); decade <= std::floor(std::log10(high)) + 1e-9; ++decade)
      out.emplace_back(place(std::pow(10.0, decade)), numberLabel(std::pow(10.0, decade)));
    if (out.size() >= 2) return out;
    out.clear();
  }
  for (int i = 0; i <= 4; ++i) {
    const double v = log ? std::pow(10.0, std::log10(low) + (std::log10(high) - std::log10(low)) * i / 4.0)
                         : low + (high - low) * i / 4.0;
    out.emplace_back(i / 4.0, numberLabel(v));
  }
  return out;
}

ParallelCoordinatesPlot::Axis ParallelCoordinatesPlot::axisFor(const study::SearchParameter& p) {
  Axis a;
  a.title = QString::fromStdString(p.name());
  if (p.numeric()) {
    a.log = p.log;
    a.low = p.low;
    a.high = p.high;
    return a;
  }
  // A list of numbers (a grid's --set) is a numeric axis, log when it spans two decades or more.
  const bool numbers = std::all_of(p.choices.begin(), p.choices.end(), [](const auto& c) { return c.is_number(); });
  if (numbers && p.choices.size() >= 2) {
    std::vector<double> v;
    for (const auto& c : p.choices) v.push_back(c.template get<double>());
    a.low = *std::min_element(v.begin(), v.end());
    a.high = *std::max_element(v.begin(), v.end());
    a.log = a.low > 0 && a.high / a.low >= 100;
    if (a.high > a.low) return a;
  }
  for (const auto& c : p.choices) a.categories << valueTextOf(c);
  return a;
}

ParallelCoordinatesPlot::ParallelCoordinatesPlot(QWidget* parent) : QCustomPlot(parent) {
  setObjectName(QStringLiteral("studyParallelCoordinates"));
  yAxis->setVisible(false);
  xAxis->grid()->setVisible(false);
  xAxis->setBasePen(Qt::NoPen);
  xAxis->setTickPen(Qt::NoPen);
  xAxis->setSubTickPen(Qt::NoPen);
  QFont bold = font();
  bold.setBold(true);
  xAxis->setTickLabelFont(bold);
  axisRect()->setAutoMargins(QCP::msBottom | QCP::msTop);
  axisRect()->setMargins(QMargins(8, 8, 8, 8));
  setInteractions(QCP::iSelectPlottables);
  connect(this, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* p, int, QMouseEvent*) {
    // Found first, emitted after: selecting the row redraws the plot, which remakes m_lines.
    int clicked = -1;
    for (const auto& [index, line] : m_lines)
      if (line == p) clicked = index;
    if (clicked >= 0) emit trialClicked(clicked);
  });
}

void ParallelCoordinatesPlot::setStudy(const std::vector<study::SearchParameter>& parameters,
                                       const std::vector<study::TrialRecord>& trials, int selected) {
  clearGraphs();
  clearItems();
  m_lines.clear();
  m_axes.clear();
  for (const auto& p : parameters) m_axes.push_back(axisFor(p));
  Axis error;
  error.title = tr("best val. error");
  std::vector<double> errors;
  for (const auto& t : trials)
    if (auto e = t.bestError(); e && t.status != "failed") errors.push_back(*e);
  if (!errors.empty()) {
    error.low = *std::min_element(errors.begin(), errors.end());
    error.high = *std::max_element(errors.begin(), errors.end());
    if (error.high - error.low < 1e-9) error.high = error.low + 0.01;
  }
  m_axes.push_back(error);
  const bool anyFailed = std::any_of(trials.begin(), trials.end(), [](const auto& t) { return t.status == "failed"; });
  drawAxes(anyFailed);

  // The selected trial last: on top of the others.
  std::vector<const study::TrialRecord*> order;
  for (const auto& t : trials)
    if (t.index != selected) order.push_back(&t);
  for (const auto& t : trials)
    if (t.index == selected) order.push_back(&t);
  const size_t last = m_axes.size() - 1;
  for (const study::TrialRecord* t : order) {
    if (t->values.size() != parameters.size()) continue;  // a queued project: not a point of the space
    QVector<double> keys, places;
    for (size_t k = 0; k < parameters.size(); ++k) {
      keys << static_cast<double>(k);
      places << m_axes[k].place(t->values[k]);
    }
    const bool failed = t->status == "failed";
    const auto best = t->bestError();
    keys << static_cast<double>(last);
    places << (failed || !best ? kFailedPlace : m_axes[last].place(*best));
    auto* line = addGraph();
    line->setData(keys, places, true);
    line->setLineStyle(QCPGraph::lsLine);
    line->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    const double t01 = best && !failed ? std::clamp(places.back(), 0.0, 1.0) : 1.0;
    QPen pen(failed || !best ? QColor(0x9e, 0x9e, 0x9e) : errorColour(t01));
    pen.setWidthF(1.6);
    if (t->stoppedEarly || t->status == "stopped_early") pen.setStyle(Qt::DashLine);
    if (failed) pen.setStyle(Qt::DotLine);
    if (!t->ended()) pen.setWidthF(1.0);
    if (t->index == selected) {
      pen.setWidthF(4.0);
      pen.setStyle(Qt::SolidLine);
    }
    line->setPen(pen);
    line->setSelectable(QCP::stNone);
    line->setName(tr("trial %1").arg(t->index + 1));
    m_lines[static_cast<int>(t->index)] = line;
  }
  replot(QCustomPlot::rpQueuedReplot);
}

void ParallelCoordinatesPlot::drawAxes(bool anyFailed) {
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const double last = static_cast<double>(m_axes.size() - 1);
  for (size_t k = 0; k < m_axes.size(); ++k) {
    const Axis& a = m_axes[k];
    const double x = static_cast<double>(k);
    ticker->addTick(x, a.log ? a.title + tr(" (log)") : a.title);
    auto* line = new QCPItemLine(this);
    line->start->setCoords(x, 0);
    line->end->setCoords(x, 1);
    line->setPen(QPen(QColor(0x60, 0x60, 0x60), 1.2));
    const bool isError = k + 1 == m_axes.size();
    auto ticks = a.ticks();
    if (isError) {
      ticks.clear();
      for (int i = 0; i <= 4; ++i) ticks.emplace_back(i / 4.0, QStringLiteral("%1 %").arg((a.low + (a.high - a.low) * i / 4.0) * 100, 0, 'f', 1));
    }
    for (const auto& [place, label] : ticks) {
      auto* text = new QCPItemText(this);
      text->position->setCoords(x + 0.03, place);
      text->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      text->setText(label);
      text->setColor(QColor(0x40, 0x40, 0x40));
      text->setClipToAxisRect(false);
      auto* mark = new QCPItemLine(this);
      mark->start->setCoords(x - 0.02, place);
      mark->end->setCoords(x, place);
      mark->setPen(QPen(QColor(0x60, 0x60, 0x60)));
    }
    if (isError && anyFailed) {
      auto* failed = new QCPItemText(this);
      failed->position->setCoords(x + 0.03, kFailedPlace);
      failed->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      failed->setText(tr("failed"));
      failed->setColor(QColor(0x9e, 0x9e, 0x9e));
    }
  }
  xAxis->setTicker(ticker);
  xAxis->setRange(-0.12, last + 0.45);
  yAxis->setRange(-0.06, kFailedPlace + 0.06);
}

QCPGraph* ParallelCoordinatesPlot::lineOf(int index) const {
  const auto it = m_lines.find(index);
  return it == m_lines.end() ? nullptr : it->second;
}

int ParallelCoordinatesPlot::lineCount() const { return static_cast<int>(m_lines.size()); }

QStringList ParallelCoordinatesPlot::axisTitles() const {
  QStringList out;
  for (const Axis& a : m_axes) out << a.title;
  return out;
}

}  // namespace netsmith::gui
