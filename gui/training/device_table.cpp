#include "gui/training/device_table.h"

#include <QDoubleSpinBox>
#include <QHeaderView>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

namespace {
enum Column { kDevice, kName, kMemory, kDetail, kLoad, kData, kColumns };
}

DeviceTable::DeviceTable(QWidget* parent) : QTableWidget(0, kColumns, parent) {
  setHorizontalHeaderLabels({tr("Device"), tr("Name"), tr("Memory"), tr("Cores / PCI bus"), tr("Load"), tr("Data ms")});
  horizontalHeaderItem(kData)->setToolTip(
      tr("Milliseconds per iteration each device spends assembling its batch (reading, decoding, augmenting), "
         "while training runs; marked when it is more than %1% of the device's step.")
          .arg(qRound(100 * kDataBoundShare)));
  horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  horizontalHeader()->setSectionResizeMode(kDevice, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kMemory, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kDetail, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kLoad, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kData, QHeaderView::ResizeToContents);
  verticalHeader()->hide();
  setSelectionMode(QAbstractItemView::NoSelection);
  setEditTriggers(QAbstractItemView::NoEditTriggers);
  setColumnHidden(kData, true);  // shown once a run reports figures
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
  setItem(r, kData, new QTableWidgetItem);
  item(r, kData)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  if (!found) item(r, kName)->setForeground(QColor(0xc0, 0x39, 0x2b));
  for (int c = kName; c < kColumns; ++c)
    if (item(r, c)) item(r, c)->setFlags(Qt::ItemIsEnabled);
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

void DeviceTable::showFigures(const QList<DeviceSample>& devices) {
  m_updating = true;
  setColumnHidden(kData, false);
  for (const DeviceSample& d : devices) {
    const int r = rowOf(d.id);
    if (r < 0 || !hasValue(d.dataMs)) continue;
    const double compute = hasValue(d.computeMs) ? d.computeMs : 0;
    const double share = compute + d.dataMs > 0 ? d.dataMs / (compute + d.dataMs) : 0;
    const bool bound = share > kDataBoundShare;
    QTableWidgetItem* cell = item(r, kData);
    cell->setText(bound ? tr("%1 (%2%)").arg(d.dataMs, 0, 'f', 1).arg(qRound(100 * share)) : QString::number(d.dataMs, 'f', 1));
    if (bound) cell->setForeground(QColor(0xc0, 0x5a, 0x00));
    else cell->setData(Qt::ForegroundRole, QVariant());  // the table's own colour, enabled or not
    QFont font = cell->font();
    font.setBold(bound);
    cell->setFont(font);
    const QString figures = tr("%1 ms assembling the batch, %2 ms computing per iteration (%3% data)")
                                .arg(d.dataMs, 0, 'f', 1)
                                .arg(compute, 0, 'f', 1)
                                .arg(qRound(100 * share));
    const QString hint = bound ? tr("Waiting for data: the disk or decoding is the bottleneck. ") : QString();
    cell->setData(Qt::UserRole, hint.trimmed());
    for (int c = 0; c < kColumns; ++c)
      if (QTableWidgetItem* it = item(r, c)) it->setToolTip(c == kDevice || c == kData || bound ? hint + figures : QString());
  }
  m_updating = false;
}

void DeviceTable::clearFigures() {
  m_updating = true;
  for (int r = 0; r < rowCount(); ++r) {
    for (int c = 0; c < kColumns; ++c)
      if (QTableWidgetItem* it = item(r, c)) it->setToolTip({});
    item(r, kData)->setText({});
    item(r, kData)->setData(Qt::UserRole, QString());
  }
  m_updating = false;
}

QString DeviceTable::dataText(const QString& id) const {
  const int r = rowOf(id);
  return r < 0 ? QString() : item(r, kData)->text();
}

QString DeviceTable::dataHint(const QString& id) const {
  const int r = rowOf(id);
  return r < 0 ? QString() : item(r, kData)->data(Qt::UserRole).toString();
}

}  // namespace netsmith::gui
