// InferenceTab: the Evaluation page's "Inference" tab. A person drops PNG or JPEG images onto it
// (or chooses them with a file dialog); the trained network of the run chosen on the page runs on
// them through `netsmith-cli infer RUN --input IMAGE... --parameters last|best --json`, a child
// process (never the GUI thread), and each image gets a row: its thumbnail, its file, and the
// most likely classes with their names and likelihoods as bars, or in words why it has none (a
// damaged file, a file that is not an image, an image whose shape does not fit the network's
// Input; the engine's own sentence, naming the file). Images dropped while the engine runs wait
// for it; choosing another run or parameters runs the shown images again.
#pragma once

#include <QStringList>
#include <QVector>
#include <QWidget>

#include "gui/evaluation/inference_result.h"

class QLabel;
class QProcess;
class QPushButton;
class QStackedWidget;
class QTableWidget;

namespace netsmith::gui {

class InferenceTab : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kTopClasses = 3;   // classes shown per image
  static constexpr int kThumbnail = 64;   // thumbnail size in pixels
  enum Column { ImageColumn, FileColumn, ClassesColumn };

  explicit InferenceTab(QWidget* parent = nullptr);
  ~InferenceTab() override;

  // The run folder and parameters ("last" or "best") whose network classifies the images. A new
  // choice runs the images already shown again.
  void setRun(const QString& runFolder, const QString& parameters);
  QString run() const { return m_run; }

  // Adds rows for `files` (a folder stands for its PNG and JPEG files) and runs the network on
  // them. False, with the reason in statusText(), when no run is chosen or nothing was given.
  bool addImages(const QStringList& files);
  // Opens the file dialog (PNG and JPEG images).
  void chooseImages();
  void clear();
  bool isRunning() const { return m_query != nullptr; }

  // One row per image, in the order added; a row whose engine run has not ended yet has neither a
  // prediction nor an error (isPending).
  const QVector<InferenceRow>& rows() const { return m_rows; }
  bool isPending(int row) const { return m_pending.value(row, false); }
  QStringList classNames() const { return m_classNames; }
  QString className(int c) const;
  // "Trouser 92.1% · T-shirt, top 5.0% · …" (or the row's error), as the row shows it.
  QString classesText(int row) const;
  QTableWidget* table() const { return m_table; }
  QString statusText() const;

 signals:
  // After each engine run: ok when it predicted (some of the images may still have errors).
  void inferred(bool ok);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void startNext();
  void finished(const QByteArray& output, const QString& failure);
  void showRow(int row);
  void setStatus(const QString& text, bool error = false);
  void updateEnabled();

  QString m_run, m_parameters;
  QVector<InferenceRow> m_rows;
  QVector<bool> m_pending;
  QVector<int> m_batch;  // rows the running engine works on
  QStringList m_classNames;
  bool m_binary = false;
  QProcess* m_query = nullptr;

  QStackedWidget* m_stack;
  QTableWidget* m_table;
  QLabel* m_status;
  QPushButton *m_choose, *m_clear;
};

}  // namespace netsmith::gui
