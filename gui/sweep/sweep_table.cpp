#include "gui/sweep/sweep_table.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QFont>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <limits>

namespace netsmith::gui {

namespace {

QString percentText(const std::optional<double>& v) { return v ? QStringLiteral("%1 %").arg(*v * 100, 0, 'f', 2) : QString(); }

QString secondsText(double s) {
  if (s <= 0) return {};
  if (s < 60) return QStringLiteral("%1 s").arg(s, 0, 'f', 1);
  const int whole = static_cast<int>(s + 0.5);
  return QStringLiteral("%1 min %2 s").arg(whole / 60).arg(whole % 60);
}

// Missing figures sort after every number, in both directions' first screen of an ascending sort.
QVariant numberOrLast(const std::optional<double>& v) { return v ? *v : std::numeric_limits<double>::max(); }

}  // namespace

SweepTableModel::SweepTableModel(QObject* parent) : QAbstractTableModel(parent) { setRequest({}); }

void SweepTableModel::setRequest(const SweepRequest& request) {
  beginResetModel();
  m_columns.clear();
  m_columns.push_back({Column::Index, tr("#")});
  for (size_t i = 0; i < request.axes.size(); ++i) {
    const QString key = request.axes[i].setting.path.section(QLatin1Char('.'), -1);
    m_columns.push_back({Column::Value, key, static_cast<int>(i)});
  }
  if (!request.queuedProjects.isEmpty()) m_columns.push_back({Column::Project, tr("Project")});
  m_columns.push_back({Column::Device, tr("Device")});
  m_columns.push_back({Column::Status, tr("Status")});
  m_columns.push_back({Column::FinalError, tr("Final val. error")});
  m_columns.push_back({Column::BestError, tr("Best val. error")});
  m_columns.push_back({Column::BestEpoch, tr("Best epoch")});
  m_columns.push_back({Column::Time, tr("Time")});
  m_columns.push_back({Column::Run, tr("Run folder")});
  m_rows = request.plannedRows();
  m_best = -1;
  endResetModel();
}

void SweepTableModel::setRows(const std::vector<SweepRow>& rows) {
  // A search's trials arrive one by one: new rows are inserted, so the selection stays.
  const int before = rowCount(), after = static_cast<int>(rows.size());
  const bool grows = after > before, shrinks = after < before;
  if (shrinks) beginResetModel();
  if (grows) beginInsertRows({}, before, after - 1);
  m_rows = rows;
  m_best = -1;
  for (size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].bestError && m_rows[i].status != QLatin1String("failed") &&
        (m_best < 0 || *m_rows[i].bestError < *m_rows[static_cast<size_t>(m_best)].bestError))
      m_best = static_cast<int>(i);
  if (shrinks) return endResetModel();
  if (grows) endInsertRows();
  if (before > 0) emit dataChanged(index(0, 0), index(before - 1, columnCount() - 1));
}

int SweepTableModel::columnOf(const QString& header) const {
  for (size_t i = 0; i < m_columns.size(); ++i)
    if (m_columns[i].header == header) return static_cast<int>(i);
  return -1;
}

int SweepTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }
int SweepTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

QVariant SweepTableModel::display(const SweepRow& row, const ColumnInfo& c, bool best) const {
  switch (c.kind) {
    case Column::Index:
      return best ? QStringLiteral("%1 ★").arg(row.index) : QString::number(row.index);
    case Column::Value:
      return c.axis < row.values.size() ? row.values[c.axis] : tr("(own)");
    case Column::Project:
      return QFileInfo(row.project).completeBaseName();
    case Column::Device:
      return row.device;
    case Column::Status:
      return row.statusText();
    case Column::FinalError:
      return percentText(row.finalError);
    case Column::BestError:
      return percentText(row.bestError);
    case Column::BestEpoch:
      return row.bestEpoch > 0 ? QString::number(row.bestEpoch) : QString();
    case Column::Time:
      return secondsText(row.seconds);
    case Column::Run:
      return QFileInfo(row.runFolder).fileName();
  }
  return {};
}

