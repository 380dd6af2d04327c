// Follows a study's folder (<project>.runs/<stamp>-sweep/, engine/study/study_folder.h) while
// `netsmith-cli sweep` writes it: study.json once it exists, then each whole line appended to
// trials.jsonl, applied with the engine's own reader (study::applyLogLine) — a trial's values when
// it is suggested, its validation errors, an early stop with the rule's reason, its end. A random
// or Bayesian study's rows appear this way one by one; a grid's are all logged at its start.
// The folder is read without its lock (the CLI holds it), so a line still being written waits
// for its newline. A damaged line is not skipped silently: error() names the file and line, and
// the lines after it are still read.
#pragma once

#include <QByteArray>
#include <QString>
#include <optional>
#include <vector>

#include "engine/study/study_folder.h"
#include "gui/sweep/sweep_request.h"

namespace netsmith::gui {

class StudyLog {
 public:
  explicit StudyLog(const QString& studyFolder) : m_folder(studyFolder) {}
  QString folder() const { return m_folder; }

  // Reads what was appended since the last call; returns whether anything new was read.
  bool update();
  // The definition (nullopt until study.json can be read) and the trials logged so far.
  const std::optional<study::StudyDefinition>& definition() const { return m_definition; }
  const std::vector<study::TrialRecord>& trials() const { return m_trials; }
  // The first damaged line or unreadable study.json ("…/trials.jsonl:7: not a JSON object: …"); empty when none.
  QString error() const { return m_error; }

  // Writes what the log says into `rows` (row i is trial i; missing rows are added): values,
  // projects, run folder, validation errors, an early stop, the end. What the log does not know
  // (running, the device before the end) is left as it is. While `resuming`, a trial logged as
  // stopped is not marked so: the resume is continuing it (its new end is logged when it ends).
  // The values are written in the order of `axisPaths` (the table's columns; the study orders its
  // settings lists first, ranges after); empty: the study's order.
  void applyTo(std::vector<SweepRow>& rows, const QStringList& axisPaths, bool resuming = false) const;

 private:
  QString m_folder;
  std::optional<study::StudyDefinition> m_definition;
  std::vector<study::TrialRecord> m_trials;
  qint64 m_offset = 0;
  qint64 m_lineNumber = 0;
  QByteArray m_partial;
  double m_secondsUsed = 0;
  QString m_error;
};

}  // namespace netsmith::gui
