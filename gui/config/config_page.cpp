#include "gui/config/config_page.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QVBoxLayout>

#include "engine/optim/lr_schedule.h"
#include "engine/optim/optimizer.h"
#include "engine/project/project_io.h"
#include "gui/app/field_cell.h"
#include "gui/document/settings_edit.h"

namespace netsmith::gui {

ConfigPage::ConfigPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  auto* content = new QWidget(this);
  auto* columns = new QHBoxLayout(content);

  auto* project = new QGroupBox(tr("Project"), content);
  auto* projectForm = new QFormLayout(project);
  addField(projectForm, QStringLiteral("name"), tr("Name"), Kind::Text, tr("The project's name, shown in the title and run history."));

  auto* global = new QGroupBox(tr("Global Config"), content);
  auto* globalForm = new QFormLayout(global);
  addField(globalForm, QStringLiteral("config.max_epoch"), tr("Max epoch"), Kind::Integer, tr("Epochs to train."));
  addField(globalForm, QStringLiteral("config.batch_size"), tr("Batch size"), Kind::Integer,
           tr("Samples per iteration on each device; with N devices the logical batch is N times this."));
  addField(globalForm, QStringLiteral("config.monitor_interval"), tr("Monitor interval"), Kind::Integer,
           tr("Validate every N epochs (and after the last)."));
  addField(globalForm, QStringLiteral("config.precision"), tr("Precision"), Kind::Choice,
           tr("float: 32-bit everywhere. bfloat16: bf16 products in convolutions and inner products, 32-bit weights and "
              "accumulation, on GPUs and on CPUs with AVX512-BF16 or AMX. half: fp16 on CUDA devices only."),
           {QStringLiteral("float"), QStringLiteral("half"), QStringLiteral("bfloat16")});
  addField(globalForm, QStringLiteral("config.seed"), tr("Seed"), Kind::Integer, tr("Initial weights, shuffling and Dropout masks."));
  addField(globalForm, QStringLiteral("config.deterministic"), tr("Deterministic"), Kind::Flag,
           tr("Bitwise identical weights on 1, 2 or 4 devices and after a resume (slower)."));

  // config.augmentation: an absent field is off; an empty field shows "off".
  auto* augmentation = new QGroupBox(tr("Augmentation"), content);
  augmentation->setToolTip(tr("Random changes to each training image, drawn from the seed, the epoch and the sample's "
                              "index, so deterministic runs stay identical on 1, 2 or 4 devices. Validation, evaluation "
                              "and inference see the images as they are."));
  auto* augmentationForm = new QFormLayout(augmentation);
  const QString a = QStringLiteral("config.augmentation.");
  addField(augmentationForm, a + "flip_horizontal", tr("Horizontal flip"), Kind::Flag,
           tr("Mirror left-right with probability 0.5."));
  addField(augmentationForm, a + "flip_vertical", tr("Vertical flip"), Kind::Flag, tr("Mirror top-bottom with probability 0.5."));
  addField(augmentationForm, a + "crop_padding", tr("Crop padding"), Kind::Integer,
           tr("Pad by this many zero pixels on every side, then crop back to the image size at a random place."));
  addField(augmentationForm, a + "rotation_degrees", tr("Rotation (°)"), Kind::Number,
           tr("Rotate by a random angle within ± this many degrees (0 to 180); corners outside the image are 0."));
  addField(augmentationForm, a + "scale", tr("Scale"), Kind::Number,
           tr("Zoom by a random factor within 1 ± this (0 to below 1): 0.1 gives ×0.9 to ×1.1."));
  addField(augmentationForm, a + "shift", tr("Shift"), Kind::Number,
           tr("Move by whole pixels, up to this fraction of the width and height (0 to 1)."));
  addField(augmentationForm, a + "brightness", tr("Brightness"), Kind::Number,
           tr("Multiply every value by a random factor within 1 ± this (not below 0)."));
  addField(augmentationForm, a + "contrast", tr("Contrast"), Kind::Number,
           tr("Scale each value's distance to the image's mean by a random factor within 1 ± this (not below 0)."));
  for (const char* key : {"crop_padding", "rotation_degrees", "scale", "shift", "brightness", "contrast"})
    m_defaultTexts.insert(a + key, tr("off"));
  for (auto it = m_editors.cbegin(); it != m_editors.cend(); ++it)
    if (it.key().startsWith(a)) m_offWhenAbsent.insert(it.key());
  auto* trainingOnly = new QLabel(tr("Training only: validation, evaluation and inference use the images as they are."), augmentation);
  trainingOnly->setWordWrap(true);
  augmentationForm->addRow(trainingOnly);

