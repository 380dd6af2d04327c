#include "gui/config/config_page.h"

#include <algorithm>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QPushButton>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QDir>
#include <QFileInfo>
#include <QFileDialog>
#include <QMenu>
#include <QToolButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project_io.h"
#include "engine/project/settings_table.h"
#include "gui/widgets/class_count_bar.h"
#include "gui/widgets/field_cell.h"
#include "gui/document/settings_edit.h"
#include "gui/config/lr_find_dialog.h"

namespace netsmith::gui {

ConfigPage::ConfigPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* content = new QWidget(this);
  auto* columns = new QHBoxLayout(content);

  auto* project = new QGroupBox(tr("Project"), content);
  auto* projectForm = new QFormLayout(project);
  addField(projectForm, QStringLiteral("name"), tr("Name"), Kind::Text, tr("The project's name, shown in the title and run history."));

  // Every other field comes from the engine's settings table (Note [Settings table]): its label,
  // help, kind, choices and the text of an absent value. A new row there is a new field here.
  auto* global = new QGroupBox(tr("Global Config"), content);
  auto* globalForm = new QFormLayout(global);
  addSettings(globalForm, SettingGroup::GlobalConfig);

  auto* augmentation = new QGroupBox(tr("Augmentation"), content);
  augmentation->setToolTip(tr("Random changes to each training image, drawn from the seed, the epoch and the sample's "
                              "index, so deterministic runs stay identical on 1, 2 or 4 devices. Validation, evaluation "
                              "and inference see the images as they are."));
  auto* augmentationForm = new QFormLayout(augmentation);
  addSettings(augmentationForm, SettingGroup::Augmentation);
  auto* trainingOnly = new QLabel(tr("Training only: validation, evaluation and inference use the images as they are."), augmentation);
  trainingOnly->setWordWrap(true);
  augmentationForm->addRow(trainingOnly);

