// ConfigPage: the Global Config and Optimizer sections of DESIGN.md §5, one field per row of the
// engine's settings table (engine/project/settings_table.h), checked as you type by the
// engine's project loader: a refused value turns its field red with the loader's sentence and
// changes nothing; an accepted one is an undo step (typing into one field is one step). The
// Augmentation group edits config.augmentation (training only; engine/data/augment.h).
#pragma once

#include <QHash>
#include <QSet>
#include <QWidget>

#include "engine/project/settings_table.h"
#include "gui/document/project_document.h"

class QLabel;
class QFormLayout;

namespace netsmith::gui {

class ConfigPage : public QWidget {
  Q_OBJECT
 public:
  explicit ConfigPage(ProjectDocument* doc, QWidget* parent = nullptr);

  // The editor of a field by JSON path ("config.batch_size"), and the message shown for it.
  QWidget* editor(const QString& path) const { return m_editors.value(path); }
  QString errorFor(const QString& path) const;
  // Types `text` into the field at `path` as a user would (tests).
  void enterText(const QString& path, const QString& text);
  // Note [Initial parameters]: the runs of this project a new run can start from (folders of
  // <project>.runs/ holding parameters.nsparams or best.nsparams), newest first; the
  // "Choose…" menu of config.initial_parameters lists them after "A parameters file…".
  QStringList previousRuns() const;
  // Sets config.initial_parameters to `source` (a file or a run folder) as the menu does.
  void chooseInitialParameters(const QString& source);

 private:
  enum class Kind { Text, Path, Integer, Number, Choice, Flag };
  QWidget* makePathChooser(const QString& path);
  void addField(QFormLayout* form, const QString& path, const QString& label, Kind kind, const QString& help,
                const QStringList& choices = {});
  // One field per row of the settings table's group (Note [Settings table]).
  void addSettings(QFormLayout* form, SettingGroup group);
  void edited(const QString& path, const Json& value);
  void showValues();
  // Shows only the chosen solver's hyper-parameters and the chosen schedule's parameters, with
  // their defaults as placeholders (the engine's own lists: Optimizer, LearningRateSchedule).
  void showRelevantFields(const Json& project);

  ProjectDocument* m_doc;
  QHash<QString, QWidget*> m_editors;
  QHash<QString, QLabel*> m_errors;
  QHash<QString, Kind> m_kinds;
  QFormLayout* m_optimizerForm = nullptr;  // rows shown or hidden by solver and schedule
  QHash<QString, QString> m_defaultTexts;  // placeholder of an empty field: "default 0.9"
  QSet<QString> m_offWhenAbsent;           // rows with an absent text ("off"): absent means off (0, false)
  QHash<QString, const Setting*> m_rows;   // the settings table's row of each field
  bool m_showing = false;
};

}  // namespace netsmith::gui
