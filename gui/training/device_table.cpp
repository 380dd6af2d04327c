#include "gui/training/device_table.h"

#include <QDoubleSpinBox>
#include <QHeaderView>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

namespace {
enum Column { kDevice, kName, kMemory, kDetail, kLoad, kColumns };
}

DeviceTable::DeviceTable(QWidget* parent) : QTableWidget(0, kColumns, parent) {
  setHorizontalHeaderLabels({tr("Device"), tr("Name"), tr("Memory"), tr("Cores / PCI bus"), tr("Load")});
  horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  horizontalHeader()->setSectionResizeMode(kDevice, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kMemory, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kDetail, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kLoad, QHeaderView::ResizeToContents);
  verticalHeader()->hide();
  setSelectionMode(QAbstractItemView::NoSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  connect(this, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (!m_updating && item->column() == kDevice) emit selectionEdited();
  });
}

int DeviceTable::rowOf(const QString& id) const {
  for (int r = 0; r < rowCount(); ++r)
    if (item(r, kDevice)->data(Qt::UserRole).toString() == id) return r;
  return -1;
}

int DeviceTable::addRow(const DeviceInfo& d, bool found) {
  const int r = rowCount();
  insertRow(r);
  auto* id = new QTableWidgetItem(qs(d.id));
  id->setData(Qt::UserRole, qs(d.id));
  id->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
  id->setCheckState(Qt::Unchecked);
  setItem(r, kDevice, id);
  setItem(r, kName, new QTableWidgetItem(found ? qs(d.name) : tr("not found on this machine")));
  setItem(r, kMemory, new QTableWidgetItem(d.memoryMb > 0 ? tr("%1 GB").arg(d.memoryMb / 1024.0, 0, 'f', 1) : QString()));
  setItem(r, kDetail, new QTableWidgetItem(d.kind == "cpu" ? tr("%n core(s)", nullptr, d.cores) : qs(d.pciBusId)));
  if (!found) item(r, kName)->setForeground(QColor(0xc0, 0x39, 0x2b));
  for (int c = kName; c < kLoad; ++c) item(r, c)->setFlags(Qt::ItemIsEnabled);
  auto* load = new QDoubleSpinBox(this);
  load->setRange(0, 100);
  load->setDecimals(2);
  load->setSingleStep(0.5);
  load->setValue(1);
  load->setKeyboardTracking(false);
  load->setToolTip(tr("Relative share of each logical batch this device trains on (0: idle)."));
  connect(load, &QDoubleSpinBox::valueChanged, this, [this] {
    if (!m_updating) emit selectionEdited();
  });
  setCellWidget(r, kLoad, load);
  return r;
}

void DeviceTable::setDevices(const std::vector<DeviceInfo>& devices) {
  const auto checked = checkedDevices();
  const auto loads = checkedLoads();
  m_updating = true;
  setRowCount(0);
  for (const DeviceInfo& d : devices) addRow(d, true);
  m_updating = false;
  showSelection(checked, loads);
}

void DeviceTable::showSelection(const std::vector<std::string>& devices, const std::vector<double>& loads) {
  m_updating = true;
  for (int r = 0; r < rowCount(); ++r) {
    item(r, kDevice)->setCheckState(Qt::Unchecked);
    static_cast<QDoubleSpinBox*>(cellWidget(r, kLoad))->setValue(1);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    int r = rowOf(qs(devices[i]));
    if (r < 0) r = addRow(DeviceInfo{devices[i], devices[i].rfind("cuda", 0) == 0 ? "cuda" : "cpu", "", 0, "", 0, ""}, false);
    item(r, kDevice)->setCheckState(Qt::Checked);
    static_cast<QDoubleSpinBox*>(cellWidget(r, kLoad))->setValue(i < loads.size() ? loads[i] : 1.0);
  }
  m_updating = false;
}

std::vector<std::string> DeviceTable::checkedDevices() const {
  std::vector<std::string> out;
  for (int r = 0; r < rowCount(); ++r)
    if (item(r, kDevice)->checkState() == Qt::Checked) out.push_back(ss(item(r, kDevice)->data(Qt::UserRole).toString()));
  return out;
}

std::vector<double> DeviceTable::checkedLoads() const {
  std::vector<double> out;
  bool allOne = true;
  for (int r = 0; r < rowCount(); ++r) {
    if (item(r, kDevice)->checkState() != Qt::Checked) continue;
    const double v = static_cast<QDoubleSpinBox*>(cellWidget(r, kLoad))->value();
    allOne = allOne && v == 1.0;
    out.push_back(v);
  }
  return allOne ? std::vector<double>{} : out;
}

void DeviceTable::setChecked(const QString& id, bool checked) {
  const int r = rowOf(id);
  if (r >= 0) item(r, kDevice)->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
}

}  // namespace netsmith::gui
