// The sweep's results: one row per trial (its setting values or project, device, status,
// final and best validation error, best epoch, time), sortable by any column (numbers as
// numbers), the row with the lowest best validation error marked "best" (bold, tinted, ★); a
// trial stopped early reads "stopped early (epoch e)", tinted amber, the rule's reason in its
// tooltip; a failed one is tinted red.
// A double-click (or showRunRequested from the dialog's button) asks to show a row's run.
#pragma once

#include <QAbstractTableModel>
#include <QTableView>

#include "gui/sweep/sweep_request.h"

class QSortFilterProxyModel;

namespace netsmith::gui {

class SweepTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // Qt::UserRole: the value to sort by (a number for the figures, missing ones last).
  static constexpr int kSortRole = Qt::UserRole;
  // Qt::UserRole + 1: the row's run folder.
  static constexpr int kRunFolderRole = Qt::UserRole + 1;
  // Qt::UserRole + 2: the trial's project file; + 3: the row's 0-based trial (its place in rows()).
  static constexpr int kTrialProjectRole = Qt::UserRole + 2;
  static constexpr int kTrialRole = Qt::UserRole + 3;

  explicit SweepTableModel(QObject* parent = nullptr);

  // The columns follow the request (one per setting; a Project column when projects are queued).
  void setRequest(const SweepRequest& request);
  void setRows(const std::vector<SweepRow>& rows);
  const std::vector<SweepRow>& rows() const { return m_rows; }
  // The row (in model order) with the lowest best validation error; -1 when none has one.
  int bestRow() const { return m_best; }
  int columnOf(const QString& header) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  enum class Column { Index, Value, Project, Device, Status, FinalError, BestError, BestEpoch, Time, Run };
  struct ColumnInfo {
    Column kind;
    QString header;
    int axis = 0;  // Value columns
  };
  QVariant display(const SweepRow& row, const ColumnInfo& c, bool best) const;
  QVariant sortKey(const SweepRow& row, const ColumnInfo& c) const;

  std::vector<ColumnInfo> m_columns;
  std::vector<SweepRow> m_rows;
  int m_best = -1;
};

class SweepTable : public QTableView {
  Q_OBJECT
 public:
  explicit SweepTable(QWidget* parent = nullptr);
  SweepTableModel* sweepModel() const { return m_model; }
  QSortFilterProxyModel* proxy() const { return m_proxy; }
  // The run folder of the selected row ("" when none is selected or it has none yet).
  QString selectedRunFolder() const;
  QString selectedTrialProject() const;
  // The selected row's 0-based trial; -1 when none is selected.
  int selectedTrial() const;
  void selectTrial(int trial);
  // Selects the best row, if any.
  void selectBest();

 signals:
  void showRunRequested(const QString& runFolder);

 private:
  SweepTableModel* m_model;
  QSortFilterProxyModel* m_proxy;
};

}  // namespace netsmith::gui
