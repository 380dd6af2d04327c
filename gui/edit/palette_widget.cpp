#include "gui/edit/palette_widget.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QMimeData>
#include <QVBoxLayout>

#include "engine/op_interface/op_registry.h"
#include "gui/document/graph_document.h"

namespace netsmith::gui {

namespace {
constexpr int kLayerRole = Qt::UserRole + 1;
}

QMimeData* PaletteTree::mimeData(const QList<QTreeWidgetItem*>& items) const {
  if (items.isEmpty() || items[0]->data(0, kLayerRole).toString().isEmpty()) return nullptr;
  auto* data = new QMimeData;
  data->setData(QString::fromLatin1(kLayerMimeType), items[0]->data(0, kLayerRole).toString().toUtf8());
  return data;
}

PaletteWidget::PaletteWidget(QWidget* parent) : QWidget(parent) {
  m_search = new QLineEdit(this);
  m_search->setPlaceholderText(tr("Search layers"));
  m_search->setClearButtonEnabled(true);
  m_tree = new PaletteTree(this);
  m_tree->setHeaderHidden(true);
  m_tree->setDragEnabled(true);
  m_tree->setDragDropMode(QAbstractItemView::DragOnly);
  m_tree->setRootIsDecorated(true);
  m_tree->setObjectName(QStringLiteral("paletteTree"));

  QTreeWidgetItem* category = nullptr;
  for (const OpSchema* schema : OpRegistry::builtin().all()) {
    const QString categoryName = qs(schema->category);
    if (!category || category->text(0) != categoryName) {
      category = new QTreeWidgetItem(m_tree, {categoryName});
      category->setFlags(Qt::ItemIsEnabled);
      QFont bold = category->font(0);
      bold.setBold(true);
      category->setFont(0, bold);
    }
    auto* item = new QTreeWidgetItem(category, {qs(schema->name)});
    item->setData(0, kLayerRole, qs(schema->name));
    item->setToolTip(0, QStringLiteral("<b>%1</b> (%2)<br>%3").arg(qs(schema->name), categoryName, qs(schema->doc).toHtmlEscaped()));
    item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
  }
  m_tree->expandAll();

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_search);
  layout->addWidget(m_tree);

  connect(m_search, &QLineEdit::textChanged, this, &PaletteWidget::setFilter);
  connect(m_tree, &QTreeWidget::itemDoubleClicked, this, [this](QTreeWidgetItem* item) {
    const QString type = item->data(0, kLayerRole).toString();
    if (!type.isEmpty()) emit layerActivated(type);
  });
}

void PaletteWidget::setFilter(const QString& text) {
  if (m_search->text() != text) m_search->setText(text);
  for (int c = 0; c < m_tree->topLevelItemCount(); ++c) {
    QTreeWidgetItem* category = m_tree->topLevelItem(c);
    bool any = false;
    for (int i = 0; i < category->childCount(); ++i) {
      QTreeWidgetItem* item = category->child(i);
      const bool match = text.isEmpty() || item->text(0).contains(text, Qt::CaseInsensitive) ||
                         category->text(0).contains(text, Qt::CaseInsensitive) ||
                         item->toolTip(0).contains(text, Qt::CaseInsensitive);
      item->setHidden(!match);
      any = any || match;
    }
    category->setHidden(!any);
  }
}

QStringList PaletteWidget::layerNames() const {
  QStringList names;
  for (int c = 0; c < m_tree->topLevelItemCount(); ++c)
    for (int i = 0; i < m_tree->topLevelItem(c)->childCount(); ++i) names << m_tree->topLevelItem(c)->child(i)->text(0);
  return names;
}

QStringList PaletteWidget::visibleLayerNames() const {
  QStringList names;
  for (int c = 0; c < m_tree->topLevelItemCount(); ++c)
    for (int i = 0; i < m_tree->topLevelItem(c)->childCount(); ++i)
      if (!m_tree->topLevelItem(c)->child(i)->isHidden()) names << m_tree->topLevelItem(c)->child(i)->text(0);
  return names;
}

}  // namespace netsmith::gui
