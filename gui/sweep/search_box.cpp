#include "gui/sweep/search_box.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace netsmith::gui {

namespace {
constexpr int kQueuePage = 0, kBudgetsPage = 1;
}  // namespace

SearchBox::SearchBox(QWidget* parent) : QGroupBox(tr("Search"), parent) {
  m_search = new QComboBox(this);
  m_search->setObjectName(QStringLiteral("sweepSearch"));
  m_search->addItem(tr("Grid: every combination"), static_cast<int>(study::SearchKind::Grid));
  m_search->addItem(tr("Random"), static_cast<int>(study::SearchKind::Random));
  m_search->addItem(tr("Bayesian (TPE)"), static_cast<int>(study::SearchKind::Bayesian));
  m_search->setItemData(1, tr("Each trial draws its values at random from the ranges and lists"), Qt::ToolTipRole);
  m_search->setItemData(2, tr("After 4 random trials, each trial draws where the better trials so far lie (a tree-structured Parzen estimator)"),
                        Qt::ToolTipRole);
  m_pages = new QStackedWidget(this);
  m_pages->addWidget(buildQueue());
  m_pages->addWidget(buildBudgets());
  connect(m_search, &QComboBox::currentIndexChanged, this, [this] {
    m_pages->setCurrentIndex(search() == study::SearchKind::Grid ? kQueuePage : kBudgetsPage);
    emit edited();
  });
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_search);
  layout->addWidget(m_pages, 1);
}

QWidget* SearchBox::buildQueue() {
  auto* page = new QWidget(this);
  m_queue = new QListWidget(page);
  m_queue->setObjectName(QStringLiteral("sweepQueue"));
  // A few lines: the box stands beside the settings, and the results below need the height.
  m_queue->setMaximumHeight(90);
  m_queue->setToolTip(tr("Other projects, queued after the settings' trainings, each trained once with its own settings on the next free device"));
  auto* add = new QPushButton(tr("Queue projects…"), page);
  auto* remove = new QPushButton(tr("Remove"), page);
  connect(add, &QPushButton::clicked, this, [this] {
    const QStringList files = QFileDialog::getOpenFileNames(this, tr("Queue projects"), m_projectFolder, tr("Netsmith projects (*.nsproj)"));
    for (const QString& f : files) addQueuedProject(f);
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    delete m_queue->currentItem();
    emit edited();
  });
  auto* row = new QHBoxLayout;
  row->addWidget(add);
  row->addWidget(remove);
  row->addStretch();
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_queue, 1);
  layout->addLayout(row);
  return page;
}

QWidget* SearchBox::buildBudgets() {
  auto* page = new QWidget(this);
  m_trials = new QSpinBox(page);
  m_trials->setObjectName(QStringLiteral("sweepTrials"));
  m_trials->setRange(1, 10000);
  m_trials->setValue(12);
  m_trials->setSuffix(tr(" trials"));
  m_timeBudget = new QSpinBox(page);
  m_timeBudget->setObjectName(QStringLiteral("sweepTimeBudget"));
  m_timeBudget->setRange(0, 7 * 24 * 60);
  m_timeBudget->setSuffix(tr(" min"));
  m_timeBudget->setSpecialValueText(tr("none"));
  m_timeBudget->setToolTip(tr("After this no trial starts, and the running ones stop, keeping their checkpoints"));
  m_earlyStop = new QComboBox(page);
  m_earlyStop->setObjectName(QStringLiteral("sweepEarlyStop"));
  m_earlyStop->addItem(tr("ASHA (successive halving)"), static_cast<int>(study::StopRule::Asha));
  m_earlyStop->addItem(tr("Median rule"), static_cast<int>(study::StopRule::Median));
  m_earlyStop->addItem(tr("Off"), static_cast<int>(study::StopRule::Off));
  m_earlyStop->setItemData(0, tr("At epochs 1, 3, 9, … a trial goes on only if its validation error is within the best third of those recorded there"), Qt::ToolTipRole);
  m_earlyStop->setItemData(1, tr("A trial whose best error is worse than the median of the others' at the same epoch stops (once 3 others reached it)"), Qt::ToolTipRole);
  for (QSpinBox* b : {m_trials, m_timeBudget}) connect(b, &QSpinBox::valueChanged, this, &SearchBox::edited);
  connect(m_earlyStop, &QComboBox::currentIndexChanged, this, &SearchBox::edited);
  auto* form = new QFormLayout(page);
  form->setContentsMargins(0, 0, 0, 0);
  form->addRow(tr("Budget"), m_trials);
  form->addRow(tr("Time budget"), m_timeBudget);
  form->addRow(tr("Stop weak trials"), m_earlyStop);
  return page;
}

study::SearchKind SearchBox::search() const { return static_cast<study::SearchKind>(m_search->currentData().toInt()); }

void SearchBox::setSearch(study::SearchKind kind) { m_search->setCurrentIndex(m_search->findData(static_cast<int>(kind))); }

int SearchBox::trials() const { return m_trials->value(); }
int SearchBox::timeBudgetMinutes() const { return m_timeBudget->value(); }

std::optional<study::StopRule> SearchBox::earlyStop() const {
  const int rule = m_earlyStop->currentData().toInt();
  // ASHA is the CLI's default for a search: the command line stays short.
  if (rule == static_cast<int>(study::StopRule::Asha)) return std::nullopt;
  return static_cast<study::StopRule>(rule);
}

void SearchBox::setBudgets(int trials, int timeBudgetMinutes, std::optional<study::StopRule> rule) {
  m_trials->setValue(trials);
  m_timeBudget->setValue(timeBudgetMinutes);
  m_earlyStop->setCurrentIndex(m_earlyStop->findData(static_cast<int>(rule.value_or(study::StopRule::Asha))));
}

void SearchBox::addQueuedProject(const QString& file) {
  const QString absolute = QFileInfo(file).absoluteFilePath();
  if (!queuedProjects().contains(absolute)) {
    auto* item = new QListWidgetItem(QFileInfo(absolute).fileName(), m_queue);
    item->setData(Qt::UserRole, absolute);
    item->setToolTip(absolute);
  }
  emit edited();
}

QStringList SearchBox::queuedProjects() const {
  QStringList out;
  for (int i = 0; i < m_queue->count(); ++i) out << m_queue->item(i)->data(Qt::UserRole).toString();
  return out;
}

}  // namespace netsmith::gui
