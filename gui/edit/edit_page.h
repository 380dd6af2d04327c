// EditPage: palette | canvas | properties, and a status line with the network totals and problems.
// It is the controller of the canvas: the scene's intents become undo commands here. Its actions
// (delete, cut, copy, paste, select all, zoom, fit, auto-arrange) go in the main window's menus.
#pragma once

#include <QWidget>

#include "gui/document/project_document.h"

class QAction;
class QLabel;

namespace netsmith::gui {

class CanvasMenus;
struct GraphFragment;
class DatasetShapeProbe;
class GraphScene;
class GraphView;
class PaletteWidget;
class PropertyPanel;

class EditPage : public QWidget {
  Q_OBJECT
 public:
  explicit EditPage(ProjectDocument* doc, QWidget* parent = nullptr);
  ~EditPage() override;

  GraphScene* scene() const { return m_scene; }
  GraphView* view() const { return m_view; }
  PaletteWidget* palette() const { return m_palette; }
  PropertyPanel* properties() const { return m_properties; }
  QString statusText() const;
  // Reads the training data's sample shape for the input block's check (Note in dataset_shape_probe.h).
  DatasetShapeProbe* datasetShapeProbe() const { return m_shapeProbe; }

  QAction* deleteAction() const { return m_delete; }
  QAction* cutAction() const { return m_cut; }
  QAction* copyAction() const { return m_copy; }
  QAction* pasteAction() const { return m_paste; }
  QAction* selectAllAction() const { return m_selectAll; }
  QAction* zoomInAction() const { return m_zoomIn; }
  QAction* zoomOutAction() const { return m_zoomOut; }
  QAction* fitAction() const { return m_fit; }
  QAction* autoArrangeAction() const { return m_arrange; }

  // The operations behind the actions and the canvas, callable by tests.
  QString addLayer(const QString& type, QPointF pos);   // returns the new id
  bool requestLink(const QString& from, const QString& to);  // false: refused, message shown
  void deleteSelection();
  void copySelection();
  void paste();
  // Adds `fragment` (new ids, one undo step named `undoText`) where paste() puts it: at the mouse
  // over the canvas, else where it was, moved right until it covers no block; selects it.
  void pasteFragment(const GraphFragment& fragment, const QString& undoText);
  CanvasMenus* canvasMenus() const { return m_menus; }
  void autoArrange();
  QString lastMessage() const { return m_lastMessage; }

 signals:
  // A sentence for the main window's status bar (a refused link, a paste).
  void message(const QString& text);

 private:
  void updateStatus();
  void say(const QString& text);

  ProjectDocument* m_doc;
  GraphScene* m_scene;
  GraphView* m_view;
  PaletteWidget* m_palette;
  PropertyPanel* m_properties;
  QLabel* m_status;
  DatasetShapeProbe* m_shapeProbe;
  CanvasMenus* m_menus;
  QString m_lastMessage;
  QAction *m_delete, *m_cut, *m_copy, *m_paste, *m_selectAll, *m_zoomIn, *m_zoomOut, *m_fit, *m_arrange;
};

}  // namespace netsmith::gui
