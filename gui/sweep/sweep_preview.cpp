#include "gui/sweep/sweep_preview.h"

#include <algorithm>

namespace netsmith::gui {

namespace {

// "lr: 0.0001 … 1 (log)", "solver: Sgd, Momentum".
QString axisText(const SweepAxis& a) {
  const QString name = a.setting.path.section(QLatin1Char('.'), -1);
  if (!a.range) return QStringLiteral("%1: %2").arg(name, a.valueTexts().join(QStringLiteral(", ")));
  return sweepTr("%1: %2 … %3%4%5")
      .arg(name, valueText(a.range->low), valueText(a.range->high), a.range->log ? sweepTr(" (log)") : QString(),
           a.setting.integer ? sweepTr(", whole numbers") : QString());
}

QString stoppingText(std::optional<study::StopRule> rule) {
  switch (rule.value_or(study::StopRule::Asha)) {  // ASHA: the CLI's default for a search
    case study::StopRule::Off: return sweepTr("no early stop");
    case study::StopRule::Asha: return sweepTr("weak trials stopped by ASHA");
    case study::StopRule::Median: return sweepTr("weak trials stopped by the median rule");
  }
  return {};
}

}  // namespace

QString previewText(const SweepRequest& r) {
  QStringList parts;
  for (const SweepAxis& a : r.axes) parts << axisText(a);
  const auto queued = r.queuedProjects.size();
  if (queued > 0) parts << (queued == 1 ? sweepTr("1 other project") : sweepTr("%1 other projects").arg(queued));
  const int groups = std::max(1, static_cast<int>(r.devices.size()) / std::max(1, r.devicesPerTrial));
  const QString perTrial = r.devicesPerTrial > 1 ? sweepTr(" (%1 devices each)").arg(r.devicesPerTrial) : QString();
  const QString settings = parts.join(QStringLiteral("; "));
  if (r.isSearch()) {
    const QString how = r.search == study::SearchKind::Random ? sweepTr("Random search") : sweepTr("Bayesian search (TPE)");
    QString budget = sweepTr("%1 trials").arg(r.trials);
    if (r.timeBudgetMinutes > 0) budget += sweepTr(" within %1 min").arg(r.timeBudgetMinutes);
    return sweepTr("%1: %2, %3 at a time%4, %5 — %6")
        .arg(how, budget)
        .arg(std::min(groups, r.trials))
        .arg(perTrial, stoppingText(r.earlyStop), settings);
  }
  const int trainings = static_cast<int>(r.plannedRows().size());
  const QString count = trainings == 1 ? sweepTr("1 training") : sweepTr("%1 trainings").arg(trainings);
  return sweepTr("%1, %2 at a time%3 — %4").arg(count).arg(std::min(trainings, groups)).arg(perTrial, settings);
}

}  // namespace netsmith::gui
