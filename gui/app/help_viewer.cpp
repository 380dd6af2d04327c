#include "gui/app/help_viewer.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileInfo>
#include <QPushButton>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

#include "gui/app/help_text.h"

namespace netsmith::gui {

HelpViewer::HelpViewer(QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("helpViewer"));
  setWindowTitle(tr("Netsmith help"));
  m_browser = new QTextBrowser(this);
  // Links to other documents open here (as this one, for readers); web links in the browser.
  m_browser->setOpenLinks(false);
  connect(m_browser, &QTextBrowser::anchorClicked, this, [this](const QUrl& link) {
    const QUrl url = QUrl::fromLocalFile(m_file).resolved(link);
    if (url.isLocalFile() && url.toLocalFile().endsWith(QLatin1String(".md"))) showSection(url.toLocalFile(), {});
    else QDesktopServices::openUrl(url);
  });
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  QPushButton* external = buttons->addButton(tr("Open in another application"), QDialogButtonBox::ActionRole);
  connect(external, &QPushButton::clicked, this, [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(m_file)); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(m_browser);
  layout->addWidget(buttons);
  resize(900, 640);
}

bool HelpViewer::showSection(const QString& file, const QString& heading) {
  QFile in(file);
  if (!in.open(QIODevice::ReadOnly | QIODevice::Text)) return false;
  m_file = QFileInfo(file).absoluteFilePath();
  // Relative images and links resolve against the document's folder.
  m_browser->document()->setBaseUrl(QUrl::fromLocalFile(QFileInfo(m_file).absolutePath() + QLatin1Char('/')));
  m_browser->setMarkdown(helpTextForReaders(QString::fromUtf8(in.readAll())));
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
