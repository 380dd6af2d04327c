#include "gui/app/main_window.h"

#include "engine/project/network_templates.h"
#include "gui/app/template_dialog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDesktopServices>
#include <QDir>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include "engine/core/error.h"
#include "gui/app/help_locations.h"
#include "gui/app/help_viewer.h"
#include "gui/app/import_model.h"
#include "gui/app/window_size.h"
#include "gui/config/config_page.h"
#include "gui/dataset/dataset_page.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_scene.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/run/cli_command.h"
#include "gui/sweep/sweep_window.h"
#include "gui/training/run_history.h"
#include "gui/training/training_page.h"

namespace netsmith::gui {

namespace {
const char* kPageNames[] = {"edit", "dataset", "config", "training", "evaluation"};
// The platform's keys for `standard` and then `extra`, once each.
QList<QKeySequence> withKeys(QKeySequence::StandardKey standard, const QList<QKeySequence>& extra) {
  QList<QKeySequence> keys = QKeySequence::keyBindings(standard);
  for (const QKeySequence& key : extra)
    if (!keys.contains(key)) keys << key;
  return keys;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  m_tabs = new QTabWidget(this);
  m_tabs->setObjectName(QStringLiteral("pages"));
  m_tabs->setDocumentMode(true);
  m_edit = new EditPage(&m_doc, this);
  m_dataset = new DatasetPage(&m_doc, this);
  m_config = new ConfigPage(&m_doc, this);
  m_training = new TrainingPage(&m_doc, this);
  m_evaluation = new EvaluationPage(&m_doc, this);
  // Each page in a scroll area: a page fills the window when the window is large enough, and
  // scrolls when the screen is smaller than the page's own minimum, so the window's minimum height
  // stays small enough for a 1366×768 screen with a taskbar (kMinimumHeight).
  const auto scrolled = [this](QWidget* page) {
    auto* area = new QScrollArea(this);
    area->setObjectName(page->objectName().isEmpty() ? QString() : page->objectName() + QStringLiteral("Scroll"));
    area->setWidget(page);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
  };
  m_tabs->addTab(scrolled(m_edit), tr("Edit"));
  m_tabs->addTab(scrolled(m_dataset), tr("Dataset"));
  m_tabs->addTab(scrolled(m_config), tr("Config"));
  m_tabs->addTab(scrolled(m_training), tr("Training"));
  m_tabs->addTab(scrolled(m_evaluation), tr("Evaluation"));
  setCentralWidget(m_tabs);
  setMinimumSize(kMinimumWidth, kMinimumHeight);
  createMenus();

  connect(&m_doc, &ProjectDocument::modifiedChanged, this, &MainWindow::updateTitle);
  connect(&m_doc, &ProjectDocument::pathChanged, this, &MainWindow::updateTitle);
  connect(&m_doc, &ProjectDocument::settingsChanged, this, &MainWindow::updateTitle);
  connect(m_edit, &EditPage::message, this, &MainWindow::showMessage);
  // Note [Divergence]: the block where the last run diverged is marked on the canvas.
  connect(m_training, &TrainingPage::divergedBlockChanged, m_edit->scene(), &GraphScene::markRunFailure);
  // A run that ends is one more run to evaluate.
  connect(m_training, &TrainingPage::runningChanged, m_evaluation, [this](bool running) {
    if (!running) m_evaluation->refreshRuns();
  });
  m_autosave.setInterval(kAutosaveIntervalMs);
  connect(&m_autosave, &QTimer::timeout, this, &MainWindow::autosave);
  m_autosave.start();

  QSettings settings;
  if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray())) sizeToScreen(this);
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  m_tabs->setCurrentIndex(settings.value(QStringLiteral("window/page"), 0).toInt());
  updateTitle();
}

