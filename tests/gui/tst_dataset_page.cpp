// The Dataset page: "Create from folder…" driven through its dialog's widgets builds a dataset
// from PNG class folders on a worker thread, points the project at the created CSVs in one undo
// step and lists skipped files and duplicates; Cancel leaves no output folder; the preview shows
// one row of samples per class with the folder names, class-balance ticks at the class positions
// with those names (numbers when unnamed), and an augmentation preview whose epochs differ.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QtTest>

#include "engine/data/dataset.h"
#include "engine/data/folder/dataset_builder.h"
#include "engine/project/project_io.h"
#include "gui/dataset/create_dataset_dialog.h"
#include "gui/dataset/dataset_page.h"
#include "gui/document/settings_edit.h"

using namespace netsmith;
using namespace netsmith::gui;

namespace {

// SOURCE/<class>/<i>.png: `perClass` 16×16 gray shapes per class, each a little different (no
// duplicates among them).
void writeClassFolders(const QString& source, const QStringList& classes, int perClass, int side = 16) {
  for (int c = 0; c < classes.size(); ++c) {
    QVERIFY(QDir().mkpath(source + "/" + classes[c]));
    for (int i = 0; i < perClass; ++i) {
      QImage img(side, side, QImage::Format_Grayscale8);
      img.fill(10 + i % 7);
      QPainter p(&img);
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(200 + i % 50, 200 + i % 50, 200 + i % 50));
      const int m = 2 + i % 3;
      const QRect r(m, m, side - 2 * m - i % 2, side - 2 * m);
      if (c % 3 == 0) p.drawEllipse(r);
      else if (c % 3 == 1) p.drawRect(r);
      else p.drawPolygon(QPolygon({r.bottomLeft(), r.bottomRight(), QPoint(r.center().x(), r.top())}));
      p.end();
      img.setPixel(i % side, 0, static_cast<uint>(i));  // distinct bytes for every image
      QVERIFY(img.save(QString("%1/%2/%3.png").arg(source, classes[c]).arg(i, 4, 10, QChar('0'))));
    }
  }
}

ProjectDocument* loadLenet(QObject* parent) {
  auto* doc = new ProjectDocument(parent);
  doc->load(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj");
  return doc;
}

// The training dataset of the document points at `csv`.
void pointAt(ProjectDocument& doc, const QString& csv) {
  QCOMPARE(applySettings(&doc, "dataset.training", {{"dataset.training", Json{{"format", "csv"}, {"csv", csv.toStdString()}}},
                                                    {"dataset.validation", Json()},
                                                    {"dataset.scale", Json(1.0 / 255.0)}}),
           QString());
}

bool waitForPreview(DatasetPage& page) {
  QSignalSpy ready(&page, &DatasetPage::previewReady);
  page.reloadPreview();
  return ready.wait(60000);
}

QMap<double, QString> balanceTicks(DatasetPage& page) {
  auto ticker = page.balancePlot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
  return ticker ? ticker->ticks() : QMap<double, QString>();
}

}  // namespace

