#include "gui/sweep/sweep_dialog.h"

#include <QCheckBox>
#include <QDesktopServices>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "gui/run/cli_command.h"

namespace netsmith::gui {

namespace {
QSpinBox* limitBox(QWidget* parent, const QString& name, const QString& whenZero, int max) {
  auto* box = new QSpinBox(parent);
  box->setObjectName(name);
  box->setRange(0, max);
  box->setSpecialValueText(whenZero);
  return box;
}
}  // namespace

SweepDialog::SweepDialog(ProjectDocument* doc, QWidget* parent) : QDialog(parent), m_doc(doc) {
  setWindowTitle(tr("Sweep"));
  setObjectName(QStringLiteral("sweepDialog"));

  m_unsaved = new QLabel(this);
  m_unsaved->setWordWrap(true);
  m_unsaved->setStyleSheet(QStringLiteral("color: #a05a00;"));
  m_save = new QPushButton(tr("Save project"), this);
  connect(m_save, &QPushButton::clicked, this, [this] {
    try {
      m_doc->save(m_doc->path());
    } catch (const Error& e) {
      m_unsaved->setText(QString::fromUtf8(e.what()));
    }
  });
  auto* unsavedRow = new QHBoxLayout;
  unsavedRow->addWidget(m_unsaved, 1);
  unsavedRow->addWidget(m_save);

  auto* groups = new QHBoxLayout;
  groups->addWidget(buildSettings(), 5);
  groups->addWidget(buildQueue(), 3);
  groups->addWidget(buildDevices(), 3);

  m_preview = new QLabel(this);
  m_preview->setObjectName(QStringLiteral("sweepPreview"));
  m_preview->setWordWrap(true);
  m_start = new QPushButton(tr("Start sweep"), this);
  m_start->setObjectName(QStringLiteral("sweepStart"));
  m_stop = new QPushButton(tr("Stop"), this);
  m_showRun = new QPushButton(tr("Show in Training page"), this);
  m_showRun->setToolTip(tr("Overlay the selected row's learning curve in the Training page's run history (or double-click the row)"));
  m_openFolder = new QPushButton(tr("Open run folder"), this);
  auto* close = new QPushButton(tr("Close"), this);
  close->setToolTip(tr("A running sweep goes on; Training ▸ Sweep… shows it again"));
  connect(m_start, &QPushButton::clicked, this, &SweepDialog::start);
  connect(m_stop, &QPushButton::clicked, this, &SweepDialog::stop);
  connect(m_showRun, &QPushButton::clicked, this, &SweepDialog::showSelectedRun);
  connect(m_openFolder, &QPushButton::clicked, this, &SweepDialog::openSelectedFolder);
  connect(close, &QPushButton::clicked, this, &QDialog::hide);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_preview, 1);
  for (QPushButton* b : {m_start, m_stop, m_showRun, m_openFolder, close}) buttons->addWidget(b);

  m_table = new SweepTable(this);
  connect(m_table, &SweepTable::showRunRequested, this, &SweepDialog::showRunRequested);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SweepDialog::updateButtons);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("sweepStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(unsavedRow);
  layout->addLayout(groups);
  layout->addLayout(buttons);
  layout->addWidget(m_table, 1);
  layout->addWidget(m_status);

  connect(&m_runner, &SweepRunner::rowsChanged, this, [this] {
    m_table->sweepModel()->setRows(m_runner.rows());
    m_table->resizeColumnsToContents();
    updateButtons();
  });
  connect(&m_runner, &SweepRunner::statusChanged, m_status, &QLabel::setText);
  connect(&m_runner, &SweepRunner::finished, this, [this] {
    m_table->selectBest();
    updateButtons();
  });
  connect(m_doc, &ProjectDocument::loaded, this, &SweepDialog::projectChanged);
  connect(m_doc, &ProjectDocument::settingsChanged, this, &SweepDialog::projectChanged);
  connect(m_doc, &ProjectDocument::modifiedChanged, this, &SweepDialog::projectChanged);
  connect(m_doc, &ProjectDocument::pathChanged, this, &SweepDialog::projectChanged);
  projectChanged();
  setCheckedDevices({});
  resize(1280, 700);
}

