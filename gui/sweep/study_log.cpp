#include "gui/sweep/study_log.h"

#include <QDir>
#include <QFile>

#include "engine/core/error.h"

namespace netsmith::gui {

namespace {
QString text(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

bool StudyLog::update() {
  const QDir dir(m_folder);
  if (!m_definition) {
    QFile file(dir.filePath(QStringLiteral("study.json")));
    if (!file.open(QIODevice::ReadOnly)) return false;  // not written yet
    const auto json = study::Json::parse(file.readAll().toStdString(), nullptr, false);
    try {
      if (json.is_discarded()) throw Error(file.fileName().toStdString() + ": not valid JSON");
      m_definition = study::StudyDefinition::fromJson(json, file.fileName().toStdString());
    } catch (const Error& e) {
      if (m_error.isEmpty()) m_error = QString::fromUtf8(e.what());
      return false;
    }
  }
  QFile file(dir.filePath(QStringLiteral("trials.jsonl")));
  if (!file.open(QIODevice::ReadOnly) || file.size() <= m_offset || !file.seek(m_offset)) return false;
  const QByteArray added = file.readAll();
  m_offset += added.size();
  m_partial += added;
  bool changed = false;
  qsizetype newline;
  while ((newline = m_partial.indexOf('\n')) >= 0) {
    const std::string line = m_partial.left(newline).toStdString();
    m_partial.remove(0, newline + 1);
    ++m_lineNumber;
    if (line.empty()) continue;
    try {
      study::applyLogLine(m_trials, line, format("{}:{}", file.fileName().toStdString(), m_lineNumber),
                          m_definition->parameters.size(), m_secondsUsed);
      changed = true;
    } catch (const Error& e) {
      if (m_error.isEmpty()) m_error = QString::fromUtf8(e.what());
    }
  }
  return changed;
}

void StudyLog::applyTo(std::vector<SweepRow>& rows, const QStringList& axisPaths, bool resuming) const {
  // The place of each column's setting among the study's.
  std::vector<size_t> order;
  const auto& parameters = m_definition ? m_definition->parameters : std::vector<study::SearchParameter>{};
  for (const QString& path : axisPaths)
    for (size_t i = 0; i < parameters.size(); ++i)
      if (parameters[i].path == path.toStdString()) order.push_back(i);
  if (order.size() != static_cast<size_t>(axisPaths.size()) || axisPaths.isEmpty()) {
    order.clear();
    for (size_t i = 0; i < parameters.size(); ++i) order.push_back(i);
  }
  for (const study::TrialRecord& t : m_trials) {
    const auto i = static_cast<size_t>(t.index);
    while (rows.size() <= i) {
      SweepRow added;
      added.index = static_cast<int>(rows.size()) + 1;
      rows.push_back(added);
    }
    SweepRow& row = rows[i];
    row.project = text(t.sourceProject);
    row.values.clear();
    if (t.values.size() == parameters.size())
      for (size_t i : order) row.values << text(parameters[i].valueText(t.values[i]));  // a drawn real: 3 digits
    row.trialProject = text(t.project);
    row.runFolder = text(t.runDir);
    if (!t.epochs.empty()) {
      row.epochs = t.epochs.back().epoch;
      row.finalError = t.finalError();
      row.bestError = t.bestError();
      row.bestEpoch = t.bestEpoch();
    }
    if (t.stoppedEarly) row.stoppedEarly = text(*t.stoppedEarly);
    if (t.ended() && !(resuming && t.status == "stopped")) {
      row.status = text(t.status);
      row.message = text(t.message);
      row.device = text(t.devices);
      row.seconds = t.seconds;
    }
  }
}

}  // namespace netsmith::gui