class TestDatasetPage : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  QString m_source;  // circle/ square/ triangle/, 10 images each, a text file and a duplicate
  QString m_built;   // a dataset of m_source built with the engine's API for the preview tests

 private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_source = m_dir.filePath("shapes");
    writeClassFolders(m_source, {"circle", "square", "triangle"}, 10);
    QFile notes(m_source + "/square/notes.txt");
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not an image\n");
    notes.close();
    QVERIFY(QFile::copy(m_source + "/circle/0003.png", m_source + "/circle/copy.png"));
    FolderDatasetOptions o;
    o.source = m_source.toStdString();
    o.output = m_dir.filePath("built").toStdString();
    const FolderDatasetResult r = buildFolderDataset(o);
    m_built = QString::fromStdString(r.trainingCsv.string());
  }

  // The acceptance path: the dialog's widgets filled in as a person would, Create, the worker
  // ends, the project trains on the created CSVs, one undo puts the IDX dataset back, and the
  // grid shows the three class folders by name.
  void createFromFolderSetsTheDatasetInOneUndoStep() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    const Json before = projectToJson(doc->toProject())["dataset"];
    DatasetPage page(doc.get());
    CreateDatasetDialog* dialog = page.openCreateDialog();
    QVERIFY(dialog && dialog->isVisible());

    auto* source = dialog->findChild<QLineEdit*>("sourceFolder");
    auto* output = dialog->findChild<QLineEdit*>("outputFolder");
    auto* validation = dialog->findChild<QDoubleSpinBox*>("validationPercent");
    auto* create = dialog->findChild<QPushButton*>("createButton");
    QVERIFY(source && output && validation && create);
    QCOMPARE(validation->value(), 20.0);  // the CLI's default
    QTest::keyClicks(source, m_source);
    QCOMPARE(output->text(), m_dir.filePath("shapes-dataset"));  // suggested beside the source
    const QString out = m_dir.filePath("made");
    output->selectAll();
    QTest::keyClicks(output, out);
    QCOMPARE(dialog->options().problem, QString());
    QVERIFY(!dialog->options().options.width);  // size: automatic
    QCOMPARE(dialog->options().options.channels, 0);

    QTest::mouseClick(create, Qt::LeftButton);
    QVERIFY(dialog->isBuilding());
    QTRY_VERIFY_WITH_TIMEOUT(dialog->outcome().has_value(), 60000);
    QVERIFY2(dialog->outcome()->error.isEmpty(), qPrintable(dialog->outcome()->error));
    const FolderDatasetResult& r = *dialog->outcome()->result;
    QVERIFY(!r.cancelled);
    QCOMPARE(r.trainingCount, 24);  // 8 of each class's 10 (20% drawn for validation)
    QCOMPARE(r.validationCount, 6);

    // The summary: splits, classes, the skipped text file with its reason, the duplicate.
    QVERIFY2(dialog->summaryText().contains("24 images"), qPrintable(dialog->summaryText()));
    QVERIFY2(dialog->summaryText().contains("3 classes"), qPrintable(dialog->summaryText()));
    const QStringList lines = dialog->listedLines();
    QVERIFY2(lines.filter("square/notes.txt: ").size() == 1, qPrintable(lines.join('\n')));
    QVERIFY2(lines.filter("circle/copy.png: the same bytes as circle/0003.png").size() == 1, qPrintable(lines.join('\n')));
    QVERIFY2(lines.contains("2  triangle: 8 / 2"), qPrintable(lines.join('\n')));

    // The project's dataset: the created CSVs, format csv, scale 1/255, in one undo step.
    const Project& p = doc->settings();
    QCOMPARE(p.dataset.training.format, std::string("csv"));
    QCOMPARE(QFileInfo(QString::fromStdString(p.dataset.training.csv)).canonicalFilePath(),
             QFileInfo(out + "/training.csv").canonicalFilePath());
    QCOMPARE(p.dataset.validation.format, std::string("csv"));
    QCOMPARE(QFileInfo(QString::fromStdString(p.dataset.validation.csv)).canonicalFilePath(),
             QFileInfo(out + "/validation.csv").canonicalFilePath());
    QCOMPARE(p.dataset.scale, 1.0 / 255.0);
    QCOMPARE(doc->undoStack()->count(), 1);
    QVERIFY(doc->isModified());

    // The grid: one row per class folder, by name, with its samples.
    QVERIFY(waitForPreview(page));
    QCOMPARE(page.classGrid()->rowCount(), 3);
    QCOMPARE(page.classGrid()->rowName(0), QString("circle"));
    QCOMPARE(page.classGrid()->rowName(1), QString("square"));
    QCOMPARE(page.classGrid()->rowName(2), QString("triangle"));
    QCOMPARE(page.classGrid()->rowImages(1).size(), 8);
    QCOMPARE(page.classGrid()->rowImages(1)[0].size(), QSize(16, 16));
    const QMap<double, QString> ticks = balanceTicks(page);
    QCOMPARE(ticks.keys(), (QList<double>{0, 1, 2}));
    QCOMPARE(ticks.values(), (QStringList{"circle", "square", "triangle"}));

    // One undo: the old dataset, exactly.
    doc->undoStack()->undo();
    QCOMPARE(projectToJson(doc->toProject())["dataset"], before);
    QVERIFY(!doc->isModified());
    doc->undoStack()->redo();
    QCOMPARE(doc->settings().dataset.training.format, std::string("csv"));
  }

  // Cancel while building: no output folder, no hidden partial folder, the project untouched.
  void cancelLeavesNoOutputFolder() {
    const QString big = m_dir.filePath("many");
    writeClassFolders(big, {"a", "b", "c", "d"}, 150, 48);
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    DatasetPage page(doc.get());
    CreateDatasetDialog* dialog = page.openCreateDialog();
    const QString parent = m_dir.filePath("cancelled");
    QVERIFY(QDir().mkpath(parent));
    const QString out = parent + "/dataset";
    dialog->findChild<QLineEdit*>("sourceFolder")->setText(big);
    dialog->findChild<QLineEdit*>("outputFolder")->setText(out);
    QTest::mouseClick(dialog->findChild<QPushButton*>("createButton"), Qt::LeftButton);
    QVERIFY(dialog->isBuilding());
    auto* cancel = dialog->findChild<QPushButton*>("cancelButton");
    QCOMPARE(cancel->text(), QString("Cancel"));
    QTest::mouseClick(cancel, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->outcome().has_value(), 60000);
    QVERIFY2(dialog->outcome()->error.isEmpty(), qPrintable(dialog->outcome()->error));
    QVERIFY(dialog->outcome()->result && dialog->outcome()->result->cancelled);
    QVERIFY2(dialog->statusText().contains("Cancelled"), qPrintable(dialog->statusText()));
    QVERIFY(!QFileInfo::exists(out));
    QCOMPARE(QDir(parent).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot), QStringList());
    QCOMPARE(doc->undoStack()->count(), 0);
    QCOMPARE(doc->settings().dataset.training.format, std::string("idx"));
    QVERIFY(dialog->isVisible());  // the fields stay for another try
    QCOMPARE(page.openCreateDialog(), dialog);
  }

  // A builder's refusal (a non-empty folder that is not a dataset) shows its sentence and
  // changes nothing.
  void refusedBuildShowsTheReason() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    DatasetPage page(doc.get());
    CreateDatasetDialog* dialog = page.openCreateDialog();
    dialog->setSource(m_source);
    dialog->setOutput(m_source);  // not empty, not a dataset
    QVERIFY(dialog->start());
    QTRY_VERIFY_WITH_TIMEOUT(dialog->outcome().has_value(), 60000);
    QVERIFY(!dialog->outcome()->error.isEmpty());
    QVERIFY2(dialog->statusText().contains("Not created"), qPrintable(dialog->statusText()));
    QCOMPARE(doc->undoStack()->count(), 0);
    dialog->setOutput("");
    QVERIFY(!dialog->start());
    QVERIFY(dialog->statusText().contains("Choose the folder to write"));
    auto* size = dialog->findChild<QComboBox*>("imageSize");
    size->setEditText("28 by 28");
    dialog->setOutput(m_dir.filePath("never"));
    QVERIFY(dialog->options().problem.contains("Image size"));
    size->setEditText("32x24");
    QCOMPARE(dialog->options().options.width, 32);
    QCOMPARE(dialog->options().options.height, 24);
    QVERIFY(dialog->options().options.validationPercent.has_value());
    // train/ and val/ folders: their split is used, so no validation percent is passed.
    const QString given = m_dir.filePath("given");
    QVERIFY(QDir().mkpath(given + "/train/a") && QDir().mkpath(given + "/val/a"));
    dialog->setSource(given);
    QVERIFY(!dialog->options().options.validationPercent.has_value());
    QVERIFY(!dialog->findChild<QDoubleSpinBox*>("validationPercent")->isEnabled());
  }

  // An IDX dataset has no classes.txt: without dataset.class_names rows and ticks are numbered.
  void unnamedClassesAreNumbered() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    Project p = doc->settings();
    p.dataset.validation.classNames.clear();
    p.dataset.training = p.dataset.validation;  // the 10,000 test images: quicker to read
    doc->undoStack()->push(new SettingsCommand(doc.get(), doc->settings(), p, "dataset.training"));
    DatasetPage page(doc.get());
    QVERIFY(waitForPreview(page));
    QVERIFY2(!page.summaryText().contains("Cannot read"), qPrintable(page.summaryText()));
    QCOMPARE(page.classGrid()->rowCount(), 10);
    QCOMPARE(page.classGrid()->rowName(3), QString("class 3"));
    QCOMPARE(page.classGrid()->rowImages(3).size(), 8);
    QCOMPARE(page.classGrid()->rowImages(3)[0].size(), QSize(28, 28));
    const QMap<double, QString> ticks = balanceTicks(page);
    QCOMPARE(ticks.size(), 10);
    QCOMPARE(ticks.firstKey(), 0.0);  // at the bars, not between them
    QCOMPARE(ticks.value(9), QString("9"));
  }

  // config.augmentation on: a few samples, each with six epochs' draws that differ from one
  // another; new settings (as the Global Config page makes them) redraw; off hides it.
  void augmentationPreviewShowsEachEpochsDraw() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    pointAt(*doc, m_built);
    DatasetPage page(doc.get());
    QVERIFY(waitForPreview(page));
    QVERIFY(!page.isAugmentationShown());

    QCOMPARE(applySetting(doc.get(), "config.augmentation", Json{{"rotation_degrees", 30}, {"shift", 0.2}}), QString());
    QVERIFY(page.isAugmentationShown());
    AugmentationPreview* preview = page.augmentationPreview();
    QCOMPARE(preview->rowCount(), 2);
    const QList<QImage> row = preview->rowImages(0);
    QCOMPARE(row.size(), 1 + AugmentationPreview::kEpochs);
    QSet<QByteArray> distinct;
    for (int e = 1; e < row.size(); ++e) {
      QVERIFY2(row[e] != row[0], qPrintable(QString("epoch %1 equals the stored sample").arg(e)));
      distinct.insert(QByteArray(reinterpret_cast<const char*>(row[e].constBits()), row[e].sizeInBytes()));
    }
    QCOMPARE(distinct.size(), AugmentationPreview::kEpochs);
    QVERIFY2(preview->description().contains("rotation"), qPrintable(preview->description()));

    // Another seed draws other transforms; the stored sample stays as it was.
    QCOMPARE(applySetting(doc.get(), "config.seed", Json(7)), QString());
    const QList<QImage> reseeded = preview->rowImages(0);
    QCOMPARE(reseeded[0], row[0]);
    QVERIFY(reseeded[1] != row[1]);

    // Brightness alone: the images get darker or lighter, not stretched back to full range.
    QCOMPARE(applySetting(doc.get(), "config.augmentation", Json{{"brightness", 0.5}}), QString());
    const QList<QImage> bright = preview->rowImages(0);
    bool changed = false;
    for (int e = 1; e < bright.size(); ++e) changed = changed || bright[e] != bright[0];
    QVERIFY(changed);

    QCOMPARE(applySetting(doc.get(), "config.augmentation", Json()), QString());
    QVERIFY(!page.isAugmentationShown());
  }

  // Issue 17: switching a source from IDX to CSV used to write "csv": "", which the loader
  // refuses, so the edit was dropped and the page snapped back to IDX. Now the page holds the
  // switch until the CSV is named, says so at the field, and then changes the source in one
  // undo step; switching back before naming one cancels it.
  void switchingIdxToCsvWaitsForTheFile() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    const Json before = projectToJson(doc->toProject())["dataset"];
    QCOMPARE(before["training"]["format"], Json("idx"));
    DatasetPage page(doc.get());
    auto* format = page.findChild<QComboBox*>("dataset.training.format");
    auto* csvLine = page.findChild<QLineEdit*>("dataset.training.csv");
    auto* imagesLine = page.findChild<QLineEdit*>("dataset.training.images");
    QVERIFY(format && csvLine && imagesLine);
    const int undoBefore = doc->undoStack()->count();

    format->setCurrentIndex(format->findData("csv"));
    emit format->activated(format->currentIndex());
    QCOMPARE(format->currentData().toString(), QString("csv"));  // not snapped back to IDX
    QVERIFY(csvLine->isVisibleTo(&page));
    QVERIFY(!imagesLine->isVisibleTo(&page));
    QCOMPARE(csvLine->text(), QString());
    auto* hint = page.findChild<QLabel*>("dataset.training.csv.error");
    QVERIFY(hint && !hint->isHidden());
    QVERIFY2(hint->text().contains("CSV"), qPrintable(hint->text()));
    QCOMPARE(projectToJson(doc->toProject())["dataset"], before);  // nothing written yet
    QCOMPARE(doc->undoStack()->count(), undoBefore);

    csvLine->setText(m_built);
    csvLine->setModified(true);
    emit csvLine->editingFinished();
    const Json after = projectToJson(doc->toProject())["dataset"]["training"];
    QCOMPARE(after["format"], Json("csv"));
    QCOMPARE(QString::fromStdString(after["csv"].get<std::string>()), m_built);
    QVERIFY(!after.contains("images"));
    QCOMPARE(doc->undoStack()->count(), undoBefore + 1);
    QVERIFY(hint->isHidden());
    // The Edit page's quick look at the CSV (its first rows) sees the shape a full load gives.
    const DataSourceSpec created = doc->toProject().dataset.training;
    QCOMPARE(peekSampleShape(created), loadDataSource(created, 1.0, "error").sampleShape);

    doc->undoStack()->undo();
    QCOMPARE(projectToJson(doc->toProject())["dataset"], before);
    QCOMPARE(format->currentData().toString(), QString("idx"));

    // Switch, then back before naming a file: the source stays as it was, the IDX rows return.
    format->setCurrentIndex(format->findData("csv"));
    emit format->activated(format->currentIndex());
    format->setCurrentIndex(format->findData("idx"));
    emit format->activated(format->currentIndex());
    QVERIFY(imagesLine->isVisibleTo(&page));
    QVERIFY(!csvLine->isVisibleTo(&page));
    QVERIFY(!imagesLine->text().isEmpty());
    QCOMPARE(projectToJson(doc->toProject())["dataset"], before);

    // An empty path keeps the switch waiting; the project keeps IDX.
    format->setCurrentIndex(format->findData("csv"));
    emit format->activated(format->currentIndex());
    csvLine->setText("  ");
    csvLine->setModified(true);
    emit csvLine->editingFinished();
    QVERIFY(!hint->isHidden());
    QCOMPARE(projectToJson(doc->toProject())["dataset"], before);
    QCOMPARE(format->currentData().toString(), QString("csv"));
  }

  // The scale as people write it for 8-bit images: "1/255" (it was refused as not a number).
  void scaleTakesAFraction() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    DatasetPage page(doc.get());
    page.show();
    auto* scale = page.findChild<QLineEdit*>("datasetScale");
    QVERIFY(scale);
    scale->selectAll();
    QTest::keyClicks(scale, "1/255");  // typed whole: nothing is written (or rewritten) halfway
    QTest::keyClick(scale, Qt::Key_Return);
    QCOMPARE(doc->settings().dataset.scale, 1.0 / 255.0);
    auto* error = page.findChild<QLabel*>("datasetScaleError");
    QVERIFY(error && error->isHidden());
    scale->selectAll();
    QTest::keyClicks(scale, "1/0");  // no number: refused with the reason, the scale kept
    QTest::keyClick(scale, Qt::Key_Return);
    QCOMPARE(doc->settings().dataset.scale, 1.0 / 255.0);
    QVERIFY(!error->isHidden());
  }

  // An imported model's project names NAME.csv before it exists: the page asks for a dataset
  // instead of reporting a failure to read it (it said "Cannot read the training data").
  void aMissingTrainingFileAsksForADataset() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    pointAt(*doc, m_dir.filePath("resnet18.csv"));
    DatasetPage page(doc.get());
    page.reloadPreview();
    QVERIFY2(page.summaryText().contains("Choose a dataset"), qPrintable(page.summaryText()));
    QVERIFY2(page.summaryText().contains("resnet18.csv"), qPrintable(page.summaryText()));
    QVERIFY(!page.summaryText().contains("Cannot read"));
    QVERIFY(!page.summaryText().contains("c0392b"));  // not in the error colour
    // Once the file is chosen the page reads it as usual.
    pointAt(*doc, m_built);
    QVERIFY(waitForPreview(page));
    QVERIFY2(page.summaryText().contains("Training:"), qPrintable(page.summaryText()));
  }

  // Fashion-MNIST's IDX files hold label numbers only; the samples name the classes
  // (dataset.class_names, Note [Class names in a project]), so the grid and the balance chart do.
  void fashionMnistClassesHaveNames() {
    std::unique_ptr<ProjectDocument> doc(loadLenet(nullptr));
    DatasetPage page(doc.get());
    QVERIFY(waitForPreview(page));
    QCOMPARE(page.classGrid()->rowCount(), 10);
    QCOMPARE(page.classGrid()->rowName(0), QString("T-shirt/top"));
    QCOMPARE(page.classGrid()->rowName(9), QString("Ankle boot"));
    QCOMPARE(balanceTicks(page).value(5), QString("Sandal"));
  }
};

QTEST_MAIN(TestDatasetPage)
#include "tst_dataset_page.moc"