SweepDialog::~SweepDialog() { cancelCliCommand(m_devicesQuery); }

QWidget* SweepDialog::buildSettings() {
  auto* box = new QGroupBox(tr("Settings to vary"), this);
  m_axes[0] = new SweepAxisEditor(box);
  m_axes[0]->setObjectName(QStringLiteral("sweepAxis1"));
  m_axes[0]->setNoneAllowed(true);
  m_axes[1] = new SweepAxisEditor(box);
  m_axes[1]->setObjectName(QStringLiteral("sweepAxis2"));
  m_axes[1]->setEnabled(false);
  m_useSecond = new QCheckBox(tr("and a second setting (every combination)"), box);
  connect(m_useSecond, &QCheckBox::toggled, this, &SweepDialog::updatePreview);
  // A learning-rate sweep is the common one: its grid is ready to start.
  m_axes[0]->setGrid(QStringLiteral("1e-4"), QStringLiteral("1e-1"), 4, GridSpacing::Log);
  m_axes[1]->setList(QStringLiteral("32, 64, 128"));
  for (SweepAxisEditor* a : m_axes) connect(a, &SweepAxisEditor::edited, this, &SweepDialog::updatePreview);
  auto* layout = new QVBoxLayout(box);
  layout->addWidget(m_axes[0]);
  layout->addWidget(m_useSecond);
  layout->addWidget(m_axes[1]);
  layout->addStretch();
  return box;
}

QWidget* SweepDialog::buildQueue() {
  auto* box = new QGroupBox(tr("Other projects (each trained once)"), this);
  m_queue = new QListWidget(box);
  m_queue->setObjectName(QStringLiteral("sweepQueue"));
  m_queue->setToolTip(tr("Queued after the settings' trainings, each on the next free device, with its own settings"));
  auto* add = new QPushButton(tr("Add…"), box);
  auto* remove = new QPushButton(tr("Remove"), box);
  connect(add, &QPushButton::clicked, this, [this] {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Queue projects"), QFileInfo(m_doc->path()).absolutePath(),
                                      tr("Netsmith projects (*.nsproj)"));
    for (const QString& f : files) addQueuedProject(f);
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    delete m_queue->currentItem();
    updatePreview();
  });
  auto* row = new QHBoxLayout;
  row->addWidget(add);
  row->addWidget(remove);
  row->addStretch();
  auto* layout = new QVBoxLayout(box);
  layout->addWidget(m_queue, 1);
  layout->addLayout(row);
  return box;
}

