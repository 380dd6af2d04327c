// The Evaluation page's Inference tab (InferenceTab) on a real run of the named three-class dataset:
// two PNG images dropped onto the tab and a file that is not an image chosen like them get a row
// each, the PNGs with their thumbnails and top classes by name with likelihoods summing to 1, the
// junk file its error naming it; the page hands the tab its chosen run and parameters; an image of
// the wrong shape says so; infer's JSON is read by parseInference.
#include <QDropEvent>
#include <QMimeData>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/evaluation/evaluation_page.h"
#include "gui/evaluation/inference_result.h"
#include "gui/evaluation/inference_tab.h"
#include "support/named_dataset.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestInferenceTab : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  test::NamedDataset m_data;
  QString m_run;
  QStringList m_names;

  static bool drop(QWidget* target, const QStringList& files) {
    QMimeData mime;
    QList<QUrl> urls;
    for (const QString& f : files) urls << QUrl::fromLocalFile(f);
    mime.setUrls(urls);
    const QPoint at = target->rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    if (!enter.isAccepted()) return false;
    QDropEvent dropEvent(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &dropEvent);
    return dropEvent.isAccepted();
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    qputenv("NETSMITH_CLI", NETSMITH_CLI);
    m_data = test::writeNamedDataset(m_dir.filePath("named"));
    for (const auto& n : m_data.names) m_names << QString::fromStdString(n);
    m_run = m_data.folder + "/named.runs/20260101-120000";
    QProcess train;
    train.start(NETSMITH_CLI, {"train", m_data.project, "--run-dir", m_run, "--quiet"});
    QVERIFY(train.waitForFinished(120000));
    QVERIFY2(train.exitCode() == 0, train.readAllStandardError().constData());
  }

  void parsesInferJson() {
    QString why;
    const auto r = parseInference(R"({"run":"/r","parameters":{"which":"best"},"devices":["cpu:0"],"classification":true,
      "class_names":["cat","dog","3"],"input_shape":[1,8,8],"predicted":1,"seconds":0.5,"new_key":1,
      "results":[{"input":"/a.png","class":1,"class_name":"dog","likelihoods":[0.2,0.7,0.1],"shape":[1,8,8]},
                 {"input":"/b.txt","error":"'/b.txt' is not an image"}]})",
                                  &why);
    QVERIFY2(r, qPrintable(why));
    QCOMPARE(r->parametersWhich, QString("best"));
    QCOMPARE(r->rows.size(), 2);
    QCOMPARE(r->rows[0].topClasses(2), (QVector<int>{1, 0}));
    QCOMPARE(r->rows[0].topClasses(9), (QVector<int>{1, 0, 2}));
    QCOMPARE(r->className(1), QString("dog"));
    QCOMPARE(r->className(7), QString("7"));
    QVERIFY(!r->rows[1].ok());
    QVERIFY(!parseInference(R"({"error":"/r: no such run folder"})", &why));
    QCOMPARE(why, QString("/r: no such run folder"));
    QVERIFY(!parseInference("not json", &why));
    QVERIFY(!parseInference(R"({"run":"/r"})", &why));
    QVERIFY(why.contains("results"));
  }

  // The page gives the tab its chosen run and parameters; two PNGs dropped, a junk file chosen.
  void droppedAndChosenImagesOnThePage() {
    ProjectDocument doc;
    doc.load(m_data.project);
    EvaluationPage page(&doc);
    page.resize(1200, 700);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QCOMPARE(page.selectedRun(), QFileInfo(m_run).absoluteFilePath());
    InferenceTab* tab = page.inference();
    QCOMPARE(tab->run(), page.selectedRun());
    page.showTab(1);
    QVERIFY(tab->isVisible());
    QVERIFY(!page.findChild<QWidget*>("evaluateButton")->isVisible());  // Evaluate belongs to the other tab

    const QString horizontal = m_data.folder + "/png/validation-0.png";  // class 0's stripes
    const QString vertical = m_data.folder + "/png/validation-1.png";    // class 1's stripes
    QSignalSpy inferred(tab, &InferenceTab::inferred);
    QVERIFY(drop(tab, {horizontal, vertical}));
    QCOMPARE(tab->rows().size(), 2);
    QVERIFY(tab->isRunning());
    QVERIFY(tab->isPending(0));
    // Chosen (as the file dialog would give it) while the engine runs: it waits its turn.
    const QString junk = m_dir.filePath("damaged.png");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x89PNG\r\n\x1a\n but the rest is gone");
    f.close();
    QVERIFY(tab->addImages({junk}));
    QCOMPARE(tab->rows().size(), 3);
    QTRY_VERIFY_WITH_TIMEOUT(!tab->isRunning() && !tab->isPending(2), 120000);
    QCOMPARE(inferred.size(), 2);
    QVERIFY(inferred[0][0].toBool());

    QCOMPARE(tab->classNames(), m_names);
    QTableWidget* table = tab->table();
    QCOMPARE(table->rowCount(), 3);
    for (int i = 0; i < 2; ++i) {
      const InferenceRow& row = tab->rows()[i];
      QVERIFY2(row.ok(), qPrintable(row.error));
      double sum = 0;
      for (double p : row.likelihoods) sum += p;
      QVERIFY2(std::abs(sum - 1) < 1e-5, qPrintable(tab->classesText(i)));
      const QVector<int> top = row.topClasses(InferenceTab::kTopClasses);
      QCOMPARE(top.size(), 3);
      QCOMPARE(top[0], i);  // each image is read as its own class
      QVERIFY(row.likelihoods[top[0]] >= row.likelihoods[top[1]] && row.likelihoods[top[1]] >= row.likelihoods[top[2]]);
      QVERIFY2(tab->classesText(i).startsWith(m_names[i] + " "), qPrintable(tab->classesText(i)));
      QVERIFY(tab->classesText(i).contains(m_names[top[2]]));
      QVERIFY(!table->item(i, InferenceTab::ImageColumn)->data(Qt::DecorationRole).value<QPixmap>().isNull());
      QCOMPARE(table->item(i, InferenceTab::ImageColumn)->data(Qt::DecorationRole).value<QPixmap>().width(),
               InferenceTab::kThumbnail);
      QVERIFY(table->item(i, InferenceTab::FileColumn)->text().startsWith(QFileInfo(i ? vertical : horizontal).fileName()));
    }
    const InferenceRow& bad = tab->rows()[2];
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error.contains(junk) && bad.error.contains("PNG"), qPrintable(bad.error));
    QCOMPARE(tab->classesText(2), bad.error);
    // The second batch held only the damaged file: nothing ran, and the status says so.
    QVERIFY2(tab->statusText().startsWith("No image could be classified"), qPrintable(tab->statusText()));

    // Other parameters: the images shown are classified again by that network.
    QSignalSpy again(tab, &InferenceTab::inferred);
    page.setParameters("best");
    page.selectRun(m_run);
    QVERIFY(again.wait(120000));
    QVERIFY(tab->rows()[0].ok() && tab->rows()[1].ok() && !tab->rows()[2].ok());
    tab->clear();
    QCOMPARE(table->rowCount(), 0);
  }

  void imageOfTheWrongShape() {
    InferenceTab tab;
    QVERIFY(!tab.addImages({m_data.folder + "/png/validation-0.png"}));  // no run yet
    QVERIFY(tab.statusText().contains("run"));
    tab.setRun(m_run, "last");
    const QString large = m_dir.filePath("large.png");
    QImage image(12, 10, QImage::Format_Grayscale8);
    image.fill(100);
    QVERIFY(image.save(large));
    QSignalSpy inferred(&tab, &InferenceTab::inferred);
    QVERIFY(tab.addImages({large}));
    QVERIFY(inferred.wait(120000));
    // Note [Inference resize]: a person's own image of another size is fitted as the training
    // images were, and its row says what was done (it was refused).
    QVERIFY2(inferred[0][0].toBool(), qPrintable(tab.statusText()));
    QVERIFY2(tab.rows()[0].ok(), qPrintable(tab.rows()[0].error));
    QCOMPARE(tab.rows()[0].prepared, QString("12x10 gray brought to 8x8 gray (squashed to the Input's size: the training data records no rule)"));
    QVERIFY(tab.table()->item(0, 1)->text().contains("resized: 12x10 gray brought to 8x8 gray"));
    // A file that is no image: nothing ran on any device (it said "0 images classified ... on no device").
    const QString junk = m_dir.filePath("junk.png");
    QFile notes(junk);
    QVERIFY(notes.open(QIODevice::WriteOnly));
    notes.write("not an image");
    notes.close();
    tab.clear();
    QVERIFY(tab.addImages({junk}));
    QVERIFY(inferred.wait(120000));
    QVERIFY(!inferred.last()[0].toBool());  // nothing could be classified
    QVERIFY2(tab.statusText().startsWith("No image could be classified") && !tab.statusText().contains("device"),
             qPrintable(tab.statusText()));
    // A run that is not one: the engine's sentence on every row.
    tab.setRun(m_dir.filePath("no-run"), "last");
    QVERIFY(inferred.wait(120000));
    QVERIFY2(tab.rows()[0].error.contains("no-run"), qPrintable(tab.rows()[0].error));
    QVERIFY(tab.statusText().startsWith("Cannot classify"));
  }
};

QTEST_MAIN(TestInferenceTab)
#include "tst_inference_tab.moc"
