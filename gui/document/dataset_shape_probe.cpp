#include "gui/document/dataset_shape_probe.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

#include "engine/data/dataset.h"
#include "gui/document/project_document.h"

namespace netsmith::gui {

namespace {

QString sourceKey(const DataSourceSpec& s) {
  return qs(s.format + '\n' + s.images + '\n' + s.labels + '\n' + s.csv);
}

std::optional<DatasetSamples> probe(const DataSourceSpec& spec) {
  DatasetSamples samples;
  try {
    samples.shape = peekSampleShape(spec);
    samples.source = spec.format == "csv" ? spec.csv : spec.images;
  } catch (const std::exception&) {
    return std::nullopt;  // the Dataset page shows why the source cannot be read
  }
  // The labels alone (no image is decoded), for Note [Classifier head]'s check; a source whose
  // labels cannot be read leaves it off, as the trainer then says why.
  try {
    samples.classes = peekClassCount(spec);
  } catch (const std::exception&) {
    samples.classes = 0;
  }
  return samples;
}

}  // namespace

DatasetShapeProbe::DatasetShapeProbe(ProjectDocument* doc, QObject* parent) : QObject(parent), m_doc(doc) {
  connect(doc, &ProjectDocument::settingsChanged, this, &DatasetShapeProbe::refresh);
  connect(doc, &ProjectDocument::loaded, this, &DatasetShapeProbe::refresh);
  connect(&m_watcher, &QFutureWatcher<std::optional<DatasetSamples>>::finished, this, [this] {
    if (m_running == m_key) {
      m_doc->graph()->setDatasetSamples(m_watcher.result());
      m_done = m_running;
    }
    m_running.clear();
    if (m_done != m_key) return refresh();  // the source changed while the old one was read
    emit probed();
  });
  refresh();
}

DatasetShapeProbe::~DatasetShapeProbe() { m_watcher.waitForFinished(); }

void DatasetShapeProbe::waitForIdle() {
  while (!m_running.isEmpty()) {
    m_watcher.waitForFinished();
    QCoreApplication::processEvents();
  }
}

void DatasetShapeProbe::refresh() {
  const DataSourceSpec spec = m_doc->settings().dataset.training;
  m_key = sourceKey(spec);
  if (!m_running.isEmpty() || m_key == m_done) return;  // finished() starts the newest source
  if (!spec.present()) {
    m_doc->graph()->setDatasetSamples(std::nullopt);
    m_done = m_key;
    return;
  }
  m_running = m_key;
  m_watcher.setFuture(QtConcurrent::run([spec] { return probe(spec); }));
}

}  // namespace netsmith::gui
