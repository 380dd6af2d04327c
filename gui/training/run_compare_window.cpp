#include "gui/training/run_compare_window.h"

#include <qcustomplot.h>

#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "engine/train/run_diff.h"
#include "gui/training/chart_colors.h"
#include "gui/training/chart_export.h"
#include "gui/training/chart_style.h"
#include "gui/training/learning_curve_chart.h"

namespace netsmith::gui {

namespace {

QString text(const std::string& s) { return QString::fromStdString(s); }

// The compared runs' words for each group's heading: why a group says nothing.
QString groupTitle(const QString& group, int rows, bool compared) {
  if (!compared) return QObject::tr("%1: compared between two runs only").arg(group);
  if (rows == 0) return QObject::tr("%1: no differences").arg(group);
  return QObject::tr("%1 (%n difference(s))", nullptr, rows).arg(group);
}

}  // namespace

RunCompareWindow::RunCompareWindow(const QString& folderA, const QString& nameA, const QString& folderB,
                                   const QString& nameB, QWidget* parent)
    : QWidget(parent, Qt::Window) {
  setAttribute(Qt::WA_DeleteOnClose);
  setObjectName(QStringLiteral("runCompareWindow"));
  setWindowTitle(tr("Compare runs: %1 → %2").arg(nameA, nameB));

  m_heading = new QLabel(this);
  m_heading->setObjectName(QStringLiteral("compareHeading"));
  m_heading->setTextFormat(Qt::RichText);
  m_heading->setWordWrap(true);
  const auto side = [](const QString& letter, const QString& name, const QString& folder, int slot) {
    return QStringLiteral("<b>%1</b> <span style='color:%2'>&#9632;</span> %3 <span style='color:gray'>%4</span>")
        .arg(letter, overlayColor(slot).name(), name.toHtmlEscaped(), QDir::toNativeSeparators(folder).toHtmlEscaped());
  };
  m_heading->setText(side(QStringLiteral("A"), nameA, folderA, 0) + QStringLiteral("<br>") +
                     side(QStringLiteral("B"), nameB, folderB, 1) + QStringLiteral("<br><span style='color:gray'>") +
                     tr("Only what differs is listed. On the chart: training loss dotted, validation error "
                        "dash-dotted (right axis).") +
                     QStringLiteral("</span>"));

  m_table = new QTreeWidget(this);
  m_table->setObjectName(QStringLiteral("differences"));
  m_table->setColumnCount(3);
  m_table->setHeaderLabels({tr("Setting"), QStringLiteral("A"), QStringLiteral("B")});
  m_table->setRootIsDecorated(false);
  m_table->setAlternatingRowColors(true);
  m_table->setTextElideMode(Qt::ElideMiddle);  // a long dataset path keeps its start and its file name
  m_table->setUniformRowHeights(true);

  m_plot = new QCustomPlot(this);
  m_plot->setObjectName(QStringLiteral("compareCurves"));
  m_plot->setMinimumSize(320, 240);
  m_chart = new LearningCurveChart(m_plot, LearningCurveChart::Use::Comparison);
  m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  installChartMenu(m_plot, tr("run-comparison"), [this] {
    m_chart->flush(false);
    m_plot->replot();
  });
  fitTickCounts(m_plot);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->setChildrenCollapsible(false);
  splitter->addWidget(m_table);
  splitter->addWidget(m_plot);
  m_splitter = splitter;
  splitter->setStretchFactor(0, 0);  // a wider window widens the chart
  splitter->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_heading);
  layout->addWidget(splitter, 1);

  fillDifferences(folderA, folderB);

  CurvePoints a = readLearningCurve(folderA), b = readLearningCurve(folderB);
  a.label = QStringLiteral("A · ") + nameA;
  b.label = QStringLiteral("B · ") + nameB;
  a.colorSlot = 0;
  b.colorSlot = 1;
  m_chart->setOverlays({a, b});
  m_chart->flush(false);
  resize(1200, 640);
}

RunCompareWindow::~RunCompareWindow() { delete m_chart; }

void RunCompareWindow::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (m_sized) return;
  m_sized = true;
  // The table as wide as its columns (up to half the window), the chart the rest: a curve needs
  // the width, and a table wider than its texts only spreads them apart.
  int columns = 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width() + 4;
  for (int c = 0; c < m_table->columnCount(); ++c) columns += m_table->columnWidth(c);
  const int total = m_splitter->width();
  const int table = std::min(columns, total / 2);
  m_splitter->setSizes({table, total - table});
}

void RunCompareWindow::fillDifferences(const QString& folderA, const QString& folderB) {
  RunDiff diff;
  try {
    const ComparedRun a = readComparedRun(folderA.toStdString());
    const ComparedRun b = readComparedRun(folderB.toStdString());
    diff = diffRuns(a, b);
  } catch (const std::exception& e) {
    m_error = QString::fromUtf8(e.what());
    auto* item = new QTreeWidgetItem(m_table, {tr("Cannot compare: %1").arg(m_error)});
    item->setForeground(0, QColor(0xb0, 0x20, 0x20));
    item->setToolTip(0, m_error);
    item->setFirstColumnSpanned(true);
    return;
  }
  const std::vector<DiffRow> rows = diffRows(diff);
  for (const char* groupName : kDiffGroups) {
    const QString group = text(groupName);
    const bool compared = diff.runsCompared || (group != QLatin1String("Run") && group != QLatin1String("Result"));
    int count = 0;
    for (const DiffRow& r : rows) count += r.group == groupName;
    auto* heading = new QTreeWidgetItem(m_table, {groupTitle(tr(groupName), count, compared)});
    QFont bold = heading->font(0);
    bold.setBold(true);
    heading->setFont(0, bold);
    heading->setFirstColumnSpanned(true);
    if (count == 0) heading->setForeground(0, QColor(Qt::gray));
    for (const DiffRow& r : rows) {
      if (r.group != groupName) continue;
      auto* item = new QTreeWidgetItem(heading, {text(r.setting), text(r.a), text(r.b)});
      for (int c = 0; c < 3; ++c) item->setToolTip(c, item->text(c));
    }
    heading->setExpanded(true);
  }
  // Each column as wide as its texts, within bounds: a long value (a dataset path) is elided in its
  // middle and whole in its tooltip.
  const int maxWidth[] = {280, 200, 200};
  for (int c = 0; c < 3; ++c) {
    m_table->resizeColumnToContents(c);
    m_table->setColumnWidth(c, std::clamp(m_table->columnWidth(c) + 12, 60, maxWidth[c]));
  }
}

}  // namespace netsmith::gui
