#include "gui/edit/canvas_menus.h"

#include <QInputDialog>
#include <QMenu>

#include "gui/document/graph_commands.h"
#include "gui/edit/edit_page.h"
#include "gui/edit/graph_scene.h"
#include "gui/edit/property_panel.h"

namespace netsmith::gui {

namespace {
QAction* named(QAction* action, const char* name) {
  action->setObjectName(QString::fromLatin1(name));
  return action;
}
}  // namespace

CanvasMenus::CanvasMenus(EditPage* page, ProjectDocument* doc) : QObject(page), m_page(page), m_doc(doc) {}

QMenu* CanvasMenus::nodeMenu(const QString& id) {
  auto* menu = new QMenu(m_page);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  const QStringList selected = m_page->scene()->selectedNodeIds();
  const QStringList ids = selected.contains(id) ? selected : QStringList{id};
  named(menu->addAction(tr("&Rename…"), this, [this, id] { askRename(id); }), "renameLayer");
  named(menu->addAction(tr("D&uplicate %n layer(s)", nullptr, static_cast<int>(ids.size())), this, [this, ids] { duplicate(ids); }),
        "duplicateLayer");
  named(menu->addAction(tr("&Delete %n layer(s)", nullptr, static_cast<int>(ids.size())), this,
                        [this, ids] {
                          m_page->scene()->selectNodes(ids);
                          m_page->deleteSelection();
                        }),
        "deleteLayer");
  // Note [Editing several blocks]: freezing a backbone is one click, not one per block.
  const QStringList trainable = trainableBlocks(*m_doc->graph(), ids);
  int frozen = 0;
  for (const QString& t : trainable) frozen += m_doc->graph()->node(ss(t))->frozen ? 1 : 0;
  const int count = static_cast<int>(trainable.size());
  QAction* freeze = named(menu->addAction(tr("&Freeze %n layer(s)", nullptr, count - frozen), this,
                                          [this, ids, count] {
                                            pushTrainingEdit(m_doc->undoStack(), m_doc->graph(), ids, true, std::nullopt,
                                                             tr("Freeze %n layer(s)", nullptr, count));
                                          }),
                          "freezeLayers");
  freeze->setEnabled(count - frozen > 0);
  QAction* unfreeze = named(menu->addAction(tr("U&nfreeze %n layer(s)", nullptr, frozen), this,
                                            [this, ids, frozen] {
                                              pushTrainingEdit(m_doc->undoStack(), m_doc->graph(), ids, false, std::nullopt,
                                                               tr("Unfreeze %n layer(s)", nullptr, frozen));
                                            }),
                            "unfreezeLayers");
  unfreeze->setEnabled(frozen > 0);
  menu->addSeparator();
  named(menu->addAction(tr("&Properties"), this,
                        [this, id] {
                          m_page->scene()->selectNodes({id});
                          m_page->properties()->setFocus(Qt::OtherFocusReason);
                        }),
        "layerProperties");
  return menu;
}

QMenu* CanvasMenus::linkMenu(int linkIndex) {
  auto* menu = new QMenu(m_page);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  const auto& links = m_doc->graph()->spec().links;
  if (linkIndex < 0 || linkIndex >= static_cast<int>(links.size())) return menu;
  const LinkSpec link = links[static_cast<size_t>(linkIndex)];
  named(menu->addAction(tr("&Delete the link %1 → %2").arg(qs(link.from), qs(link.to)), this,
                        [this, link] {
                          // By its ends, not its index: the document may have changed since the menu opened.
                          const auto& now = m_doc->graph()->spec().links;
                          for (int i = 0; i < static_cast<int>(now.size()); ++i)
                            if (now[i].from == link.from && now[i].to == link.to) {
                              m_doc->undoStack()->push(new DeleteCommand(m_doc->graph(), {}, {i}));
                              return;
                            }
                        }),
        "deleteLink");
  return menu;
}

QMenu* CanvasMenus::canvasMenu() {
  auto* menu = new QMenu(m_page);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  for (QAction* a : {m_page->pasteAction(), m_page->selectAllAction()}) menu->addAction(a);
  menu->addSeparator();
  for (QAction* a : {m_page->autoArrangeAction(), m_page->fitAction()}) menu->addAction(a);
  return menu;
}

bool CanvasMenus::renameLayer(const QString& from, const QString& to, QString* why) {
  const QString name = to.trimmed();
  QString refusal;
  if (!m_doc->graph()->node(ss(from))) refusal = tr("there is no layer '%1'").arg(from);
  else if (name.isEmpty()) refusal = tr("a layer needs a name");
  else if (name != from && m_doc->graph()->node(ss(name))) refusal = tr("the name '%1' is already used by another layer").arg(name);
  if (!refusal.isEmpty()) {
    if (why) *why = refusal;
    return false;
  }
  if (name != from) m_doc->undoStack()->push(new RenameNodeCommand(m_doc->graph(), ss(from), ss(name)));
  return true;
}

void CanvasMenus::askRename(const QString& id) {
  QString name = id, why;
  for (;;) {  // a refused name is asked again, with the reason
    bool ok = false;
    const QString label = (why.isEmpty() ? QString() : tr("Not renamed: %1.\n").arg(why)) + tr("New name of the layer '%1':").arg(id);
    name = QInputDialog::getText(m_page, tr("Rename layer"), label, QLineEdit::Normal, name, &ok);
    if (!ok || renameLayer(id, name, &why)) return;
  }
}

void CanvasMenus::duplicate(const QStringList& ids) {
  std::vector<std::string> nodes;
  for (const QString& id : ids) nodes.push_back(ss(id));
  if (nodes.empty()) return;
  m_page->pasteFragment(copyFragment(*m_doc->graph(), nodes), tr("Duplicate %n layer(s)", nullptr, static_cast<int>(ids.size())));
}

}  // namespace netsmith::gui