  auto* optimizer = new QGroupBox(tr("Optimizer"), content);
  auto* optimizerForm = new QFormLayout(optimizer);
  m_optimizerForm = optimizerForm;
  addSettings(optimizerForm, SettingGroup::Optimizer);
  // Note [Learning-rate range test]: a short training that suggests the solver's learning rate.
  auto* findRate = new QPushButton(tr("Find a learning rate…"), optimizer);
  findRate->setObjectName(QStringLiteral("findLearningRate"));
  findRate->setToolTip(tr("Trains briefly while the rate grows and suggests where the loss falls fastest"));
  connect(findRate, &QPushButton::clicked, this, [this] {
    auto* dialog = new LrFindDialog(m_doc, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
  });
  optimizerForm->addRow(QString(), findRate);

  auto* leftColumn = new QVBoxLayout;
  leftColumn->addWidget(project);
  leftColumn->addWidget(global);
  leftColumn->addWidget(augmentation);
  leftColumn->addStretch(1);
  columns->addLayout(leftColumn, 1);
  auto* rightColumn = new QVBoxLayout;
  rightColumn->addWidget(optimizer);
  rightColumn->addStretch(1);
  columns->addLayout(rightColumn, 1);

  auto* scroll = new QScrollArea(this);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  // Note [Classifier head]: the dataset's classes against the head, with the fix.
  layout->addWidget(new ClassCountBar(doc, this));
  layout->addWidget(scroll);

  connect(doc, &ProjectDocument::settingsChanged, this, &ConfigPage::showValues);
  connect(doc, &ProjectDocument::loaded, this, &ConfigPage::showValues);
  showValues();
}

void ConfigPage::addSettings(QFormLayout* form, SettingGroup group) {
  for (const Setting* row : settingsOf(group)) {
    Kind kind = Kind::Number;
    switch (row->type) {
      case SettingType::Integer:
      case SettingType::Seed: kind = Kind::Integer; break;
      case SettingType::Number: kind = Kind::Number; break;
      case SettingType::Flag: kind = Kind::Flag; break;
      case SettingType::Choice: kind = Kind::Choice; break;
      case SettingType::Path: kind = Kind::Path; break;
    }
    QStringList choices;
    for (const auto& c : row->choices) choices << qs(c);
    // The table's words are English, as the engine's messages are.
    QString help = qs(row->help);
    if (kind == Kind::Integer || kind == Kind::Number) help += tr(" Expected: %1.").arg(qs(row->expected()));
    const QString path = qs(row->path);
    addField(form, path, qs(row->label), kind, help, choices);
    m_rows.insert(path, row);
    if (!row->absentText.empty()) {
      m_defaultTexts.insert(path, qs(row->absentText));
      m_offWhenAbsent.insert(path);
    }
  }
}

void ConfigPage::addField(QFormLayout* form, const QString& path, const QString& label, Kind kind, const QString& help,
                          const QStringList& choices) {
  QWidget* editor = nullptr;
  switch (kind) {
    case Kind::Choice: {
      auto* box = new QComboBox(this);
      box->addItems(choices);
      connect(box, &QComboBox::activated, this, [this, path, box] { edited(path, Json(ss(box->currentText()))); });
      editor = box;
      break;
    }
    case Kind::Flag: {
      auto* box = new QCheckBox(this);
      connect(box, &QCheckBox::toggled, this, [this, path](bool on) { edited(path, Json(on)); });
      editor = box;
      break;
    }
    default: {
      auto* line = new QLineEdit(this);
      // Checked on every keystroke; written only when valid.
      connect(line, &QLineEdit::textEdited, this, [this, path, kind](const QString& text) {
        if (text.trimmed().isEmpty()) return edited(path, Json());
        edited(path, kind == Kind::Text || kind == Kind::Path ? Json(ss(text)) : valueFromText(text));
      });
      editor = line;
      break;
    }
  }
  editor->setToolTip(help);
  editor->setObjectName(path);
  const FieldCell field = makeFieldCell(this, editor, kind == Kind::Path ? makePathChooser(path) : nullptr);
  auto* name = new QLabel(label, this);
  name->setToolTip(help);
  form->addRow(name, field.cell);
  m_editors.insert(path, editor);
  m_errors.insert(path, field.error);
  m_kinds.insert(path, kind);
}

// Note [Initial parameters]: a parameters file, or a previous run of this project (its folder).
QWidget* ConfigPage::makePathChooser(const QString& path) {
  auto* button = new QToolButton(this);
  button->setText(tr("Choose…"));
  button->setObjectName(path + QStringLiteral(".choose"));
  button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(button);
  button->setMenu(menu);
  connect(menu, &QMenu::aboutToShow, this, [this, menu] {
    menu->clear();
    menu->addAction(tr("A parameters file (.nsparams)…"), this, [this] {
      const QString file = QFileDialog::getOpenFileName(this, tr("Initial parameters"), QFileInfo(m_doc->path()).absolutePath(),
                                                        tr("Parameters (*.nsparams);;All files (*)"));
      if (!file.isEmpty()) chooseInitialParameters(file);
    });
    const QStringList runs = previousRuns();
    if (!runs.isEmpty()) menu->addSection(tr("A previous run of this project"));
    for (const QString& run : runs)
      menu->addAction(QFileInfo(run).fileName(), this, [this, run] { chooseInitialParameters(run); });
    if (runs.isEmpty()) menu->addAction(tr("(no finished run of this project yet)"))->setEnabled(false);
    menu->addSeparator();
    menu->addAction(tr("None (random initial weights)"), this, [this] { chooseInitialParameters({}); });
  });
  return button;
}

QStringList ConfigPage::previousRuns() const {
  if (m_doc->path().isEmpty()) return {};
  const QFileInfo project(m_doc->path());
  const QDir runs(project.dir().filePath(project.completeBaseName() + QStringLiteral(".runs")));
  QStringList out;
  for (const QFileInfo& run : runs.entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name | QDir::Reversed))
    if (QFileInfo::exists(run.filePath() + QStringLiteral("/parameters.nsparams")) ||
        QFileInfo::exists(run.filePath() + QStringLiteral("/best.nsparams")))
      out << run.absoluteFilePath();
  return out;
}

void ConfigPage::chooseInitialParameters(const QString& source) {
  const QString path = QStringLiteral("config.initial_parameters");
  if (auto* line = qobject_cast<QLineEdit*>(m_editors.value(path))) line->setText(source);
  edited(path, source.isEmpty() ? Json() : Json(ss(source)));
}

QString ConfigPage::errorFor(const QString& path) const {
  QLabel* e = m_errors.value(path);
  return e && !e->isHidden() ? e->text() : QString();
}

void ConfigPage::enterText(const QString& path, const QString& text) {
  auto* line = qobject_cast<QLineEdit*>(m_editors.value(path));
  if (!line) return;
  line->setText(text);
  emit line->textEdited(text);
}

