#include "gui/app/application.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QTimer>
#include <functional>

#include "gui/dataset/dataset_page.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/graph_view.h"

#include "gui/app/main_window.h"
#include "gui/evaluation/evaluation_page.h"
#include "gui/evaluation/inference_tab.h"
#include "gui/evaluation/sample_browser.h"
#include "gui/training/run_compare_window.h"
#include "gui/training/run_history_panel.h"
#include "gui/training/training_charts.h"
#include "gui/training/training_page.h"

namespace netsmith::gui {

QString EnglishPlurals::translate(const char*, const char* sourceText, const char*, int n) const {
  if (n < 0 || !sourceText) return {};
  QString text = QString::fromUtf8(sourceText);
  if (!text.contains(QLatin1String("%n"))) return {};
  static const QRegularExpression plural(QStringLiteral("\\((e?s)\\)"));
  if (!text.contains(plural)) return {};
  text.replace(plural, n == 1 ? QString() : QStringLiteral("\\1"));
  return text;
}

namespace {

// Hidden options for documentation screenshots: `--screenshot PAGE=FILE.png` (repeatable) grabs
// the window showing PAGE once the project is loaded; with `--screenshot-train "ARGS"` a training
// run with those extra engine arguments is made first and the grabs happen when it ends (or, for
// PAGE names ending in "@running", while it runs). PAGE "inference" is the Evaluation page's
// Inference tab with the images of `--screenshot-images A.png,B.jpg` classified. With
// `--screenshot-save-as FILE.nsproj` the project opens as a new one without a file (as a sample
// does) and is saved as FILE once the run ended, before the grabs (Note [Runs before the first Save]).
// PAGE "compare" is the run history's Compare window of the project's two newest runs, at the
// main window's size.
struct ScreenshotPlan {
  QList<QPair<QString, QString>> shots;  // page, file
  QString trainArguments;
  QString saveAs;
  QStringList images;
  bool any() const { return !shots.isEmpty(); }
};

// Lets the event loop run for `ms` (layout, queued replots, a preview being read).
void settle(int ms, const std::function<bool()>& done = {}) {
  QElapsedTimer clock;
  clock.start();
  while (clock.elapsed() < ms && !(done && done())) QApplication::processEvents(QEventLoop::AllEvents, 50);
  QApplication::processEvents();
}

void grab(MainWindow& window, const QString& page, const QString& file, const QStringList& images) {
  if (page == QLatin1String("compare")) {
    RunHistoryPanel* history = window.trainingPage()->historyPanel();
    history->refresh();
    const QList<RunSummary> runs = history->runs();  // newest first
    if (runs.size() < 2) {
      qWarning("--screenshot compare: the project has %d run(s); two are compared", int(runs.size()));
      return;
    }
    RunCompareWindow* compare = history->compareRuns(runs[1].folder, runs[0].folder);
    compare->setGeometry(window.geometry());
    settle(800);
    compare->grab().save(file);
    compare->close();
    return;
  }
  if (page == QLatin1String("inference")) {
    EvaluationPage* evaluation = window.evaluationPage();
    window.showPage(QStringLiteral("evaluation"));
    evaluation->refreshRuns();
    evaluation->showTab(1);
    if (evaluation->inference()->addImages(images))
      settle(600000, [evaluation] { return !evaluation->inference()->isRunning(); });
    settle(800);
    window.grab().save(file);
    return;
  }
  if (page == QLatin1String("edit") && window.editPage()->scene()->selectedNodeIds().isEmpty())
    window.editPage()->scene()->selectNodes({QStringLiteral("conv1")});  // shows the property panel
  window.showPage(page);
  if (page == QLatin1String("dataset")) {
    bool ready = false;
    QObject::connect(window.datasetPage(), &DatasetPage::previewReady, [&ready] { ready = true; });
    settle(20000, [&ready] { return ready; });
  }
  if (page == QLatin1String("evaluation")) {
    // The newest run, evaluated now unless its evaluation is already in the run folder.
    EvaluationPage* evaluation = window.evaluationPage();
    evaluation->refreshRuns();
    if (!evaluation->result() && evaluation->evaluate()) settle(600000, [evaluation] { return !evaluation->isEvaluating(); });
    settle(60000, [evaluation] { return evaluation->samples()->imagesLoaded() || !evaluation->samples()->imageError().isEmpty(); });
  }
  settle(800);
  if (page == QLatin1String("edit")) {
    window.editPage()->view()->showReadable();
    settle(300);
  }
  window.grab().save(file);
}

void runScreenshots(MainWindow& window, const ScreenshotPlan& plan) {
  auto finishShots = [&window, plan](bool running) {
    for (const auto& [page, file] : plan.shots) {
      const bool atRunTime = page.endsWith(QLatin1String("@running"));
      if (atRunTime != running) continue;
      grab(window, atRunTime ? page.chopped(8) : page, file, plan.images);
    }
  };
  if (plan.trainArguments.isEmpty()) {
    QTimer::singleShot(2500, &window, [finishShots] {
      finishShots(false);
      QApplication::quit();
    });
    return;
  }
  TrainingPage* training = window.trainingPage();
  training->setExtraArguments(QProcess::splitCommand(plan.trainArguments));
  QObject::connect(training->engine(), &EngineProcess::eventReceived, &window, [training, finishShots](const EngineEvent& e) {
    // One grab while running, after the second epoch event (charts have lines by then).
    static bool done = false;
    if (!done && std::holds_alternative<EpochEvent>(e) && training->epochEvents() >= 2) {
      done = true;
      training->charts()->flush();
      finishShots(true);
    }
  });
  QObject::connect(training, &TrainingPage::runningChanged, &window, [&window, plan, finishShots](bool running) {
    if (running) return;
    QTimer::singleShot(500, [&window, plan, finishShots] {
      if (!plan.saveAs.isEmpty()) window.saveAsFile(plan.saveAs);
      finishShots(false);
      QApplication::quit();
    });
  });
  QTimer::singleShot(2500, &window, [&window, training] {
    window.showPage(QStringLiteral("training"));
    if (!training->start()) QApplication::quit();
  });
}

}  // namespace

int runApplication(QApplication& app) {
  QApplication::setApplicationName(QStringLiteral("Netsmith"));
  QApplication::setOrganizationName(QStringLiteral("Netsmith"));
  QApplication::setApplicationVersion(QStringLiteral(NETSMITH_VERSION));
  QApplication::setApplicationDisplayName(QStringLiteral("Netsmith"));
  auto* plurals = new EnglishPlurals(&app);
  QCoreApplication::installTranslator(plurals);

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Netsmith: draw a neural network, train it, watch it learn."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("project"), QStringLiteral("a .nsproj project to open"));
  QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("PAGE=FILE.png"), QStringLiteral("shot"));
  screenshot.setFlags(QCommandLineOption::HiddenFromHelp);
  QCommandLineOption screenshotTrain(QStringLiteral("screenshot-train"), QStringLiteral("engine arguments"), QStringLiteral("args"));
  screenshotTrain.setFlags(QCommandLineOption::HiddenFromHelp);
  QCommandLineOption size(QStringLiteral("window-size"), QStringLiteral("WxH"), QStringLiteral("size"));
  size.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOption(screenshot);
  parser.addOption(screenshotTrain);
  QCommandLineOption screenshotImages(QStringLiteral("screenshot-images"), QStringLiteral("A.png,B.jpg"), QStringLiteral("files"));
  screenshotImages.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOption(size);
  parser.addOption(screenshotImages);
  QCommandLineOption screenshotSaveAs(QStringLiteral("screenshot-save-as"), QStringLiteral("FILE.nsproj"), QStringLiteral("file"));
  screenshotSaveAs.setFlags(QCommandLineOption::HiddenFromHelp);
  parser.addOption(screenshotSaveAs);
  parser.process(app);

  MainWindow window;
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.show();

  ScreenshotPlan plan;
  for (const QString& s : parser.values(screenshot)) {
    const QString page = s.section(QLatin1Char('='), 0, 0), file = s.section(QLatin1Char('='), 1);
    if (!page.isEmpty() && !file.isEmpty()) plan.shots << qMakePair(page, QFileInfo(file).absoluteFilePath());
  }
  plan.trainArguments = parser.value(screenshotTrain);
  plan.images = parser.value(screenshotImages).split(QLatin1Char(','), Qt::SkipEmptyParts);
  if (parser.isSet(screenshotSaveAs)) plan.saveAs = QFileInfo(parser.value(screenshotSaveAs)).absoluteFilePath();

  const QStringList args = parser.positionalArguments();
  bool opened = false;
  if (!plan.any()) opened = window.offerRecovery();
  if (!opened && !args.isEmpty())
    opened = plan.saveAs.isEmpty() ? window.openProject(args.first()) : window.newFromSample(args.first());
  if (!opened) window.document()->newProject();
  if (plan.any()) runScreenshots(window, plan);
  return app.exec();
}

}  // namespace netsmith::gui
