// RunControl (run_control.h): a run's events, live and past, on the charts, in the status line
// and in the engine log.
#include <QDir>
#include <QFile>
#include <QLocale>

#include "gui/run/engine_event.h"
#include "gui/run/event_stream_reader.h"
#include "gui/training/figures_text.h"
#include "gui/training/run_control.h"
#include "gui/training/training_charts.h"

namespace netsmith::gui {

void RunControl::onEvent(const EngineEvent& event) {
  if (const auto* e = std::get_if<StartedEvent>(&event)) {
    if (m_state == RunState::Starting) setState(RunState::Running);
    if (e->maxEpoch > 0) m_maxEpoch = e->maxEpoch;
    emit started(*e);  // the engine's plan, the device table's figures, the job's devices
    setStatus(tr("Running: %1 samples, %2 parameters").arg(QLocale().toString(e->trainSamples), QLocale().toString(e->parameters)) +
              (e->deviceChange.isEmpty() ? QString() : QStringLiteral("\n") + e->deviceChange));
    logLine(tr("started: run folder %1").arg(e->run));
    if (!e->deviceChange.isEmpty()) logLine(e->deviceChange);
  } else if (const auto* e = std::get_if<IterationEvent>(&event)) {
    ++m_iterationEvents;
    const double elapsed = m_clock.sessionSeconds();
    m_charts->addIteration(*e, elapsed);
    emit deviceFigures(e->devices);
    if (m_state == RunState::Stopping) return;
    setStatus(tr("Epoch %1/%2 · iteration %3/%4 · loss %5 · %6 samples/s · elapsed %7 · ETA %8")
                  .arg(e->epoch)
                  .arg(m_maxEpoch)
                  .arg(e->iteration)
                  .arg(e->iterationsPerEpoch)
                  .arg(numberText(e->loss))
                  .arg(hasValue(e->samplesPerS) ? QLocale().toString(qRound64(e->samplesPerS)) : QStringLiteral("–"))
                  .arg(durationText(elapsed), durationText(e->etaS)));
  } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
    ++m_epochEvents;
    m_charts->addEpoch(*e);
    QString line = tr("epoch %1: training loss %2, validation loss %3, validation error %4, %5 s")
                       .arg(e->epoch)
                       .arg(numberText(e->trainLoss), numberText(e->validationLoss), numberText(e->validationError), numberText(e->seconds, 3));
    if (e->scaling)
      line += tr("; %1 samples/s, communication %2%, speed-up ≈ %3")
                  .arg(numberText(e->scaling->samplesPerS, 6), numberText(100 * e->scaling->communicationShare, 3),
                       numberText(e->scaling->speedupEstimate, 3));
    if (e->scaling && hasValue(e->scaling->dataShare))
      line += tr("; data %1%%2").arg(numberText(100 * e->scaling->dataShare, 3),
                                     e->scaling->dataShare > kDataBoundShare ? tr(" (waiting for data: the disk or decoding is the bottleneck)") : QString());
    logLine(line);
  } else if (const auto* e = std::get_if<CheckpointEvent>(&event)) {
    logLine(tr("checkpoint: %1").arg(e->path));
  } else if (const auto* e = std::get_if<ControlEvent>(&event)) {
    if (e->kind == ControlEvent::Kind::Paused) {
      if (m_state != RunState::Stopping) setState(RunState::Paused);
      setStatus(tr("Paused at epoch %1, iteration %2.").arg(e->epoch).arg(e->iteration));
      logLine(tr("paused"));
      m_charts->markPause();  // the device lines break here, not across the pause
    } else if (e->kind == ControlEvent::Kind::Resumed) {
      if (m_state == RunState::Paused) setState(RunState::Running);
      logLine(tr("resumed"));
    } else {
      logLine(tr("resumed from checkpoint %1").arg(e->path));
      m_charts->dropAfter(e->epoch, e->iteration);
    }
  } else if (const auto* e = std::get_if<InitialParametersEvent>(&event)) {
    // Note [Initial parameters]: the load report, layer by layer.
    for (const QString& line : e->lines) logLine(line);
  } else if (const auto* e = std::get_if<MessageEvent>(&event)) {
    logHtml(QStringLiteral("<span style='color:%1'>%2: %3</span>")
                .arg(e->isError ? QStringLiteral("#c0392b") : QStringLiteral("#b9770e"),
                     e->isError ? tr("error") : tr("warning"), e->message.toHtmlEscaped()));
  } else if (const auto* e = std::get_if<FinishedEvent>(&event)) {
    m_sawFinished = true;
    logLine(tr("finished: %1").arg(e->status));
    m_scalingVerdict = e->scalingVerdict;
    if (!e->scalingVerdict.isEmpty()) logLine(tr("scaling: %1").arg(e->scalingVerdict));
    for (const QString& gpu : e->gpuSummaries) logLine(gpu);
    if (!e->divergedBlock.isEmpty()) emit divergedBlockChanged(e->divergedBlock, e->divergedReason);
  }
}

void RunControl::onLog(const QString& line, LogKind kind) {
  if (kind == LogKind::Notice) logHtml(QStringLiteral("<span style='color:#666'>%1</span>").arg(line.toHtmlEscaped()));
  else logLine(line);
}

// --- the run's past ----------------------------------------------------------------------------

void RunControl::replayEvent(const EngineEvent& event) {
  if (const auto* e = std::get_if<StartedEvent>(&event)) {
    if (e->maxEpoch > 0) m_maxEpoch = e->maxEpoch;
    m_clock.pastSessions += m_clock.lastSession;
    m_clock.lastSession = 0;
  } else if (const auto* e = std::get_if<IterationEvent>(&event)) {
    if (hasValue(e->elapsedS)) m_clock.lastSession = e->elapsedS;
    // The loss only: the device figures were measured on the clock of a session that is gone.
    IterationEvent loss = *e;
    loss.devices.clear();
    m_charts->addIteration(loss, 0);
  } else if (const auto* e = std::get_if<EpochEvent>(&event)) {
    m_charts->addEpoch(*e);
  } else if (const auto* e = std::get_if<ControlEvent>(&event); e && e->kind == ControlEvent::Kind::ResumedFromCheckpoint) {
    m_charts->dropAfter(e->epoch, e->iteration);
  }
  m_clock.before = m_clock.pastSessions + m_clock.lastSession;
}

void RunControl::replayRunEvents(const QString& folder) {
  QFile f(QDir(folder).filePath(QStringLiteral("events.jsonl")));
  if (!f.open(QIODevice::ReadOnly)) return;
  EventStreamReader reader;
  connect(&reader, &EventStreamReader::eventReceived, this, &RunControl::replayEvent);
  reader.feed(f.readAll());
  m_charts->flush();
}

}  // namespace netsmith::gui
