// The Sweep dialog's "Search" box: how the trials get their values — Grid (every combination of
// the listed values, and other projects queued to train once each), Random, or Bayesian (TPE) —
// and, for a random or Bayesian search, its budgets (the most trials, the most time) and the rule
// that stops weak trials early (engine/study/trial_stopping.h: ASHA, the median rule, or none).
#pragma once

#include <QGroupBox>
#include <optional>

#include "engine/study/samplers.h"
#include "engine/study/trial_stopping.h"

class QComboBox;
class QListWidget;
class QSpinBox;
class QStackedWidget;

namespace netsmith::gui {

class SearchBox : public QGroupBox {
  Q_OBJECT
 public:
  explicit SearchBox(QWidget* parent = nullptr);

  study::SearchKind search() const;
  void setSearch(study::SearchKind kind);
  // Random and Bayesian: the trial budget, the time budget in minutes (0: none) and the rule
  // (nullopt: the CLI's default for the search, ASHA).
  int trials() const;
  int timeBudgetMinutes() const;
  std::optional<study::StopRule> earlyStop() const;
  void setBudgets(int trials, int timeBudgetMinutes, std::optional<study::StopRule> rule);

  // Grid: other projects, each trained once. `folder` is where Add… starts.
  void addQueuedProject(const QString& file);
  QStringList queuedProjects() const;
  void setProjectFolder(const QString& folder) { m_projectFolder = folder; }

 signals:
  void edited();

 private:
  QWidget* buildQueue();
  QWidget* buildBudgets();

  QComboBox* m_search;
  QStackedWidget* m_pages;
  QListWidget* m_queue;
  QSpinBox* m_trials;
  QSpinBox* m_timeBudget;
  QComboBox* m_earlyStop;
  QString m_projectFolder;
};

}  // namespace netsmith::gui
