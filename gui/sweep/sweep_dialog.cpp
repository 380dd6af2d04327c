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
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QUrl>
#include <QVBoxLayout>

#include "engine/core/error.h"
#include "gui/run/cli_command.h"
#include "gui/sweep/layer_settings.h"
#include "gui/sweep/sweep_preview.h"

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

  m_search = new SearchBox(this);
  connect(m_search, &SearchBox::edited, this, &SweepDialog::searchChanged);
  auto* groups = new QHBoxLayout;
  groups->addWidget(buildSettings(), 5);
  groups->addWidget(m_search, 3);
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
  m_openProject = new QPushButton(tr("Open as project"), this);
  m_openProject->setToolTip(tr("Open the selected trial's project (the project with its settings) in the console"));
  m_resume = new QPushButton(tr("Resume"), this);
  m_resume->setToolTip(tr("Continue the stopped study: the same trials, each from its newest checkpoint, then new ones (sweep --resume)"));
  auto* close = new QPushButton(tr("Close"), this);
  close->setToolTip(tr("A running sweep goes on; Training ▸ Sweep… shows it again"));
  connect(m_start, &QPushButton::clicked, this, &SweepDialog::start);
  connect(m_stop, &QPushButton::clicked, this, &SweepDialog::stop);
  connect(m_showRun, &QPushButton::clicked, this, &SweepDialog::showSelectedRun);
  connect(m_openFolder, &QPushButton::clicked, this, &SweepDialog::openSelectedFolder);
  connect(m_openProject, &QPushButton::clicked, this, &SweepDialog::openSelectedProject);
  connect(m_resume, &QPushButton::clicked, this, &SweepDialog::resume);
  connect(close, &QPushButton::clicked, this, &QDialog::hide);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_preview, 1);
  for (QPushButton* b : {m_start, m_stop, m_resume, m_showRun, m_openProject, m_openFolder, close}) buttons->addWidget(b);

  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("sweepStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(unsavedRow);
  layout->addLayout(groups);
  layout->addLayout(buttons);
  layout->addWidget(buildResults(), 1);
  layout->addWidget(m_status);

  connect(&m_runner, &SweepRunner::rowsChanged, this, [this] {
    m_table->sweepModel()->setRows(m_runner.rows());
    m_table->resizeColumnsToContents();
    refreshStudyView();
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
  resize(1340, 740);
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

QWidget* SweepDialog::buildResults() {
  m_table = new SweepTable(this);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_table, &SweepTable::showRunRequested, this, &SweepDialog::showRunRequested);
  connect(m_table, &QWidget::customContextMenuRequested, this, &SweepDialog::showContextMenu);
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    updateButtons();
    refreshStudyView();
  });
  m_studyView = new StudyView(this);
  connect(m_studyView, &StudyView::trialClicked, m_table, &SweepTable::selectTrial);
  // Side by side: at 1366×768 both keep about 650 px of width and the dialog's full height below
  // the settings, where one above the other would leave each a strip.
  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(m_table);
  split->addWidget(m_studyView);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  return split;
}

void SweepDialog::showContextMenu(const QPoint& at) {
  if (!m_table->indexAt(at).isValid()) return;
  QMenu menu(this);
  menu.addAction(tr("Show in Training page"), this, &SweepDialog::showSelectedRun)->setEnabled(m_showRun->isEnabled());
  menu.addAction(tr("Open as project"), this, &SweepDialog::openSelectedProject)->setEnabled(m_openProject->isEnabled());
  menu.addAction(tr("Open run folder"), this, &SweepDialog::openSelectedFolder)->setEnabled(m_openFolder->isEnabled());
  menu.exec(m_table->viewport()->mapToGlobal(at));
}

void SweepDialog::refreshStudyView() { m_studyView->setStudy(m_runner.studyLog(), m_table->selectedTrial()); }

