// ClassCountBar: a line on the Config and Training pages that shows when the training data has
// another number of classes than the network outputs (class_count_fix.h), with a button that sets
// the classifier head to the dataset's count as one undoable edit: "The dataset has 3 classes but
// the network outputs 10 (head 'fc3', Affine)  [Set the head to 3 classes]". Hidden otherwise.
// It follows the document: the class count comes from the Edit page's DatasetShapeProbe (off the
// GUI thread), the head from the network, so an edit, an undo or another dataset updates it.
#pragma once

#include <QFrame>

#include "gui/document/project_document.h"

class QLabel;
class QPushButton;

namespace netsmith::gui {

class ClassCountBar : public QFrame {
  Q_OBJECT
 public:
  explicit ClassCountBar(ProjectDocument* doc, QWidget* parent = nullptr);

  QString text() const;
  QPushButton* button() const { return m_button; }

 signals:
  // The head was set (the plan is then out of date).
  void applied();

 private:
  void refresh();

  ProjectDocument* m_doc;
  QLabel* m_label;
  QPushButton* m_button;
};

}  // namespace netsmith::gui
