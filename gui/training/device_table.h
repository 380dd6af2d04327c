// DeviceTable: the devices `netsmith-cli devices --json` reports (CPU workers, each GPU with name,
// memory and PCI bus id), one row each with a checkbox and a relative-load spin box (MATLAB's
// WorkerLoad). It shows the project's parallel.devices/worker_load and reports the user's edits.
#pragma once

#include <QTableWidget>

#include "engine/monitor/devices.h"

namespace netsmith::gui {

class DeviceTable : public QTableWidget {
  Q_OBJECT
 public:
  explicit DeviceTable(QWidget* parent = nullptr);

  // Fills the rows. Devices named by the project but not found are added, marked "not found".
  void setDevices(const std::vector<DeviceInfo>& devices);
  // Ticks and loads from the project (devices absent from the list get a row of their own).
  void showSelection(const std::vector<std::string>& devices, const std::vector<double>& loads);
  std::vector<std::string> checkedDevices() const;
  // One load per checked device; empty when every load is 1 (the project then leaves it out).
  std::vector<double> checkedLoads() const;
  // Ticks or unticks the device `id` as a user would (emits selectionEdited).
  void setChecked(const QString& id, bool checked);

 signals:
  void selectionEdited();

 private:
  int rowOf(const QString& id) const;
  int addRow(const DeviceInfo& device, bool found);
  bool m_updating = false;
};

}  // namespace netsmith::gui
