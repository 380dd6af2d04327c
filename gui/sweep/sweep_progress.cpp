#include "gui/sweep/sweep_progress.h"

#include <QDir>
#include <QFile>

#include "engine/protocol/events.h"

namespace netsmith::gui {

RunFolderProgress::RunFolderProgress(const QString& runFolder) : m_folder(runFolder) { m_clock.start(); }

bool RunFolderProgress::update(SweepRow& row) {
  bool changed = false;
  if (row.runFolder != m_folder) {
    row.runFolder = m_folder;
    changed = true;
  }
  QFile file(QDir(m_folder).filePath(QStringLiteral("events.jsonl")));
  if (file.open(QIODevice::ReadOnly) && file.size() > m_offset && file.seek(m_offset)) {
    const QByteArray added = file.readAll();
    m_offset += added.size();
    m_partial += added;
    qsizetype newline;
    while ((newline = m_partial.indexOf('\n')) >= 0) {
      apply(m_partial.left(newline), row);
      m_partial.remove(0, newline + 1);
      changed = true;
    }
  }
  if (row.status == QLatin1String("running") && !m_finished) {
    row.seconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    changed = true;
  }
  return changed;
}

void RunFolderProgress::apply(const QByteArray& line, SweepRow& row) {
  // Lines that are not events (or damaged ones) are skipped: the summary has the last word.
  const protocol::EventLine read = protocol::readEventLine(std::string_view(line.constData(), line.size()));
  if (read.kind != protocol::EventLine::Kind::Event) return;
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, protocol::StartedEvent>) {
          // A start after an end is a resume of the run (a resumed study continues it).
          m_finished = false;
          row.status = QStringLiteral("running");
          for (const protocol::PlannedDevice& d : e.plan.devices)
            if (!d.idle()) {
              row.device = QString::fromStdString(d.id);
              break;
            }
        } else if constexpr (std::is_same_v<T, protocol::EpochEvent>) {
          row.epochs = e.epoch;
          if (e.validationError) {
            row.finalError = *e.validationError;
            if (!row.bestError || *e.validationError < *row.bestError) {
              row.bestError = *e.validationError;
              row.bestEpoch = e.epoch;
            }
          }
        } else if constexpr (std::is_same_v<T, protocol::FinishedEvent>) {
          m_finished = true;
          row.status = QString::fromStdString(e.status);
          row.message = QString::fromStdString(e.message);
        } else if constexpr (std::is_same_v<T, protocol::ErrorEvent>) {
          row.message = QString::fromStdString(e.message);
        }
      },
      *read.event);
}

}  // namespace netsmith::gui