  auto* optimizer = new QGroupBox(tr("Optimizer"), content);
  auto* optimizerForm = new QFormLayout(optimizer);
  m_optimizerForm = optimizerForm;
  QStringList solvers;
  for (const auto& s : solverNames()) solvers << qs(s);
  addField(optimizerForm, QStringLiteral("optimizer.solver"), tr("Solver"), Kind::Choice, tr("Update rule (as in nnabla)."), solvers);
  for (const auto& name : solverHyperParameterNames())
    addField(optimizerForm, QStringLiteral("optimizer.") + qs(name), qs(name), Kind::Number,
             tr("Solver hyper-parameter; leave empty for the solver's default."));
  addField(optimizerForm, QStringLiteral("optimizer.weight_decay"), tr("Weight decay"), Kind::Number, tr("Adds wd·w to the gradient."));
  addField(optimizerForm, QStringLiteral("optimizer.lr_multiplier"), tr("LR multiplier"), Kind::Number,
           tr("Learning rate × this every LR update interval."));
  addField(optimizerForm, QStringLiteral("optimizer.lr_update_interval"), tr("LR update interval"), Kind::Integer,
           tr("Iterations between learning-rate multiplications."));
  addField(optimizerForm, QStringLiteral("optimizer.warmup_epochs"), tr("Warm-up epochs"), Kind::Number,
           tr("Linear learning-rate warm-up over these epochs."));
  QStringList schedules;
  for (const auto& name : LearningRateSchedule::names()) schedules << qs(name);
  addField(optimizerForm, QStringLiteral("optimizer.lr_schedule"), tr("Schedule"), Kind::Choice,
           tr("none, cosine (to 0), step (× gamma every step_epochs) or exponential (× gamma per epoch)."), schedules);
  addField(optimizerForm, QStringLiteral("optimizer.gamma"), tr("gamma"), Kind::Number, tr("step/exponential schedule factor."));
  addField(optimizerForm, QStringLiteral("optimizer.step_epochs"), tr("step_epochs"), Kind::Integer, tr("step schedule period."));

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
  layout->addWidget(scroll);

  connect(doc, &ProjectDocument::settingsChanged, this, &ConfigPage::showValues);
  connect(doc, &ProjectDocument::loaded, this, &ConfigPage::showValues);
  showValues();
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
        edited(path, kind == Kind::Text ? Json(ss(text)) : valueFromText(text));
      });
      editor = line;
      break;
    }
  }
  editor->setToolTip(help);
  editor->setObjectName(path);
  const FieldCell field = makeFieldCell(this, editor);
  auto* name = new QLabel(label, this);
  name->setToolTip(help);
  form->addRow(name, field.cell);
  m_editors.insert(path, editor);
  m_errors.insert(path, field.error);
  m_kinds.insert(path, kind);
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
    const Json own = Optimizer::defaultHyperParameters(value.get<std::string>());
    for (const auto& name : solverHyperParameterNames())
      if (!own.contains(name)) changes.emplace_back(QStringLiteral("optimizer.") + qs(name), Json());
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
  const Json solver = Optimizer::defaultHyperParameters(optimizer.value("solver", std::string()));
  const Json schedule = LearningRateSchedule::defaultParameters(optimizer.value("lr_schedule", std::string("none")));
  const auto show = [&](const std::string& name, const Json& defaults) {
    const QString path = QStringLiteral("optimizer.") + qs(name);
    QWidget* editor = m_editors.value(path);
    if (!editor) return;
    const bool relevant = defaults.contains(name);
    // The editor's parent is its field cell (makeFieldCell): the form row to show or hide.
    m_optimizerForm->setRowVisible(editor->parentWidget(), relevant);
    if (relevant) m_defaultTexts.insert(path, tr("default %1").arg(qs(defaults[name].dump())));
  };
  for (const auto& name : solverHyperParameterNames()) show(name, solver);
  for (const auto& name : LearningRateSchedule::names()) {
    const Json params = LearningRateSchedule::defaultParameters(name);
    for (const auto& [param, value] : params.items()) show(param, schedule);
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
    const Json value = json.contains(ptr) ? json.at(ptr) : Json();
    QWidget* editor = it.value();
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
