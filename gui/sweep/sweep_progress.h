// Follows one training of a running sweep through its run folder's events.jsonl (docs/events.md),
// read with the protocol's reader (engine/protocol/events.h): `netsmith-cli sweep --json` prints
// nothing until every training has ended, so the rows of the GUI's table are filled from the run
// folders while it runs, and from the summary once it ends.
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QString>

#include "gui/sweep/sweep_request.h"

namespace netsmith::gui {

class RunFolderProgress {
 public:
  explicit RunFolderProgress(const QString& runFolder);
  QString runFolder() const { return m_folder; }

  // Reads the lines appended since the last call (a line still being written waits for its
  // newline) and updates `row`: running with its device once started, the validation errors and
  // best epoch per epoch, the status of `finished`. Returns whether anything changed.
  bool update(SweepRow& row);

 private:
  void apply(const QByteArray& line, SweepRow& row);

  QString m_folder;
  qint64 m_offset = 0;
  QByteArray m_partial;
  QElapsedTimer m_clock;  // since the folder was seen: the row's time until the summary says
  bool m_finished = false;
};

}  // namespace netsmith::gui
