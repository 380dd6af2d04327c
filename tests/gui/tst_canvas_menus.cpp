// The Edit page's context menus (CanvasMenus) opened by right clicks on the canvas, as a person
// does: on a block (rename through the dialog, duplicate, delete, properties), on a link (delete)
// and on the empty canvas; every change is one undo step that Undo takes back.
#include <QContextMenuEvent>
#include <QGraphicsView>
#include <QInputDialog>
#include <QMenu>
#include <QTemporaryDir>
#include <QtTest>

#include "gui/edit/canvas_menus.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/graph_view.h"

using namespace netsmith;
using namespace netsmith::gui;

class TestCanvasMenus : public QObject {
  Q_OBJECT
  QTemporaryDir m_dir;
  ProjectDocument* m_doc = nullptr;
  EditPage* m_page = nullptr;

  // Right-clicks the canvas at `scenePos` and returns the menu that pops up.
  QMenu* rightClick(QPointF scenePos) {
    GraphView* view = m_page->view();
    view->centerOn(scenePos);
    const QPoint at = view->mapFromScene(scenePos);
    QContextMenuEvent event(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
    QApplication::sendEvent(view->viewport(), &event);
    auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
    if (menu) menu->hide();  // its actions stay usable; closing deletes it later (WA_DeleteOnClose)
    return menu;
  }
  static QAction* action(QMenu* menu, const char* name) {
    for (QAction* a : menu->actions())
      if (a->objectName() == QLatin1String(name)) return a;
    return nullptr;
  }
  QStringList nodeIds() const {
    QStringList ids;
    for (const auto& n : m_doc->graph()->spec().nodes) ids << qs(n.id);
    return ids;
  }
  int linkCount() const { return static_cast<int>(m_doc->graph()->spec().links.size()); }
  QPointF centreOf(const QString& id) const { return m_page->scene()->nodeItem(id)->sceneBody().center(); }

 private slots:
  void init() {
    QVERIFY(QFile::copy(NETSMITH_SOURCE_DIR "/projects/fashion_mnist_lenet.nsproj", m_dir.filePath("p.nsproj")) ||
            QFile::exists(m_dir.filePath("p.nsproj")));
    m_doc = new ProjectDocument;
    m_doc->load(m_dir.filePath("p.nsproj"));
    m_page = new EditPage(m_doc);
    m_page->resize(1200, 800);
    m_page->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_page));
  }
  void cleanup() {
    delete m_page;
    delete m_doc;
  }

  void blockMenuRenamesThroughTheDialog() {
    const QString id = nodeIds()[1];
    QMenu* menu = rightClick(centreOf(id));
    QVERIFY(menu);
    QCOMPARE(m_page->scene()->selectedNodeIds(), QStringList{id});
    for (const char* name : {"renameLayer", "duplicateLayer", "deleteLayer", "layerProperties"}) QVERIFY2(action(menu, name), name);
    const int links = linkCount();
    // The dialog: first a name that is taken (asked again, with the reason), then a new one.
    const QString taken = nodeIds()[2];
    QStringList labels;
    int answers = 0;
    std::function<void()> answer = [&] {
      auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
      if (!dialog) return QTimer::singleShot(10, answer);
      labels << dialog->labelText();
      dialog->setTextValue(answers++ == 0 ? taken : "features");
      dialog->accept();
      if (answers < 2) QTimer::singleShot(10, answer);
    };
    QTimer::singleShot(10, answer);
    action(menu, "renameLayer")->trigger();
    QCOMPARE(answers, 2);
    QVERIFY2(labels[1].contains("already used"), qPrintable(labels[1]));
    QVERIFY(nodeIds().contains("features"));
    QVERIFY(!nodeIds().contains(id));
    QCOMPARE(linkCount(), links);  // the links follow the new name
    m_doc->undoStack()->undo();
    QVERIFY(nodeIds().contains(id));
    QVERIFY(!nodeIds().contains("features"));

    QString why;
    QVERIFY(!m_page->canvasMenus()->renameLayer(id, "  ", &why));
    QCOMPARE(why, QString("a layer needs a name"));
  }

  void blockMenuDuplicatesAndDeletes() {
    const QStringList before = nodeIds();
    const QString id = before[1];
    QMenu* menu = rightClick(centreOf(id));
    QVERIFY(menu);
    const int steps = m_doc->undoStack()->count();
    action(menu, "duplicateLayer")->trigger();
    QCOMPARE(nodeIds().size(), before.size() + 1);
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);
    const QString copy = m_page->scene()->selectedNodeIds().value(0);
    QVERIFY(!before.contains(copy));
    QCOMPARE(m_doc->graph()->node(ss(copy))->type, m_doc->graph()->node(ss(id))->type);
    QCOMPARE(m_doc->graph()->node(ss(copy))->params, m_doc->graph()->node(ss(id))->params);
    m_doc->undoStack()->undo();
    QCOMPARE(nodeIds(), before);

    menu = rightClick(centreOf(id));
    action(menu, "deleteLayer")->trigger();
    QVERIFY(!nodeIds().contains(id));
    m_doc->undoStack()->undo();
    QCOMPARE(nodeIds(), before);

    menu = rightClick(centreOf(id));
    action(menu, "layerProperties")->trigger();
    QCOMPARE(m_page->scene()->selectedNodeIds(), QStringList{id});
  }

  void linkMenuDeletesTheLink() {
    const LinkSpec first = m_doc->graph()->spec().links.front();
    LinkItem* item = nullptr;
    for (LinkItem* l : m_page->scene()->linkItems())
      if (l->from() == qs(first.from) && l->to() == qs(first.to)) item = l;
    QVERIFY(item);
    // A few pixels beside the line still hits it.
    QMenu* menu = rightClick(item->path().pointAtPercent(0.5) + QPointF(3, 0));
    QVERIFY(menu);
    QVERIFY(item->isSelected());
    QAction* remove = action(menu, "deleteLink");
    QVERIFY(remove);
    QVERIFY2(remove->text().contains(qs(first.from)) && remove->text().contains(qs(first.to)), qPrintable(remove->text()));
    const int links = linkCount();
    const QStringList nodes = nodeIds();
    remove->trigger();
    QCOMPARE(linkCount(), links - 1);
    QCOMPARE(nodeIds(), nodes);  // only the link
    for (const auto& l : m_doc->graph()->spec().links) QVERIFY(!(l.from == first.from && l.to == first.to));
    m_doc->undoStack()->undo();
    QCOMPARE(linkCount(), links);
  }

  void canvasMenuHasThePageActions() {
    QRectF all;
    for (const QString& id : nodeIds()) all |= m_page->scene()->nodeItem(id)->sceneBody();
    QMenu* menu = rightClick(all.topRight() + QPointF(400, 0));
    QVERIFY(menu);
    QVERIFY(menu->actions().contains(m_page->pasteAction()));
    QVERIFY(menu->actions().contains(m_page->autoArrangeAction()));
    QVERIFY(m_page->scene()->selectedNodeIds().isEmpty());
  }
};

QTEST_MAIN(TestCanvasMenus)
#include "tst_canvas_menus.moc"
