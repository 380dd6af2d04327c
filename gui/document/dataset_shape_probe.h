// DatasetShapeProbe: reads the sample shape of the project's training data off the GUI thread
// (an IDX header, a CSV's first rows: engine peekSampleShape) whenever the training source
// changes, and hands it to the GraphDocument, whose analysis then checks the input block against
// it — so the Edit page says "set its shape to 1,28,28" before a run is started, as the trainer
// would refuse it. A source that cannot be read leaves the check off: the Dataset page says why.
// It also counts the source's classes from its labels alone (engine peekClassCount: an IDX labels
// file, a CSV's label column and classes.txt), for ClassCountBar's offer to set the head.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <optional>

#include "gui/document/network_analysis.h"

namespace netsmith::gui {

class ProjectDocument;

class DatasetShapeProbe : public QObject {
  Q_OBJECT
 public:
  explicit DatasetShapeProbe(ProjectDocument* doc, QObject* parent = nullptr);
  ~DatasetShapeProbe() override;

  // Blocks until the source being read (if any) is done; for tests.
  void waitForIdle();

 signals:
  void probed();

 private:
  void refresh();

  ProjectDocument* m_doc;
  QFutureWatcher<std::optional<DatasetSamples>> m_watcher;
  QString m_key;      // the source asked for last
  QString m_running;  // the source being read now
  QString m_done;     // the source whose shape the graph has
};

}  // namespace netsmith::gui