QVariant SweepTableModel::sortKey(const SweepRow& row, const ColumnInfo& c) const {
  switch (c.kind) {
    case Column::Index:
      return row.index;
    case Column::Value:
      return c.axis < row.values.size() ? row.values[c.axis].toDouble() : std::numeric_limits<double>::max();
    case Column::FinalError:
      return numberOrLast(row.finalError);
    case Column::BestError:
      return numberOrLast(row.bestError);
    case Column::BestEpoch:
      return static_cast<qlonglong>(row.bestEpoch);
    case Column::Time:
      return row.seconds;
    default:
      return display(row, c, false);
  }
}

QVariant SweepTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const SweepRow& row = m_rows[static_cast<size_t>(index.row())];
  const ColumnInfo& c = m_columns[static_cast<size_t>(index.column())];
  const bool best = index.row() == m_best;
  switch (role) {
    case Qt::DisplayRole:
      return display(row, c, best);
    case kSortRole:
      return sortKey(row, c);
    case kRunFolderRole:
      return row.runFolder;
    case kTrialProjectRole:
      return row.trialProject;
    case kTrialRole:
      return index.row();
    case Qt::FontRole:
      if (best) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    case Qt::BackgroundRole:
      if (best) return QBrush(QColor(0xd8, 0xf0, 0xd0));
      if (row.status == QLatin1String("failed")) return QBrush(QColor(0xfb, 0xe3, 0xe0));
      if (row.status == QLatin1String("stopped_early")) return QBrush(QColor(0xfd, 0xee, 0xcc));
      return {};
    case Qt::ToolTipRole:
      if (row.stoppedEarly && (c.kind == Column::Status || !best))
        return tr("Stopped early: %1").arg(*row.stoppedEarly);
      if (best) return tr("The lowest best validation error of the sweep");
      if (!row.message.isEmpty()) return row.message;
      if (c.kind == Column::Run) return row.runFolder;
      return {};
    case Qt::TextAlignmentRole:
      if (c.kind == Column::FinalError || c.kind == Column::BestError || c.kind == Column::BestEpoch ||
          c.kind == Column::Time || c.kind == Column::Value)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    default:
      return {};
  }
}

QVariant SweepTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 || section >= columnCount()) return {};
  return m_columns[static_cast<size_t>(section)].header;
}

SweepTable::SweepTable(QWidget* parent) : QTableView(parent) {
  m_model = new SweepTableModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(SweepTableModel::kSortRole);
  setModel(m_proxy);
  setSortingEnabled(true);
  sortByColumn(0, Qt::AscendingOrder);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::SingleSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
  setObjectName(QStringLiteral("sweepResults"));
  connect(this, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const QString folder = index.data(SweepTableModel::kRunFolderRole).toString();
    if (!folder.isEmpty()) emit showRunRequested(folder);
  });
}

QString SweepTable::selectedRunFolder() const {
  const QModelIndexList rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
  return rows.isEmpty() ? QString() : rows.first().data(SweepTableModel::kRunFolderRole).toString();
}

QString SweepTable::selectedTrialProject() const {
  const QModelIndexList rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
  return rows.isEmpty() ? QString() : rows.first().data(SweepTableModel::kTrialProjectRole).toString();
}

int SweepTable::selectedTrial() const {
  const QModelIndexList rows = selectionModel() ? selectionModel()->selectedRows() : QModelIndexList{};
  return rows.isEmpty() ? -1 : rows.first().data(SweepTableModel::kTrialRole).toInt();
}

void SweepTable::selectTrial(int trial) {
  if (trial < 0 || trial >= m_model->rowCount()) return;
  selectRow(m_proxy->mapFromSource(m_model->index(trial, 0)).row());
}

void SweepTable::selectBest() {
  const int best = m_model->bestRow();
  if (best < 0) return;
  selectRow(m_proxy->mapFromSource(m_model->index(best, 0)).row());
}

}  // namespace netsmith::gui
