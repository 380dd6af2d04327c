// HelpViewer: the documentation (docs/*.md) in a window of its own, opened by F1 at the section
// of the page in front (Help > Help on this page). Markdown is shown by QTextBrowser without the
// pointers into the code (help_text.h); links to the other documents open here too, web links in
// the browser.
#pragma once

#include <QDialog>

class QTextBrowser;

namespace netsmith::gui {

class HelpViewer : public QDialog {
  Q_OBJECT
 public:
  explicit HelpViewer(QWidget* parent = nullptr);

  // Shows `file` (a .md document) scrolled to the heading whose text is `heading` (the top when
  // empty or not found). False when the file cannot be read.
  bool showSection(const QString& file, const QString& heading);
  // The heading at the top of the view (the last heading above it), for tests.
  QString shownHeading() const;
  QTextBrowser* browser() const { return m_browser; }
  QString file() const { return m_file; }  // the document shown

 private:
  QTextBrowser* m_browser;
  QString m_file;
};

}  // namespace netsmith::gui
