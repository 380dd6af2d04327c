#include "gui/edit/edit_page.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QCursor>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QScrollArea>
#include <QSplitter>
#include <QTimer>
#include <QVBoxLayout>

#include "gui/document/dataset_shape_probe.h"
#include "gui/document/graph_commands.h"
#include "gui/edit/canvas_menus.h"
#include "gui/edit/graph_items.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/graph_view.h"
#include "gui/edit/palette_widget.h"
#include "gui/edit/property_panel.h"

namespace netsmith::gui {

namespace {
constexpr char kFragmentMimeType[] = "application/x-netsmith-fragment";

QString humanCount(int64_t n) {
  if (n >= 1'000'000'000) return QStringLiteral("%1 G").arg(n / 1e9, 0, 'f', 2);
  if (n >= 1'000'000) return QStringLiteral("%1 M").arg(n / 1e6, 0, 'f', 2);
  return QLocale().toString(static_cast<qlonglong>(n));
}
}  // namespace

EditPage::EditPage(ProjectDocument* doc, QWidget* parent) : QWidget(parent), m_doc(doc) {
  m_scene = new GraphScene(doc->graph(), this);
  m_view = new GraphView(m_scene, this);
  m_palette = new PaletteWidget(this);
  m_properties = new PropertyPanel(doc->graph(), doc->undoStack(), this);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("editStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_shapeProbe = new DatasetShapeProbe(doc, this);

  auto* propertiesScroll = new QScrollArea(this);
  propertiesScroll->setWidget(m_properties);
  propertiesScroll->setWidgetResizable(true);

  auto* splitter = new QSplitter(this);
  splitter->setObjectName(QStringLiteral("editSplitter"));
  splitter->addWidget(m_palette);
  splitter->addWidget(m_view);
  splitter->addWidget(propertiesScroll);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({190, 800, 290});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(splitter, 1);
  layout->addWidget(m_status);

  auto action = [this](const QString& text, QKeySequence key, auto slot) {
    auto* a = new QAction(text, this);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(a, &QAction::triggered, this, slot);
    addAction(a);
    return a;
  };
  m_delete = action(tr("&Delete"), QKeySequence::Delete, [this] { deleteSelection(); });
  m_cut = action(tr("Cu&t"), QKeySequence::Cut, [this] {
    copySelection();
    deleteSelection();
  });
  m_copy = action(tr("&Copy"), QKeySequence::Copy, [this] { copySelection(); });
  m_paste = action(tr("&Paste"), QKeySequence::Paste, [this] { paste(); });
  m_selectAll = action(tr("Select &All"), QKeySequence::SelectAll, [this] {
    for (QGraphicsItem* item : m_scene->items()) item->setSelected(true);
  });
  m_zoomIn = action(tr("Zoom &In"), QKeySequence::ZoomIn, [this] { m_view->zoomBy(1.2); });
  m_zoomOut = action(tr("Zoom &Out"), QKeySequence::ZoomOut, [this] { m_view->zoomBy(1 / 1.2); });
  m_fit = action(tr("&Fit to View"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { m_view->fitAll(); });
  m_arrange = action(tr("&Auto-arrange"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), [this] { autoArrange(); });
  // Delete and the clipboard act on the canvas only, so Delete in a text field stays a text edit.
  for (QAction* a : {m_delete, m_cut, m_copy, m_paste, m_selectAll}) {
    removeAction(a);
    m_view->addAction(a);
  }

  connect(m_palette, &PaletteWidget::layerActivated, this, [this](const QString& type) {
    addLayer(type, m_view->mapToScene(m_view->viewport()->rect().center()) - QPointF(NodeItem::kWidth / 2, 0));
  });
  connect(m_scene, &GraphScene::layerDropped, this, [this](const QString& type, QPointF pos) { addLayer(type, pos); });
  connect(m_scene, &GraphScene::linkRequested, this, &EditPage::requestLink);
  connect(m_scene, &GraphScene::nodesMoved, this, [this](const QHash<QString, QPair<QPointF, QPointF>>& moves) {
    m_doc->undoStack()->push(new MoveNodesCommand(m_doc->graph(), moves));
  });
  connect(m_scene, &QGraphicsScene::selectionChanged, this, [this] {
    const QStringList ids = m_scene->selectedNodeIds();
    m_properties->showNodes(ids);
  });
  m_menus = new CanvasMenus(this, doc);
  connect(m_scene, &GraphScene::nodeMenuRequested, this, [this](const QString& id, QPoint at) { m_menus->nodeMenu(id)->popup(at); });
  connect(m_scene, &GraphScene::linkMenuRequested, this, [this](int link, QPoint at) { m_menus->linkMenu(link)->popup(at); });
  connect(m_scene, &GraphScene::canvasMenuRequested, this, [this](QPointF, QPoint at) { m_menus->canvasMenu()->popup(at); });
  connect(doc->graph(), &GraphDocument::analysisChanged, this, &EditPage::updateStatus);
  connect(doc, &ProjectDocument::loaded, this, [this] {
    // Once the view has its real size: the network, or its beginning, at a size that can be read.
    QTimer::singleShot(0, m_view, [this] { m_view->showReadable(); });
  });
  updateStatus();
}

EditPage::~EditPage() {
  // The scene clears its items (and so its selection) when destroyed; the panel must not hear it.
  disconnect(m_scene, nullptr, this, nullptr);
}

QString EditPage::statusText() const { return m_status->text(); }

void EditPage::updateStatus() {
  const auto& a = m_doc->graph()->analysis();
  QString text = tr("%n layer(s)", nullptr, static_cast<int>(m_doc->graph()->spec().nodes.size())) +
                 tr(" · %1 parameters · %2 multiply-adds per sample").arg(humanCount(a.parameterCount), humanCount(a.multiplyAdds));
  const int problems = a.problemCount();
  if (problems == 0) {
    text += tr(" · network valid");
    m_status->setStyleSheet(QStringLiteral("color:#1e5a3c"));
  } else {
    QString first;
    for (const auto& [id, facts] : a.nodes)
      if (!facts.problems.empty() && first.isEmpty()) first = qs(problemSentence(id, facts.problems.front()));
    if (!a.networkProblems.empty()) first = qs(a.networkProblems.front());
    text += tr(" · %n problem(s): %1", nullptr, problems).arg(first);
    m_status->setStyleSheet(QStringLiteral("color:#c0392b"));
  }
  m_status->setText(text);
}

void EditPage::say(const QString& text) {
  m_lastMessage = text;
  emit message(text);
}

QString EditPage::addLayer(const QString& type, QPointF pos) {
  GraphDocument* graph = m_doc->graph();
  NodeSpec node{graph->newIdFor(ss(type)), ss(type), Json::object(), {std::round(pos.x()), std::round(pos.y())}};
  m_doc->undoStack()->push(new AddFragmentCommand(graph, {{node}, {}}, tr("Add %1").arg(type)));
  m_scene->selectNodes({qs(node.id)});
  return qs(node.id);
}

bool EditPage::requestLink(const QString& from, const QString& to) {
  const QString refusal = m_doc->graph()->linkRefusal(ss(from), ss(to));
  if (!refusal.isEmpty()) {
    say(tr("Link refused: %1").arg(refusal));
    return false;
  }
  m_doc->undoStack()->push(new AddLinkCommand(m_doc->graph(), {ss(from), ss(to), std::nullopt}));
  say(tr("Linked %1 → %2").arg(from, to));
  return true;
}

void EditPage::deleteSelection() {
  std::vector<std::string> ids;
  for (const QString& id : m_scene->selectedNodeIds()) ids.push_back(ss(id));
  auto* command = new DeleteCommand(m_doc->graph(), ids, m_scene->selectedLinkIndices());
  if (command->isEmpty()) {
    delete command;
    return;
  }
  m_doc->undoStack()->push(command);
}

void EditPage::copySelection() {
  std::vector<std::string> ids;
  for (const QString& id : m_scene->selectedNodeIds()) ids.push_back(ss(id));
  if (ids.empty()) return;
  const GraphFragment fragment = copyFragment(*m_doc->graph(), ids);
  auto* data = new QMimeData;
  const QByteArray json = QByteArray::fromStdString(fragment.toJson().dump(1));
  data->setData(QString::fromLatin1(kFragmentMimeType), json);
  data->setText(QString::fromUtf8(json));
  QApplication::clipboard()->setMimeData(data);
  say(tr("Copied %n layer(s)", nullptr, static_cast<int>(fragment.nodes.size())));
}

void EditPage::paste() {
  const QMimeData* data = QApplication::clipboard()->mimeData();
  if (!data) return;
  QByteArray bytes = data->data(QString::fromLatin1(kFragmentMimeType));
  if (bytes.isEmpty()) bytes = data->text().toUtf8();
  const Json json = Json::parse(bytes.constBegin(), bytes.constEnd(), nullptr, false);
  const auto fragment = GraphFragment::fromJson(json);
  if (!fragment || fragment->nodes.empty()) {
    say(tr("Nothing to paste: the clipboard holds no Netsmith layers"));
    return;
  }
  pasteFragment(*fragment, tr("Paste %n layer(s)", nullptr, static_cast<int>(fragment->nodes.size())));
}

void EditPage::pasteFragment(const GraphFragment& fragment, const QString& undoText) {
  // Where it lands: at the mouse when the paste comes from the keyboard over the canvas, else where
  // it was copied from; then moved right until it covers no block (the originals included).
  QRectF bounds;
  for (const NodeSpec& n : fragment.nodes) bounds |= QRectF(n.pos[0], n.pos[1], NodeItem::kWidth, NodeItem::kHeight);
  QPointF offset(0, 0);
  if (m_view->isVisible() && m_view->viewport()->underMouse()) {
    const QPointF mouse = m_view->mapToScene(m_view->viewport()->mapFromGlobal(QCursor::pos()));
    offset = QPointF(std::round(mouse.x() - bounds.left()), std::round(mouse.y() - bounds.top()));
  }
  QList<QRectF> taken;
  for (const NodeSpec& n : m_doc->graph()->spec().nodes)
    taken << QRectF(n.pos[0], n.pos[1], NodeItem::kWidth, NodeItem::kHeight).adjusted(-20, -14, 20, 14);
  const auto covers = [&](QPointF by) {
    for (const NodeSpec& n : fragment.nodes) {
      const QRectF r(n.pos[0] + by.x(), n.pos[1] + by.y(), NodeItem::kWidth, NodeItem::kHeight);
      for (const QRectF& t : std::as_const(taken))
        if (t.intersects(r)) return true;
    }
    return false;
  };
  for (int step = 0; step < 1000 && covers(offset); ++step) offset.rx() += 30;
  GraphFragment ready = prepareForPaste(*m_doc->graph(), fragment, offset);
  QStringList ids;
  for (const NodeSpec& n : ready.nodes) ids << qs(n.id);
  m_doc->undoStack()->push(new AddFragmentCommand(m_doc->graph(), ready, undoText));
  m_scene->selectNodes(ids);
}

void EditPage::autoArrange() {
  const auto positions = autoArrangePositions(*m_doc->graph());
  QHash<QString, QPair<QPointF, QPointF>> moves;
  for (auto it = positions.cbegin(); it != positions.cend(); ++it) {
    const NodeSpec* n = m_doc->graph()->node(ss(it.key()));
    const QPointF old(n->pos[0], n->pos[1]);
    if (old != it.value()) moves.insert(it.key(), {old, it.value()});
  }
  if (moves.isEmpty()) return;
  // Its own undo step: a later drag must not merge into it.
  m_doc->undoStack()->push(new MoveNodesCommand(m_doc->graph(), moves, tr("Auto-arrange"), /*mergeable=*/false));
  m_view->showReadable();
}

}  // namespace netsmith::gui
