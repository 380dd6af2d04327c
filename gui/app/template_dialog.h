// File ▸ New from template: one of the engine's network templates (engine/project/
// network_templates.h: ResNet-18, VGG-11 with BN, MobileNetV2, a small CNN) for the input shape
// and number of classes a person sets — filled in from the current project's dataset when its
// sample shape is known — with the network's parameter count and multiply-adds, or why it cannot
// be made, shown before OK.
#pragma once

#include <QDialog>

#include "engine/core/shape.h"
#include "engine/project/project.h"

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QSpinBox;

namespace netsmith::gui {

class TemplateDialog : public QDialog {
  Q_OBJECT
 public:
  // `inputShape` (C, H, W) and `classes` start the fields (empty shape: 3,32,32).
  TemplateDialog(const Shape& inputShape, int64_t classes, QWidget* parent = nullptr);

  void setTemplate(const QString& id);
  void setInput(const Shape& shape, int64_t classes);
  QString templateId() const;
  // The chosen network; throws netsmith::Error when it cannot be made (OK is then disabled).
  NetworkSpec network() const;
  // The summary line: "ResNet-18 for 3x32x32, 10 classes: 11.2 M parameters, ..." or the reason.
  QString summary() const;
  bool canAccept() const;

 private:
  void refresh();
  Shape inputShape() const;

  QComboBox* m_template;
  QSpinBox *m_channels, *m_height, *m_width, *m_classes;
  QLabel* m_description;
  QLabel* m_summary;
  QDialogButtonBox* m_buttons;
};

}  // namespace netsmith::gui
