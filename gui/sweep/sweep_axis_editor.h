// One setting of a sweep and its values: the setting chosen from the project's numeric and
// choice settings (sweep_values.h), its range shown in the table's words, and the values typed as
// a list ("0.001, 0.01"; a choice setting's "Adam, AdamW") or made as a grid (from, to, count,
// linear or log). In a random or Bayesian search the grid's place is taken by a range (from, to,
// linear or log) the search draws from. An integer setting's grid is rounded to whole numbers,
// its range gives whole numbers.
#pragma once

#include <QWidget>
#include <optional>

#include "gui/sweep/sweep_request.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QRadioButton;
class QSpinBox;
class QStackedWidget;

namespace netsmith::gui {

class SweepAxisEditor : public QWidget {
  Q_OBJECT
 public:
  explicit SweepAxisEditor(QWidget* parent = nullptr);

  // The settings to choose from; keeps the chosen one when it is still there, else takes `preferred`.
  void setSettings(const std::vector<SweepSetting>& settings, const QString& preferred = {});
  // Offers "none" first (chosenPath() empty): the sweep then trains its projects once each.
  void setNoneAllowed(bool allowed) { m_noneAllowed = allowed; }
  // Chooses the setting at `path` (false when it is not offered).
  bool choose(const QString& path);
  QString chosenPath() const;

  // As a user would fill the fields.
  void setList(const QString& text);
  void setGrid(const QString& from, const QString& to, int count, GridSpacing spacing);
  void setRange(const QString& from, const QString& to, GridSpacing spacing);
  // A search offers a range instead of a grid (a grid's from and to carry over).
  void setSearchMode(bool search);

  // The setting and its values; nullopt with `error` set when a value is not a number, the grid
  // cannot be made, or a value is out of the setting's range (the sentence names the range).
  std::optional<SweepAxis> axis(QString* error) const;

  QComboBox* settingBox() const { return m_setting; }

 signals:
  void edited();

 private:
  void showRange();
  void showModes();
  int settingIndex() const;  // of the chosen setting in m_settings; -1 for none

  std::vector<SweepSetting> m_settings;
  bool m_noneAllowed = false;
  bool m_search = false;
  QComboBox* m_setting;
  QLabel* m_range;
  QRadioButton* m_listMode;
  QRadioButton* m_gridMode;
  QStackedWidget* m_modes;
  QLineEdit* m_list;
  QLineEdit* m_from;
  QLineEdit* m_to;
  QSpinBox* m_count;
  QComboBox* m_spacing;
};

}  // namespace netsmith::gui
