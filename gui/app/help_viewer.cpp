#include "gui/app/help_viewer.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace netsmith::gui {

HelpViewer::HelpViewer(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("helpViewer"));
  setWindowTitle(tr("Netsmith help"));
  m_browser = new QTextBrowser(this);
  m_browser->setOpenExternalLinks(true);  // http(s) links in the web browser; .md links here
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* external = buttons->addButton(tr("Open in another application"), QDialogButtonBox::ActionRole);
  connect(external, &QPushButton::clicked, this, [this] { QDesktopServices::openUrl(m_browser->source()); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_browser);
  layout->addWidget(buttons);
  resize(900, 640);
}

bool HelpViewer::showSection(const QString& file, const QString& heading) {
  if (!QFileInfo(file).isReadable()) return false;
  m_browser->setSource(QUrl::fromLocalFile(file), QTextDocument::MarkdownResource);
  // Markdown headings carry no anchors in QTextDocument: find the heading's block and scroll to it.
  int top = 0;
  for (QTextBlock b = m_browser->document()->begin(); b.isValid() && !heading.isEmpty(); b = b.next()) {
    if (b.blockFormat().headingLevel() > 0 && b.text().trimmed() == heading) {
      QTextCursor cursor(b);
      m_browser->setTextCursor(cursor);
      top = static_cast<int>(m_browser->document()->documentLayout()->blockBoundingRect(b).top());
      break;
    }
  }
  m_browser->verticalScrollBar()->setValue(top);
  return true;
}

QString HelpViewer::shownHeading() const {
  const int top = m_browser->verticalScrollBar()->value();
  QString shown;
  for (QTextBlock b = m_browser->document()->begin(); b.isValid(); b = b.next()) {
    if (m_browser->document()->documentLayout()->blockBoundingRect(b).top() > top + 2) break;
    if (b.blockFormat().headingLevel() > 0) shown = b.text().trimmed();
  }
  return shown;
}

}  // namespace netsmith::gui