QWidget* SweepDialog::buildDevices() {
  auto* box = new QGroupBox(tr("Devices and limits"), this);
  m_devices = new QListWidget(box);
  m_devices->setObjectName(QStringLiteral("sweepDevices"));
  m_devices->setFlow(QListView::LeftToRight);
  m_devices->setWrapping(true);
  m_devices->setMaximumHeight(64);
  connect(m_devices, &QListWidget::itemChanged, this, &SweepDialog::updatePreview);
  m_devicesNote = new QLabel(tr("One training per ticked device at a time (the CLI's sweep gives each training one device)."), box);
  m_devicesNote->setWordWrap(true);
  m_maxEpoch = limitBox(box, QStringLiteral("sweepMaxEpoch"), tr("the project's"), 100000);
  m_trainSamples = limitBox(box, QStringLiteral("sweepTrainSamples"), tr("all"), 1 << 30);
  m_validationSamples = limitBox(box, QStringLiteral("sweepValidationSamples"), tr("all"), 1 << 30);
  for (QSpinBox* b : {m_maxEpoch, m_trainSamples, m_validationSamples})
    connect(b, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
  auto* form = new QFormLayout;
  form->addRow(tr("Max epoch"), m_maxEpoch);
  form->addRow(tr("Training samples"), m_trainSamples);
  form->addRow(tr("Validation samples"), m_validationSamples);
  auto* layout = new QVBoxLayout(box);
  layout->addWidget(m_devices);
  layout->addWidget(m_devicesNote);
  layout->addLayout(form);
  return box;
}

void SweepDialog::showEvent(QShowEvent* event) {
  QDialog::showEvent(event);
  if (!m_devicesAsked) queryDevices();
}

void SweepDialog::queryDevices() {
  m_devicesAsked = true;
  m_devicesQuery = runCliCommand(this, {QStringLiteral("devices"), QStringLiteral("--json")}, [this](const CliResult& r) {
    m_devicesQuery = nullptr;
    if (r.exitCode != 0) {
      m_devicesNote->setText(tr("Devices could not be listed: %1").arg(r.errorText()));
      return;
    }
    try {
      setAvailableDevices(devicesFromJson(Json::parse(r.standardOutput.toStdString())));
    } catch (const std::exception& e) {
      m_devicesNote->setText(tr("Devices could not be listed: %1").arg(QString::fromUtf8(e.what())));
    }
  });
}

void SweepDialog::setAvailableDevices(const std::vector<DeviceInfo>& devices) {
  const QStringList ticked = checkedDevices();
  {
    const QSignalBlocker block(m_devices);
    m_devices->clear();
    for (const DeviceInfo& d : devices) {
      auto* item = new QListWidgetItem(QString::fromStdString(d.id), m_devices);
      item->setToolTip(QString::fromStdString(d.name));
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(Qt::Unchecked);
    }
  }
  setCheckedDevices(ticked);
}

void SweepDialog::setCheckedDevices(const QStringList& ids) {
  QStringList wanted = ids;
  if (wanted.isEmpty())
    for (const std::string& d : m_doc->settings().parallel.devices) wanted << QString::fromStdString(d);
  {
    const QSignalBlocker block(m_devices);
    for (const QString& id : wanted)
      if (m_devices->findItems(id, Qt::MatchExactly).isEmpty()) {
        auto* item = new QListWidgetItem(id, m_devices);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      }
    for (int i = 0; i < m_devices->count(); ++i)
      m_devices->item(i)->setCheckState(wanted.contains(m_devices->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  }
  updatePreview();
}

QStringList SweepDialog::checkedDevices() const {
  QStringList out;
  for (int i = 0; i < m_devices->count(); ++i)
    if (m_devices->item(i)->checkState() == Qt::Checked) out << m_devices->item(i)->text();
  return out;
}

void SweepDialog::addQueuedProject(const QString& file) {
  const QString absolute = QFileInfo(file).absoluteFilePath();
  if (!queuedProjects().contains(absolute)) {
    auto* item = new QListWidgetItem(QFileInfo(absolute).fileName(), m_queue);
    item->setData(Qt::UserRole, absolute);
    item->setToolTip(absolute);
  }
  updatePreview();
}

QStringList SweepDialog::queuedProjects() const {
  QStringList out;
  for (int i = 0; i < m_queue->count(); ++i) out << m_queue->item(i)->data(Qt::UserRole).toString();
  return out;
}

void SweepDialog::setLimits(int maxEpoch, int trainSamples, int validationSamples) {
  m_maxEpoch->setValue(maxEpoch);
  m_trainSamples->setValue(trainSamples);
  m_validationSamples->setValue(validationSamples);
}

void SweepDialog::projectChanged() {
  const Project& project = m_doc->settings();
  const auto settings = sweepableSettings(project);
  m_axes[0]->setSettings(settings, learningRatePath(project));
  m_axes[1]->setSettings(settings, QStringLiteral("config.batch_size"));
  const bool saved = !m_doc->path().isEmpty();
  m_unsaved->setVisible(!saved || m_doc->isModified());
  m_save->setVisible(saved && m_doc->isModified());
  m_unsaved->setText(!saved ? tr("The sweep trains a project file: save the project first (File ▸ Save As…).")
                            : tr("The project has unsaved changes; the sweep trains the file as saved."));
  setWindowTitle(tr("Sweep — %1").arg(m_doc->displayName()));
  updatePreview();
}

std::optional<SweepRequest> SweepDialog::request(QString* error) const {
  SweepRequest r;
  r.project = m_doc->path().isEmpty() ? QString() : QFileInfo(m_doc->path()).absoluteFilePath();
  // "none" as the first setting: each project trains once (a queue of projects).
  const int axes = m_axes[0]->chosenPath().isEmpty() ? 0 : m_useSecond->isChecked() ? 2 : 1;
  for (int i = 0; i < axes; ++i) {
    auto axis = m_axes[i]->axis(error);
    if (!axis) return std::nullopt;
    r.axes.push_back(*axis);
  }
  r.queuedProjects = queuedProjects();
  r.devices = checkedDevices();
  if (r.devices.isEmpty()) {
    *error = tr("Tick at least one device.");
    return std::nullopt;
  }
  r.maxEpoch = m_maxEpoch->value();
  r.trainSamples = m_trainSamples->value();
  r.validationSamples = m_validationSamples->value();
  if (auto problem = r.problem()) {
    *error = *problem;
    return std::nullopt;
  }
  return r;
}

void SweepDialog::updatePreview() {
  const bool firstChosen = !m_axes[0]->chosenPath().isEmpty();
  m_useSecond->setEnabled(firstChosen);
  m_axes[1]->setEnabled(firstChosen && m_useSecond->isChecked());
  QString error;
  const auto r = request(&error);
  if (!r) {
    m_preview->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_preview->setText(error);
  } else {
    QStringList parts;
    for (const SweepAxis& a : r->axes) {
      QStringList values;
      for (double v : a.values) values << valueText(v);
      parts << QStringLiteral("%1: %2").arg(a.setting.path.section(QLatin1Char('.'), -1), values.join(QStringLiteral(", ")));
    }
    const auto queued = r->queuedProjects.size();
    if (queued > 0) parts << (queued == 1 ? tr("1 other project") : tr("%1 other projects").arg(queued));
    const int trainings = static_cast<int>(r->plannedRows().size());
    const int atOnce = std::min(trainings, static_cast<int>(r->devices.size()));
    m_preview->setStyleSheet({});
    const QString count = trainings == 1 ? tr("1 training") : tr("%1 trainings").arg(trainings);
    m_preview->setText(tr("%1, %2 at a time — %3").arg(count).arg(atOnce).arg(parts.join(QStringLiteral("; "))));
  }
  updateButtons();
}

void SweepDialog::updateButtons() {
  const bool running = m_runner.isRunning();
  QString error;
  m_start->setEnabled(!running && request(&error).has_value());
  m_start->setToolTip(m_start->isEnabled() ? QString() : running ? tr("A sweep is running") : error);
  m_stop->setEnabled(running && !m_runner.stopRequested());
  const bool hasRun = !m_table->selectedRunFolder().isEmpty();
  m_showRun->setEnabled(hasRun);
  m_openFolder->setEnabled(hasRun);
}

bool SweepDialog::start() {
  QString error;
  const auto r = request(&error);
  if (!r || !m_runner.start(*r)) {
    m_status->setText(r ? m_runner.lastError() : error);
    return false;
  }
  m_table->sweepModel()->setRequest(*r);
  m_table->sweepModel()->setRows(m_runner.rows());
  m_table->resizeColumnsToContents();
  updateButtons();
  return true;
}

void SweepDialog::stop() {
  m_runner.stop();
  updateButtons();
}

QString SweepDialog::problemText() const {
  QString error;
  return request(&error) ? QString() : error;
}

QString SweepDialog::statusText() const { return m_status->text(); }

void SweepDialog::showSelectedRun() {
  const QString folder = m_table->selectedRunFolder();
  if (!folder.isEmpty()) emit showRunRequested(folder);
}

void SweepDialog::openSelectedFolder() {
  const QString folder = m_table->selectedRunFolder();
  if (!folder.isEmpty()) QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
}

}  // namespace netsmith::gui