void MainWindow::createMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&New"), QKeySequence::New, this, &MainWindow::newProject);
  m_samplesMenu = file->addMenu(tr("New from &sample"));
  m_samplesMenu->setObjectName(QStringLiteral("samplesMenu"));
  for (const SampleProject& sample : listSamples(samplesFolder())) {
    QAction* a = m_samplesMenu->addAction(sample.name, this, [this, file = sample.file] { newFromSample(file); });
    a->setData(sample.file);
    a->setToolTip(sample.file);
  }
  m_samplesMenu->setEnabled(!m_samplesMenu->isEmpty());
  file->addAction(tr("New from &template…"), this, &MainWindow::newFromTemplate)->setObjectName(QStringLiteral("newFromTemplate"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, &MainWindow::open);
  file->addAction(tr("&Import…"), this, [this] {  // an ONNX model or NNC file as a project (docs/onnx-import.md, docs/nnabla-import.md)
    if (!maybeSave()) return;
    const QString project = importModelDialog(this, m_doc.path().isEmpty() ? QString() : QFileInfo(m_doc.path()).absolutePath());
    if (!project.isEmpty()) openProject(project);
  })->setObjectName(QStringLiteral("importModel"));
  m_recentMenu = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
  file->addSeparator();
  file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
  QAction* saveAsAction = file->addAction(tr("Save &As…"), this, &MainWindow::saveAs);
  saveAsAction->setObjectName(QStringLiteral("saveAs"));
  // Ctrl+Shift+S on every desktop: Qt binds SaveAs to nothing outside KDE and GNOME.
  saveAsAction->setShortcuts(withKeys(QKeySequence::SaveAs, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)}));
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = m_doc.undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = m_doc.undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setObjectName(QStringLiteral("redo"));
  // Both common Redo keys on every desktop (Qt gives a desktop only its own scheme's).
  redo->setShortcuts(withKeys(QKeySequence::Redo, {QKeySequence(Qt::CTRL | Qt::Key_Y), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)}));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  for (QAction* a : {m_edit->cutAction(), m_edit->copyAction(), m_edit->pasteAction(), m_edit->deleteAction(),
                     m_edit->selectAllAction()})
    edit->addAction(a);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (QAction* a : {m_edit->zoomInAction(), m_edit->zoomOutAction(), m_edit->fitAction(), m_edit->autoArrangeAction()})
    view->addAction(a);
  view->addSeparator();
  for (int i = 0; i < 5; ++i) {
    QAction* go = view->addAction(m_tabs->tabText(i), this, [this, i] { m_tabs->setCurrentIndex(i); });
    go->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_1 + i)));
  }

  QMenu* training = menuBar()->addMenu(tr("&Training"));
  training->addAction(tr("&Start"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    showPage(QStringLiteral("training"));
    m_training->start();
  });
  training->addAction(tr("&Pause / Resume"), this, [this] {
    m_training->state() == TrainingPage::State::Paused ? m_training->resume() : m_training->pause();
  });
  training->addAction(tr("S&top"), this, [this] { m_training->stop(); });
  training->addAction(tr("S&weep…"), this, [this] {
    showSweepDialog(
        this, &m_doc, m_training, [this] { showPage(QStringLiteral("training")); },
        [this](const QString& project) {
          // A trial opens as File ▸ Open opens a project: unsaved changes are asked about first.
          if (maybeSave() && openProject(project)) showPage(QStringLiteral("edit"));
        });
  });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* pageHelp = help->addAction(tr("Help on this &page"), QKeySequence::HelpContents, this, &MainWindow::showPageHelp);
  pageHelp->setObjectName(QStringLiteral("helpPage"));
  pageHelp->setShortcutContext(Qt::ApplicationShortcut);
  QAction* docs = help->addAction(tr("&Documentation"), this, &MainWindow::openDocumentation);
  docs->setObjectName(QStringLiteral("helpDocumentation"));
  help->addSeparator();
  QAction* about = help->addAction(tr("&About Netsmith"), this, [this] {
    QMessageBox::about(this, tr("About Netsmith"),
                       tr("<h3>Netsmith %1</h3><p>A training console for neural networks: draw a network as a graph of "
                          "layer blocks, train it data-parallel on several GPUs or CPU workers, watch it learn, evaluate "
                          "it and export it to ONNX.</p><p>The engine is <tt>netsmith-cli</tt> (<tt>%2</tt>).</p>"
                          "<p>Documentation: <tt>%3</tt></p>")
                           .arg(QApplication::applicationVersion(), engineProgram().toHtmlEscaped(),
                                documentationFolder().isEmpty() ? tr("not found") : documentationFolder().toHtmlEscaped()));
  });
  about->setObjectName(QStringLiteral("helpAbout"));
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

QString MainWindow::currentPage() const {
  const int i = m_tabs->currentIndex();
  return i >= 0 && i < 5 ? QString::fromLatin1(kPageNames[i]) : QString();
}

