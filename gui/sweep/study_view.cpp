#include "gui/sweep/study_view.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/sweep/importance_chart.h"
#include "gui/sweep/parallel_coordinates_plot.h"

namespace netsmith::gui {

StudyView::StudyView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("studyView"));
  m_summary = new QLabel(tr("The study's plot and each setting's importance appear here as trials end."), this);
  m_summary->setWordWrap(true);
  auto* legend = new QLabel(tr("One line per trial, coloured by its best validation error (blue low, red high); "
                               "dashed: stopped early; grey dotted: failed; thick: the selected row."),
                            this);
  legend->setWordWrap(true);
  legend->setStyleSheet(QStringLiteral("color: palette(mid);"));
  m_plot = new ParallelCoordinatesPlot(this);
  m_plot->setMinimumHeight(180);
  m_importance = new ImportanceChart(this);
  m_importance->setMinimumHeight(110);
  connect(m_plot, &ParallelCoordinatesPlot::trialClicked, this, &StudyView::trialClicked);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(m_plot);
  split->addWidget(m_importance);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(m_summary);
  layout->addWidget(legend);
  layout->addWidget(split, 1);
}

void StudyView::setStudy(const StudyLog* log, int selected) {
  if (!log || !log->definition()) {
    m_plot->setStudy({}, {}, -1);
    m_importance->setStudy({}, {});
    return;
  }
  const auto& d = *log->definition();
  const auto& trials = log->trials();
  int ended = 0, early = 0, failed = 0;
  for (const auto& t : trials) {
    ended += t.ended();
    early += t.status == "stopped_early";
    failed += t.status == "failed";
  }
  const QString search = d.search == study::SearchKind::Grid     ? tr("Grid")
                         : d.search == study::SearchKind::Random ? tr("Random search")
                                                                 : tr("Bayesian search (TPE)");
  QString text = tr("%1: %2 of %3 trials ended").arg(search).arg(ended).arg(study::plannedTrials(d));
  if (early > 0) text += tr(", %1 stopped early").arg(early);
  if (failed > 0) text += tr(", %1 failed").arg(failed);
  if (d.timeBudgetSeconds > 0) text += tr("; time budget %1 min").arg(d.timeBudgetSeconds / 60, 0, 'f', 0);
  if (!log->error().isEmpty()) text += QStringLiteral("\n") + log->error();
  m_summary->setText(text);
  m_summary->setStyleSheet(log->error().isEmpty() ? QString() : QStringLiteral("color: #b00020;"));
  m_plot->setStudy(d.parameters, trials, selected);
  m_importance->setStudy(d.parameters, trials);
}

QString StudyView::summaryText() const { return m_summary->text(); }

}  // namespace netsmith::gui