void ConfigPage::edited(const QString& path, const Json& value) {
  if (m_showing) return;
  std::vector<std::pair<QString, Json>> changes{{path, value}};
  // A new solver takes only its own hyper-parameters: the old solver's values go with the change
  // (one undo step), or training would refuse a parameter the panel no longer shows.
  if (path == QLatin1String("optimizer.solver") && value.is_string()) {
    const Json from = settingValue(*m_doc, QStringLiteral("optimizer.solver"));
    for (const std::string& key :
         Optimizer::hyperParametersDroppedBySwitch(from.is_string() ? from.get<std::string>() : std::string(),
                                                   value.get<std::string>()))
      changes.emplace_back(qs("optimizer." + key), Json());
  }
  const QString refusal = applySettings(m_doc, path, changes);
  QLabel* error = m_errors.value(path);
  QWidget* editor = m_editors.value(path);
  error->setText(refusal);
  error->setVisible(!refusal.isEmpty());
  editor->setStyleSheet(refusal.isEmpty() ? QString() : QStringLiteral("border:2px solid #c0392b"));
}

void ConfigPage::showRelevantFields(const Json& project) {
  const Json& optimizer = project.contains("optimizer") ? project["optimizer"] : Json::object();
  const std::string solver = optimizer.value("solver", std::string());
  const std::string schedule = optimizer.value("lr_schedule", std::string("none"));
  const Json solverDefaults = Optimizer::defaultHyperParameters(solver);
  const Json scheduleDefaults = LearningRateSchedule::defaultParameters(schedule);
  for (const Setting& row : settingsTable()) {
    if (row.solvers.empty() && row.schedules.empty()) continue;
    const auto has = [](const std::vector<std::string>& names, const std::string& name) {
      return std::find(names.begin(), names.end(), name) != names.end();
    };
    const bool relevant = row.solvers.empty() ? has(row.schedules, schedule) : has(row.solvers, solver);
    const QString path = qs(row.path);
    QWidget* editor = m_editors.value(path);
    // The editor's parent is its field cell (makeFieldCell): the form row to show or hide.
    m_optimizerForm->setRowVisible(editor->parentWidget(), relevant);
    const Json& defaults = row.solvers.empty() ? scheduleDefaults : solverDefaults;
    if (relevant && defaults.contains(row.key)) m_defaultTexts.insert(path, tr("default %1").arg(qs(defaults[row.key].dump())));
  }
}

void ConfigPage::showValues() {
  m_showing = true;
  const Json json = projectToJson(m_doc->toProject());
  showRelevantFields(json);
  for (auto it = m_editors.cbegin(); it != m_editors.cend(); ++it) {
    std::string pointer = "/" + ss(it.key());
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    const Json::json_pointer ptr(pointer);
    Json value = json.contains(ptr) ? json.at(ptr) : Json();
    QWidget* editor = it.value();
    // A setting written only when not its default (save_best) shows the default when absent.
    const Setting* row = m_rows.value(it.key());
    if (value.is_null() && row && row->write == WritePolicy::UnlessDefault && !qobject_cast<QLineEdit*>(editor))
      value = row->defaultValue;
    const QSignalBlocker block(editor);
    if (auto* line = qobject_cast<QLineEdit*>(editor)) {
      // A field being typed in keeps the user's text (it may be refused and not in the document).
      if (line->hasFocus() && !m_errors.value(it.key())->isHidden()) continue;
      const QString text = value.is_null() ? QString() : value.is_string() ? qs(value.get<std::string>()) : qs(value.dump());
      // An augmentation field that is off is absent from the project, so a typed 0 keeps its text.
      const Json typed = valueFromText(line->text());
      const bool sameValue = typed == value || (m_offWhenAbsent.contains(it.key()) && value.is_null() && typed.is_number() &&
                                                typed.get<double>() == 0);
      if (line->text() != text && !(line->hasFocus() && sameValue)) line->setText(text);
      line->setPlaceholderText(value.is_null() ? m_defaultTexts.value(it.key(), tr("default")) : QString());
    } else if (auto* box = qobject_cast<QComboBox*>(editor)) {
      box->setCurrentText(value.is_string() ? qs(value.get<std::string>()) : QString());
    } else if (auto* check = qobject_cast<QCheckBox*>(editor)) {
      check->setChecked(value.is_boolean() && value.get<bool>());
    }
    m_errors.value(it.key())->hide();
    editor->setStyleSheet({});
  }
  m_showing = false;
}

}  // namespace netsmith::gui