bool MainWindow::newFromSample(const QString& file) {
  if (!maybeSave()) return false;
  const QString previous = m_doc.path();
  try {
    // A copy without a file: Save asks where to put it, so the installed sample is never written.
    m_doc.loadRecovered(file, QString());
  } catch (const Error& e) {
    QMessageBox::critical(this, tr("Cannot open the sample"), qs(e.what()));
    return false;
  }
  m_recovery.discard(previous);
  m_tabs->setCurrentIndex(0);  // Edit
  showMessage(tr("New project from the sample %1: File ▸ Save As keeps it").arg(QFileInfo(file).fileName()));
  return true;
}

bool MainWindow::newFromTemplate() {
  // The current dataset's sample shape (read for the Edit page's Input check) starts the fields.
  const auto& samples = m_doc.graph()->datasetSamples();
  TemplateDialog dialog(samples ? samples->shape : Shape{}, 10, this);
  if (dialog.exec() != QDialog::Accepted) return false;
  QString name = dialog.templateId();
  for (const NetworkTemplate& t : networkTemplates())
    if (qs(t.id) == dialog.templateId()) name = qs(t.name);
  return newProjectWithNetwork(dialog.network(), name);
}

bool MainWindow::newProjectWithNetwork(const NetworkSpec& network, const QString& name) {
  if (!maybeSave()) return false;
  const QString previous = m_doc.path();
  Project project = m_doc.toProject();
  project.network = network;
  project.name = ss(name);
  m_doc.newProject(project);
  m_recovery.discard(previous);
  m_tabs->setCurrentIndex(0);  // Edit
  showMessage(tr("New project from the %1 template: File ▸ Save As keeps it").arg(name));
  return true;
}

void MainWindow::showPageHelp() {
  const QString folder = documentationFolder();
  if (folder.isEmpty()) {
    QMessageBox::information(this, tr("Help"), tr("The documentation was not found. Looked in:\n%1")
                                                   .arg(documentationCandidates().join(QLatin1Char('\n'))));
    return;
  }
  if (!m_helpViewer) m_helpViewer = new HelpViewer(this);
  m_helpViewer->show();  // first, so the document is laid out at the window's width
  m_helpViewer->showSection(QDir(folder).filePath(QStringLiteral("gui.md")), pageHelpHeading(currentPage()));
  m_helpViewer->raise();
  m_helpViewer->activateWindow();
}

void MainWindow::openDocumentation() {
  const QString folder = documentationFolder();
  if (folder.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(QDir(folder).filePath(QStringLiteral("gui.md"))))) {
    // No viewer for Markdown on this desktop (or no documentation): the help window shows it.
    showPageHelp();
  }
}

void MainWindow::showMessage(const QString& text) { statusBar()->showMessage(text, 8000); }

void MainWindow::showPage(const QString& name) {
  for (int i = 0; i < 5; ++i)
    if (name == QLatin1String(kPageNames[i])) m_tabs->setCurrentIndex(i);
}

void MainWindow::updateTitle() {
  // The file's name, and the project's own name only where it says something the file name does not.
  const QString name = qs(m_doc.settings().name);
  const bool nameSaysMore = !m_doc.path().isEmpty() && QFileInfo(m_doc.path()).completeBaseName() != name;
  setWindowTitle(nameSaysMore ? QStringLiteral("%1[*] — %2 — Netsmith").arg(m_doc.displayName(), name)
                              : QStringLiteral("%1[*] — Netsmith").arg(m_doc.displayName()));
  setWindowModified(m_doc.isModified());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  bool stopRun = false;
  if (m_training->isRunning()) {
    // Note [The run outlives its console]: the run need not end with the window.
    QMessageBox box(QMessageBox::Question, tr("Training is running"),
                    tr("The run can go on without the console: opening this project again follows it, and Stop "
                       "stops it then. Or stop it now (it writes a checkpoint, and ⟳ Resume run continues it later)."),
                    QMessageBox::Cancel, this);
    QPushButton* keep = box.addButton(tr("Keep training"), QMessageBox::AcceptRole);
    QPushButton* stop = box.addButton(tr("Stop the run"), QMessageBox::DestructiveRole);
    box.setDefaultButton(keep);
    box.exec();
    if (box.clickedButton() != keep && box.clickedButton() != stop) return event->ignore();
    stopRun = box.clickedButton() == stop;
  }
  if (!maybeSave()) return event->ignore();
  m_training->leaveRunToItself(stopRun);
  m_recovery.discard(m_doc.path());
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  settings.setValue(QStringLiteral("window/page"), m_tabs->currentIndex());
  event->accept();
}

}  // namespace netsmith::gui
