#include "gui/training/device_table.h"

#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QScrollBar>
#include <algorithm>

#include "gui/document/graph_document.h"

namespace netsmith::gui {

namespace {
enum Column { kDevice, kName, kMemory, kDetail, kLoad, kData, kColumns };
// The row's place in the engine's list: the project's devices keep that order (Note [Device table size]).
constexpr int kOrderRole = Qt::UserRole + 1;
// The Name cell's own tooltip (name, memory, bus id, driver), to which a run's figures are added.
constexpr int kAboutRole = Qt::UserRole + 2;

// `about`, then `figures` on a line of their own when there are any.
QString joinTips(const QString& about, const QString& figures) {
  return about.isEmpty() ? figures : figures.isEmpty() ? about : about + QLatin1Char('\n') + figures;
}

// "00000000:41:00.0" -> "41:00.0": the PCI domain is zero on nearly every machine and took a third
// of the table's width; the whole id is in the row's tooltip.
QString shortBusId(const QString& id) {
  const qsizetype colon = id.indexOf(QLatin1Char(':'));
  if (colon > 0 && id.count(QLatin1Char(':')) == 2 && id.left(colon).count(QLatin1Char('0')) == colon) return id.mid(colon + 1);
  return id;
}

// "80 GB" for a GPU of 81,559 MB (as its maker names it), "7.5 GB" below 10 GB.
QString memoryText(int64_t mb) {
  if (mb <= 0) return {};
  const double gb = mb / 1024.0;
  return QObject::tr("%1 GB").arg(gb, 0, 'f', gb >= 10 ? 0 : 1);
}
}  // namespace

DeviceTable::DeviceTable(QWidget* parent) : QTableWidget(0, kColumns, parent) {
  setHorizontalHeaderLabels({tr("Device"), tr("Name"), tr("Memory"), tr("Cores / bus"), tr("Load"), tr("Data ms")});
  horizontalHeaderItem(kDetail)->setToolTip(tr("A CPU worker: the cores it has. A GPU: its PCI bus id (all of it in the "
                                               "row's tooltip)."));
  horizontalHeaderItem(kData)->setToolTip(
      tr("Milliseconds per iteration each device spends assembling its batch (reading, decoding, augmenting), "
         "while training runs; marked when it is more than %1% of the device's step.")
          .arg(qRound(100 * kDataBoundShare)));
  horizontalHeader()->setSectionResizeMode(kName, QHeaderView::Stretch);
  horizontalHeader()->setSectionResizeMode(kDevice, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kMemory, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kDetail, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kLoad, QHeaderView::ResizeToContents);
  horizontalHeader()->setSectionResizeMode(kData, QHeaderView::Fixed);
  setColumnWidth(kData, dataColumnWidth());
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

int DeviceTable::addRow(const DeviceInfo& d, bool found, int order) {
  const int r = rowCount();
  insertRow(r);
  auto* id = new QTableWidgetItem(qs(d.id));
  id->setData(Qt::UserRole, qs(d.id));
  id->setData(kOrderRole, order);
  id->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
  id->setCheckState(Qt::Unchecked);
  setItem(r, kDevice, id);
  setItem(r, kName, new QTableWidgetItem(found ? qs(d.name) : tr("not found on this machine")));
  setItem(r, kMemory, new QTableWidgetItem(memoryText(d.memoryMb)));
  setItem(r, kDetail, new QTableWidgetItem(d.kind == "cpu" ? tr("%n core(s)", nullptr, d.cores) : shortBusId(qs(d.pciBusId))));
  if (found) {
    QStringList about{qs(d.name)};
    if (d.memoryMb > 0) about << tr("%1 MB of memory").arg(d.memoryMb);
    if (!d.pciBusId.empty()) about << tr("PCI bus %1").arg(qs(d.pciBusId));
    if (!d.driver.empty()) about << tr("driver %1").arg(qs(d.driver));
    item(r, kName)->setData(kAboutRole, about.join(QLatin1Char('\n')));
    item(r, kName)->setToolTip(about.join(QLatin1Char('\n')));
  }
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
  // The GPUs first (Note [Device table size]), each row keeping its place in the engine's list.
  for (bool gpus : {true, false})
    for (size_t i = 0; i < devices.size(); ++i)
      if ((devices[i].kind != "cpu") == gpus) addRow(devices[i], true, static_cast<int>(i));
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
    // A device of the project this machine lacks: after the listed ones, in the project's order.
    if (r < 0)
      r = addRow(DeviceInfo{devices[i], devices[i].rfind("cuda", 0) == 0 ? "cuda" : "cpu", "", 0, "", 0, ""}, false,
                 1000000 + rowCount());
    item(r, kDevice)->setCheckState(Qt::Checked);
    static_cast<QDoubleSpinBox*>(cellWidget(r, kLoad))->setValue(i < loads.size() ? loads[i] : 1.0);
  }
  m_updating = false;
  sizeChanged();
}

// The checked rows in the engine's order (the project's), not the table's.
namespace {
std::vector<int> checkedRowsInOrder(const QTableWidget* table) {
  std::vector<int> rows;
  for (int r = 0; r < table->rowCount(); ++r)
    if (table->item(r, kDevice)->checkState() == Qt::Checked) rows.push_back(r);
  std::stable_sort(rows.begin(), rows.end(), [table](int a, int b) {
    return table->item(a, kDevice)->data(kOrderRole).toInt() < table->item(b, kDevice)->data(kOrderRole).toInt();
  });
  return rows;
}
}  // namespace

std::vector<std::string> DeviceTable::checkedDevices() const {
  std::vector<std::string> out;
  for (int r : checkedRowsInOrder(this)) out.push_back(ss(item(r, kDevice)->data(Qt::UserRole).toString()));
  return out;
}

std::vector<double> DeviceTable::checkedLoads() const {
  std::vector<double> out;
  bool allOne = true;
  for (int r : checkedRowsInOrder(this)) {
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
      if (QTableWidgetItem* it = item(r, c)) {
        const QString tip = c == kDevice || c == kData || bound ? hint + figures : QString();
        it->setToolTip(c == kName ? joinTips(it->data(kAboutRole).toString(), tip) : tip);
      }
  }
  m_updating = false;
  sizeChanged();
}

void DeviceTable::clearFigures() {
  m_updating = true;
  for (int r = 0; r < rowCount(); ++r) {
    for (int c = 0; c < kColumns; ++c)
      if (QTableWidgetItem* it = item(r, c)) it->setToolTip(c == kName ? it->data(kAboutRole).toString() : QString());
    item(r, kData)->setText({});
    item(r, kData)->setData(Qt::UserRole, QString());
  }
  m_updating = false;
  sizeChanged();
}

QString DeviceTable::dataText(const QString& id) const {
  const int r = rowOf(id);
  return r < 0 ? QString() : item(r, kData)->text();
}

QString DeviceTable::dataHint(const QString& id) const {
  const int r = rowOf(id);
  return r < 0 ? QString() : item(r, kData)->data(Qt::UserRole).toString();
}

// --- size (Note [Device table size]) ---------------------------------------------------------

int DeviceTable::nameWidthNeeded() const {
  return std::max(sizeHintForColumn(kName), horizontalHeader()->sectionSizeHint(kName));
}

int DeviceTable::nameColumnWidth() const { return columnWidth(kName); }

// The "Data ms" column has one width, before a run shows it and whatever its figures (as wide as a
// marked one in bold): the table does not widen, and the page's splitter not move, when a run's
// first figures or a device's first "waiting for data" mark arrive.
int DeviceTable::dataColumnWidth() const {
  QFont bold = font();
  bold.setBold(true);
  return std::max(horizontalHeader()->sectionSizeHint(kData), QFontMetrics(bold).horizontalAdvance(QStringLiteral("88.8 (88%)")) + 12);
}

int DeviceTable::otherColumnsWidth() const {
  int width = dataColumnWidth();
  for (int c = 0; c < kColumns; ++c)
    if (c != kName && c != kData && !isColumnHidden(c)) width += std::max(sizeHintForColumn(c), horizontalHeader()->sectionSizeHint(c));
  return width;
}

QSize DeviceTable::minimumSizeHint() const {
  const int frame = 2 * frameWidth();
  const int shown = std::min(rowCount(), kRowsShown);
  // Before the engine has listed the devices: room for two rows, so the table does not jump.
  int rows = shown == 0 ? 2 * verticalHeader()->defaultSectionSize() : 0;
  for (int r = 0; r < shown; ++r) rows += rowHeight(r);
  const int scrollBar = rowCount() > kRowsShown ? verticalScrollBar()->sizeHint().width() : 0;
  return {otherColumnsWidth() + std::min(nameWidthNeeded(), int(kMinNameWidth)) + frame + scrollBar,
          horizontalHeader()->sizeHint().height() + rows + frame};
}

QSize DeviceTable::sizeHint() const {
  const QSize minimum = minimumSizeHint();
  return {std::max(minimum.width(), otherColumnsWidth() + nameWidthNeeded() + 2 * frameWidth()), minimum.height()};
}

void DeviceTable::sizeChanged() {
  const QSize hint = minimumSizeHint();
  if (hint == m_lastHint) return;
  m_lastHint = hint;
  updateGeometry();
}

}  // namespace netsmith::gui
