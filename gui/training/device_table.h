// DeviceTable: the devices `netsmith-cli devices --json` reports (CPU workers, each GPU with name,
// memory and PCI bus id), one row each with a checkbox and a relative-load spin box (MATLAB's
// WorkerLoad). It shows the project's parallel.devices/worker_load and reports the user's edits.
// Once a run reports figures, the "Data ms" column shows each device's time per iteration spent assembling
// its batch (reading, decoding, augmenting; the iteration event's data_ms), marked when it is
// more than kDataBoundShare of compute + data: the disk or the decoding holds the device back.
//
// Note [Device table size]: the GPUs are listed first (a machine lists a CPU worker per core, which
// pushed them below the fold); the project keeps the engine's order. The table asks its layout for
// the height of all its rows, up to kRowsShown, and for the width that gives the Name column at
// least kMinNameWidth (or its longest name, when shorter) beside the other columns, the "Data ms"
// column of a run included, even before a run shows it: the page's splitter never squeezes the
// table below that, and does not move when a run starts.
#pragma once

#include <QTableWidget>

#include "engine/monitor/devices.h"
#include "gui/run/engine_event.h"

namespace netsmith::gui {

// data_ms / (compute_ms + data_ms) above which a device is said to wait for its data.
inline constexpr double kDataBoundShare = 0.3;

class DeviceTable : public QTableWidget {
  Q_OBJECT
 public:
  static constexpr int kRowsShown = 8;
  static constexpr int kMinNameWidth = 130;

  explicit DeviceTable(QWidget* parent = nullptr);

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;
  // The width of the Name column now, and the width its longest name needs.
  int nameColumnWidth() const;
  int nameWidthNeeded() const;

  // Fills the rows. Devices named by the project but not found are added, marked "not found".
  void setDevices(const std::vector<DeviceInfo>& devices);
  // Ticks and loads from the project (devices absent from the list get a row of their own).
  void showSelection(const std::vector<std::string>& devices, const std::vector<double>& loads);
  std::vector<std::string> checkedDevices() const;
  // One load per checked device; empty when every load is 1 (the project then leaves it out).
  std::vector<double> checkedLoads() const;
  // Ticks or unticks the device `id` as a user would (emits selectionEdited).
  void setChecked(const QString& id, bool checked);
  // The devices' figures of an iteration event: fills the "Data ms" column of their rows.
  void showFigures(const QList<DeviceSample>& devices);
  void clearFigures();
  // The "Data ms" cell's text and the row's hint ("" when the device is not waiting for data).
  QString dataText(const QString& id) const;
  QString dataHint(const QString& id) const;

 signals:
  void selectionEdited();

 private:
  int rowOf(const QString& id) const;
  int addRow(const DeviceInfo& device, bool found, int order);
  int otherColumnsWidth() const;
  int dataColumnWidth() const;
  void sizeChanged();  // a column or a row came or went: the layout asks again
  QSize m_lastHint;
  bool m_updating = false;
};

}  // namespace netsmith::gui
