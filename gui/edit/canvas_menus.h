// CanvasMenus: the Edit page's context menus. A block: Rename…, Duplicate, Delete, Freeze,
// Unfreeze (the selected blocks with parameters, one undo step), Properties; a
// link: Delete; the empty canvas: Paste, Select all, Auto-arrange, Fit. Every change is one undo
// command on the document's stack, as from the menus and keys (EditPage is the controller).
#pragma once

#include <QObject>
#include <QPoint>
#include <QPointF>
#include <QStringList>

#include "gui/document/project_document.h"

class QMenu;

namespace netsmith::gui {

class EditPage;

class CanvasMenus : public QObject {
  Q_OBJECT
 public:
  CanvasMenus(EditPage* page, ProjectDocument* doc);

  // The menus, built for one use (deleted when closed). Actions carry object names for tests:
  // "renameLayer", "duplicateLayer", "deleteLayer", "freezeLayers", "unfreezeLayers",
  // "layerProperties", "deleteLink".
  QMenu* nodeMenu(const QString& id);
  QMenu* linkMenu(int linkIndex);
  QMenu* canvasMenu();

  // Renames a block (one undo step). False with the reason in `why`: an empty name, or one that
  // another block has.
  bool renameLayer(const QString& from, const QString& to, QString* why = nullptr);
  // Asks for the new name (the rename dialog), then renameLayer.
  void askRename(const QString& id);
  // Copies of the blocks (and the links between them) beside them, or at the mouse (one step).
  void duplicate(const QStringList& ids);

 private:
  EditPage* m_page;
  ProjectDocument* m_doc;
};

}  // namespace netsmith::gui