QWidget* SweepDialog::buildDevices() {
  auto* box = new QGroupBox(tr("Devices and limits"), this);
  m_devices = new QListWidget(box);
  m_devices->setObjectName(QStringLiteral("sweepDevices"));
  m_devices->setFlow(QListView::LeftToRight);
  m_devices->setWrapping(true);
  m_devices->setMaximumHeight(48);
  connect(m_devices, &QListWidget::itemChanged, this, &SweepDialog::updatePreview);
  m_devices->setToolTip(tr("Each trial trains on its own device, or group of devices: as many trials at once as groups"));
  // Says only why the devices could not be listed (hidden until then: the results need the height).
  m_devicesNote = new QLabel(box);
  m_devicesNote->setWordWrap(true);
  m_devicesNote->hide();
  m_devicesPerTrial = new QSpinBox(box);
  m_devicesPerTrial->setObjectName(QStringLiteral("sweepDevicesPerTrial"));
  m_devicesPerTrial->setRange(1, 64);
  m_devicesPerTrial->setToolTip(tr("Devices each trial trains on, data-parallel (--devices-per-trial)"));
  connect(m_devicesPerTrial, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
  m_maxEpoch = limitBox(box, QStringLiteral("sweepMaxEpoch"), tr("the project's"), 100000);
  m_trainSamples = limitBox(box, QStringLiteral("sweepTrainSamples"), tr("all"), 1 << 30);
  m_validationSamples = limitBox(box, QStringLiteral("sweepValidationSamples"), tr("all"), 1 << 30);
  for (QSpinBox* b : {m_maxEpoch, m_trainSamples, m_validationSamples})
    connect(b, &QSpinBox::valueChanged, this, &SweepDialog::updatePreview);
  auto* form = new QFormLayout;
  form->addRow(tr("Devices per trial"), m_devicesPerTrial);
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
      m_devicesNote->show();
      return;
    }
    try {
      setAvailableDevices(devicesFromJson(Json::parse(r.standardOutput.toStdString())));
    } catch (const std::exception& e) {
      m_devicesNote->setText(tr("Devices could not be listed: %1").arg(QString::fromUtf8(e.what())));
      m_devicesNote->show();
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

void SweepDialog::addQueuedProject(const QString& file) { m_search->addQueuedProject(file); }

QStringList SweepDialog::queuedProjects() const { return m_search->queuedProjects(); }

void SweepDialog::setDevicesPerTrial(int n) { m_devicesPerTrial->setValue(n); }

void SweepDialog::searchChanged() {
  const bool grid = m_search->search() == study::SearchKind::Grid;
  for (SweepAxisEditor* a : m_axes) a->setSearchMode(!grid);
  m_useSecond->setText(grid ? tr("and a second setting (every combination)") : tr("and a second setting"));
  updatePreview();
}

void SweepDialog::setLimits(int maxEpoch, int trainSamples, int validationSamples) {
  m_maxEpoch->setValue(maxEpoch);
  m_trainSamples->setValue(trainSamples);
  m_validationSamples->setValue(validationSamples);
}

void SweepDialog::projectChanged() {
  const Project& project = m_doc->settings();
  auto settings = sweepableSettings(project);
  for (SweepSetting& s : layerSettings(m_doc->graph()->spec())) settings.push_back(std::move(s));
  m_axes[0]->setSettings(settings, learningRatePath(project));
  m_axes[1]->setSettings(settings, QStringLiteral("config.batch_size"));
  const bool saved = !m_doc->path().isEmpty();
  m_unsaved->setVisible(!saved || m_doc->isModified());
  m_save->setVisible(saved && m_doc->isModified());
  m_unsaved->setText(!saved ? tr("The sweep trains a project file: save the project first (File ▸ Save As…).")
                            : tr("The project has unsaved changes; the sweep trains the file as saved."));
  setWindowTitle(tr("Sweep — %1").arg(m_doc->displayName()));
  m_search->setProjectFolder(QFileInfo(m_doc->path()).absolutePath());
  updatePreview();
}

std::optional<SweepRequest> SweepDialog::request(QString* error) const {
  SweepRequest r;
  r.project = m_doc->path().isEmpty() ? QString() : QFileInfo(m_doc->path()).absoluteFilePath();
  r.search = m_search->search();
  if (r.isSearch()) {
    r.trials = m_search->trials();
    r.timeBudgetMinutes = m_search->timeBudgetMinutes();
    r.earlyStop = m_search->earlyStop();
  }
  r.devicesPerTrial = m_devicesPerTrial->value();
  // "none" as the first setting: each project trains once (a queue of projects).
  const int axes = m_axes[0]->chosenPath().isEmpty() ? 0 : m_useSecond->isChecked() ? 2 : 1;
  for (int i = 0; i < axes; ++i) {
    auto axis = m_axes[i]->axis(error);
    if (!axis) return std::nullopt;
    r.axes.push_back(*axis);
  }
  if (!r.isSearch()) r.queuedProjects = queuedProjects();
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
    m_preview->setStyleSheet({});
    m_preview->setText(previewText(*r));
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
  m_openProject->setEnabled(!m_table->selectedTrialProject().isEmpty());
  m_resume->setEnabled(m_runner.canResume());
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

bool SweepDialog::resume() {
  if (!m_runner.canResume()) return false;
  if (!m_runner.resume(m_runner.sweepFolder(), checkedDevices(), m_devicesPerTrial->value())) {
    m_status->setText(m_runner.lastError());
    return false;
  }
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

void SweepDialog::openSelectedProject() {
  const QString project = m_table->selectedTrialProject();
  if (!project.isEmpty()) emit openProjectRequested(project);
}

void SweepDialog::openSelectedFolder() {
  const QString folder = m_table->selectedRunFolder();
  if (!folder.isEmpty()) QDesktopServices::openUrl(QUrl::fromLocalFile(folder));
}

}  // namespace netsmith::gui
