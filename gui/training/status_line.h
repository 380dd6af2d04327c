// StatusLine: the Training page's status line, beside its buttons: the whole sentence, broken at
// the label's width, up to kMaxLines lines (the scaling verdict after a run is two or three lines
// at 1366 px: it was cut after two, "…to co…"), red when it reports an error.
//
// The label grows by the lines it shows, as a minimum height set when the text or the width
// changes, not as a height for its width: a height-for-width label makes the whole page ask its
// window's scroll area for its preferred height (Note [Training page layout]). Only a sentence
// longer than kMaxLines is cut with "…"; the tooltip and the engine log hold all of it.
#pragma once

#include <QLabel>

namespace netsmith::gui {

class StatusLine : public QLabel {
 public:
  static constexpr int kMinLines = 2, kMaxLines = 6;
  // Shows `text` (without a tooltip: a first sentence such as "Ready." says nothing more).
  explicit StatusLine(const QString& text, QWidget* parent = nullptr);

  // The sentence (its tooltip too), red when `error`.
  void showStatus(const QString& text, bool error = false);
  const QString& fullText() const { return m_full; }
  bool isError() const { return m_error; }

  bool hasHeightForWidth() const override { return false; }
  QSize sizeHint() const override { return {300, heightFor(m_lines)}; }
  QSize minimumSizeHint() const override { return {100, heightFor(m_lines)}; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  int heightFor(int lines) const;
  void fit();

  QString m_full;
  bool m_error = false;
  int m_lines = kMinLines;
};

}  // namespace netsmith::gui
