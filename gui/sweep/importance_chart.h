// The study view's importance bars: one horizontal bar per setting, its share of what the
// settings explain of the variance of the trials' best validation errors (engine/study/
// setting_importance.h, Note [Setting importance]), the largest on top. With fewer than
// study::kMinImportanceTrials trials with an error it says how many more it needs instead.
#pragma once

#include <qcustomplot.h>

#include <vector>

#include "engine/study/setting_importance.h"
#include "engine/study/study_folder.h"

namespace netsmith::gui {

class ImportanceChart : public QCustomPlot {
  Q_OBJECT
 public:
  explicit ImportanceChart(QWidget* parent = nullptr);

  void setStudy(const std::vector<study::SearchParameter>& parameters, const std::vector<study::TrialRecord>& trials);
  // The figures shown (one per setting, in the study's order); empty before setStudy.
  const std::vector<study::SettingImportance>& importance() const { return m_importance; }
  QCPBars* bars() const { return m_bars; }
  // The sentence shown instead of bars ("" when the bars are shown).
  QString note() const { return m_note->text(); }

 private:
  QCPBars* m_bars;
  QCPItemText* m_note;
  std::vector<study::SettingImportance> m_importance;
};

}  // namespace netsmith::gui
