#include "gui/sweep/sweep_axis_editor.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <stdexcept>

namespace netsmith::gui {

SweepAxisEditor::SweepAxisEditor(QWidget* parent) : QWidget(parent) {
  m_setting = new QComboBox(this);
  m_setting->setObjectName(QStringLiteral("sweepSetting"));
  m_setting->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_setting->setMinimumContentsLength(22);
  m_range = new QLabel(this);
  m_range->setObjectName(QStringLiteral("sweepRange"));
  m_range->setStyleSheet(QStringLiteral("color: palette(mid);"));
  m_listMode = new QRadioButton(tr("List"), this);
  m_gridMode = new QRadioButton(tr("Grid"), this);
  m_listMode->setChecked(true);

  m_list = new QLineEdit(this);
  m_list->setObjectName(QStringLiteral("sweepList"));
  m_list->setPlaceholderText(tr("values, such as 0.001, 0.003, 0.01"));
  m_from = new QLineEdit(this);
  m_to = new QLineEdit(this);
  m_from->setPlaceholderText(tr("from"));
  m_to->setPlaceholderText(tr("to"));
  m_count = new QSpinBox(this);
  m_count->setRange(1, 64);
  m_count->setValue(4);
  m_count->setSuffix(tr(" values"));
  m_spacing = new QComboBox(this);
  m_spacing->addItem(tr("log"), static_cast<int>(GridSpacing::Log));
  m_spacing->addItem(tr("linear"), static_cast<int>(GridSpacing::Linear));

  auto* listPage = new QWidget(this);
  auto* listRow = new QHBoxLayout(listPage);
  listRow->setContentsMargins(0, 0, 0, 0);
  listRow->addWidget(m_list);
  auto* gridPage = new QWidget(this);
  auto* gridRow = new QHBoxLayout(gridPage);
  gridRow->setContentsMargins(0, 0, 0, 0);
  gridRow->addWidget(m_from, 2);
  gridRow->addWidget(new QLabel(QStringLiteral("…"), gridPage));
  gridRow->addWidget(m_to, 2);
  gridRow->addWidget(m_count, 1);
  gridRow->addWidget(m_spacing, 1);
  m_modes = new QStackedWidget(this);
  m_modes->addWidget(listPage);
  m_modes->addWidget(gridPage);
  m_modes->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);

  auto* top = new QHBoxLayout;
  top->addWidget(m_setting, 1);
  top->addWidget(m_listMode);
  top->addWidget(m_gridMode);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(3);
  layout->addLayout(top);
  layout->addWidget(m_modes);
  layout->addWidget(m_range);

  connect(m_setting, &QComboBox::currentIndexChanged, this, [this] {
    showRange();
    emit edited();
  });
  connect(m_gridMode, &QRadioButton::toggled, this, [this](bool grid) {
    m_modes->setCurrentIndex(grid ? 1 : 0);
    emit edited();
  });
  for (QLineEdit* e : {m_list, m_from, m_to}) connect(e, &QLineEdit::textChanged, this, &SweepAxisEditor::edited);
  connect(m_count, &QSpinBox::valueChanged, this, &SweepAxisEditor::edited);
  connect(m_spacing, &QComboBox::currentIndexChanged, this, &SweepAxisEditor::edited);
}

void SweepAxisEditor::setRange(const QString& from, const QString& to, GridSpacing spacing) {
  setSearchMode(true);
  setGrid(from, to, m_count->value(), spacing);
}

void SweepAxisEditor::setSearchMode(bool search) {
  m_search = search;
  showModes();
  emit edited();
}

void SweepAxisEditor::showModes() {
  const int i = settingIndex();
  const bool choice = i >= 0 && m_settings[static_cast<size_t>(i)].isChoice();
  m_gridMode->setText(m_search ? tr("Range") : tr("Grid"));
  m_gridMode->setToolTip(m_search ? tr("The search draws values between from and to (log: evenly in log space)")
                                  : tr("Every value of an evenly spaced grid"));
  m_count->setVisible(!m_search);
  // A choice has no range or grid: its values are listed.
  m_listMode->setVisible(!choice);
  m_gridMode->setVisible(!choice);
  if (choice) m_listMode->setChecked(true);
  m_list->setPlaceholderText(choice ? tr("some of: %1").arg(m_settings[static_cast<size_t>(i)].choices.join(QStringLiteral(", ")))
                                    : tr("values, such as 0.001, 0.003, 0.01"));
}

