// SweepRunner: one `netsmith-cli sweep ... --json` child (found as every engine command is:
// engineProgram(), gui/run/cli_command.h) and the table rows it fills.
//
// While it runs, the rows follow the study's log (study_log.h: the study folder is the new
// `<runs>/<stamp>-sweep/` with a study.json, or the folder resumed): each trial's values, run
// folder, validation errors, early stop and end; and each started trial's run folder
// (sweep_progress.h: running, its device, epochs as they come). When the child ends, its JSON
// summary (stdout) gives every row its final figures.
//
// Stop sends SIGTERM: the CLI stops every training within one iteration (each writes a checkpoint
// and can be resumed from the run history), marks the trainings it had not started "not run",
// writes the summary and exits with 3. A child that has not ended 15 s later is killed. The
// runner never leaves an orphan: its destructor stops a running child the same way and waits.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QSet>
#include <QTimer>
#include <map>
#include <memory>

#include "gui/sweep/sweep_progress.h"
#include "gui/sweep/sweep_request.h"
#include "gui/sweep/study_log.h"

namespace netsmith::gui {

class SweepRunner : public QObject {
  Q_OBJECT
 public:
  explicit SweepRunner(QObject* parent = nullptr);
  ~SweepRunner() override;

  // Starts the sweep; false (with the reason in lastError()) when a sweep runs or the request
  // has a problem(). The rows are the request's plannedRows() from here on.
  bool start(const SweepRequest& request);
  // Continues the stopped study in `studyFolder` (`sweep --resume FOLDER --json`) on `devices`
  // (empty: where it trained), its rows read again from its log.
  bool resume(const QString& studyFolder, const QStringList& devices, int devicesPerTrial);
  // Asks the sweep to stop (SIGTERM, then SIGKILL after kStopGraceMs).
  void stop();
  bool isRunning() const { return m_process != nullptr; }
  bool stopRequested() const { return m_stopRequested; }
  qint64 processId() const;

  const SweepRequest& request() const { return m_request; }
  const std::vector<SweepRow>& rows() const { return m_rows; }
  // `<runs>/<stamp>-sweep` once the CLI has made it (its variants' projects and summary.json).
  QString sweepFolder() const { return m_sweepFolder; }
  // The study's log as read so far (null before the folder is found).
  const StudyLog* studyLog() const { return m_log.get(); }
  // Whether the last study ended before its budgets were used (stopped, killed): Resume continues it.
  bool canResume() const { return !m_process && !m_sweepFolder.isEmpty() && m_resumable; }
  // A sentence for the status line: "2 of 4 trainings done", "completed", why it failed.
  QString statusText() const { return m_status; }
  QString lastError() const { return m_lastError; }
  // How often the run folders are read while the sweep runs (tests shorten it).
  void setPollInterval(int ms) { m_poll.setInterval(ms); }

  static constexpr int kStopGraceMs = 15000;

 signals:
  void rowsChanged();
  void statusChanged(const QString& text);
  // The child ended: `exitCode` is the CLI's (0 all completed, 1 some failed, 2 refused, 3
  // stopped), -1 when it could not start or was killed; `message` says why, when it did not complete.
  void finished(int exitCode, const QString& message);

 private:
  void poll();
  bool launch(const SweepRequest& request);
  void findStudyFolder();
  void followRunFolders();
  void onFinished(int exitCode, QProcess::ExitStatus status);
  void onStartFailed();
  void setStatus(const QString& text);
  void finish(int exitCode, const QString& message);

  SweepRequest m_request;
  std::vector<SweepRow> m_rows;
  QProcess* m_process = nullptr;
  QTimer m_poll;
  QString m_sweepFolder;
  QSet<QString> m_before;  // the project's runs folder's entries before the start
  std::unique_ptr<StudyLog> m_log;
  bool m_resumable = false;
  std::map<int, std::unique_ptr<RunFolderProgress>> m_progress;  // by row index
  QByteArray m_stdout;
  QByteArray m_stderr;
  bool m_stopRequested = false;
  QString m_status;
  QString m_lastError;
};

}  // namespace netsmith::gui