void SweepAxisEditor::setSettings(const std::vector<SweepSetting>& settings, const QString& preferred) {
  const QString before = chosenPath();
  const bool wasNone = m_setting->count() > 0 && before.isEmpty();
  m_settings = settings;
  {
    const QSignalBlocker block(m_setting);
    m_setting->clear();
    if (m_noneAllowed) m_setting->addItem(tr("none: train each project once"), QString());
    for (const SweepSetting& s : settings) {
      m_setting->addItem(QStringLiteral("%1  (%2)").arg(s.label, s.path), s.path);
      m_setting->setItemData(m_setting->count() - 1, s.help, Qt::ToolTipRole);
    }
  }
  if (wasNone && m_noneAllowed) choose(QString());
  else if (!(!before.isEmpty() && choose(before)) && !choose(preferred)) m_setting->setCurrentIndex(settings.empty() ? -1 : 0);
  showRange();
}

bool SweepAxisEditor::choose(const QString& path) {
  const int i = path.isEmpty() ? (m_noneAllowed ? 0 : -1) : m_setting->findData(path);
  if (i < 0) return false;
  m_setting->setCurrentIndex(i);
  return true;
}

QString SweepAxisEditor::chosenPath() const { return m_setting->currentData().toString(); }

void SweepAxisEditor::setList(const QString& text) {
  m_listMode->setChecked(true);
  m_list->setText(text);
}

void SweepAxisEditor::setGrid(const QString& from, const QString& to, int count, GridSpacing spacing) {
  m_gridMode->setChecked(true);
  m_from->setText(from);
  m_to->setText(to);
  m_count->setValue(count);
  m_spacing->setCurrentIndex(m_spacing->findData(static_cast<int>(spacing)));
}

int SweepAxisEditor::settingIndex() const {
  const QString path = chosenPath();
  for (size_t i = 0; i < m_settings.size(); ++i)
    if (m_settings[i].path == path) return static_cast<int>(i);
  return -1;
}

void SweepAxisEditor::showRange() {
  const int i = settingIndex();
  m_range->setText(i < 0 ? QString() : tr("Expected: %1").arg(m_settings[static_cast<size_t>(i)].expected));
  m_modes->setEnabled(i >= 0);
  showModes();
}

std::optional<SweepAxis> SweepAxisEditor::axis(QString* error) const {
  const int i = settingIndex();
  if (i < 0) {
    *error = tr("Choose a setting.");
    return std::nullopt;
  }
  SweepAxis axis;
  axis.setting = m_settings[static_cast<size_t>(i)];
  if (axis.setting.isChoice()) {
    axis.choices = splitValueList(m_list->text());
    if (auto why = axis.problem()) {
      *error = *why;
      return std::nullopt;
    }
    return axis;
  }
  if (m_search && m_gridMode->isChecked()) {
    bool okFrom = false, okTo = false;
    const double from = m_from->text().toDouble(&okFrom), to = m_to->text().toDouble(&okTo);
    if (!okFrom || !okTo) {
      *error = tr("%1: give the range's ends as numbers (from … to).").arg(axis.setting.label);
      return std::nullopt;
    }
    axis.range = SweepRange{from, to, static_cast<GridSpacing>(m_spacing->currentData().toInt()) == GridSpacing::Log};
    if (auto why = axis.problem()) {
      *error = *why;
      return std::nullopt;
    }
    return axis;
  }
  try {
    if (m_listMode->isChecked()) {
      axis.values = parseValueList(m_list->text());
    } else {
      bool okFrom = false, okTo = false;
      const double from = m_from->text().toDouble(&okFrom), to = m_to->text().toDouble(&okTo);
      if (!okFrom || !okTo) {
        *error = tr("%1: give the grid's ends as numbers (from … to).").arg(axis.setting.label);
        return std::nullopt;
      }
      axis.values = gridValues(from, to, m_count->value(), static_cast<GridSpacing>(m_spacing->currentData().toInt()));
    }
  } catch (const std::invalid_argument& e) {
    *error = QStringLiteral("%1: %2").arg(axis.setting.label, QString::fromStdString(e.what()));
    return std::nullopt;
  }
  if (axis.values.empty()) {
    *error = tr("%1: give at least one value.").arg(axis.setting.label);
    return std::nullopt;
  }
  if (axis.setting.integer && !m_listMode->isChecked()) axis.values = roundedForIntegers(axis.values);
  for (double v : axis.values)
    if (auto why = axis.setting.check(v)) {
      *error = *why;
      return std::nullopt;
    }
  return axis;
}

}  // namespace netsmith::gui
