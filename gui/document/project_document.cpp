#include "gui/document/project_document.h"

#include <QFileInfo>

#include "engine/core/error.h"
#include "engine/project/project_io.h"

namespace netsmith::gui {

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent) {
  connect(&m_undo, &QUndoStack::cleanChanged, this, [this] { emit modifiedChanged(isModified()); });
  m_settings = newProjectSettings();
}

Project ProjectDocument::newProjectSettings() {
  // Written as a project file would be, so the engine's loader fills every default.
  const Json json = {
      {"format", "netsmith-project"},
      {"version", 1},
      {"name", kNewProjectName},
      {"network", {{"nodes", Json::array()}, {"links", Json::array()}}},
      {"dataset",
       {{"training",
         {{"format", "idx"},
          {"images", "${DATASETS}/fashion-mnist/train-images-idx3-ubyte.gz"},
          {"labels", "${DATASETS}/fashion-mnist/train-labels-idx1-ubyte.gz"}}},
        {"validation",
         {{"format", "idx"},
          {"images", "${DATASETS}/fashion-mnist/t10k-images-idx3-ubyte.gz"},
          {"labels", "${DATASETS}/fashion-mnist/t10k-labels-idx1-ubyte.gz"}}},
        {"scale", 1.0 / 255.0},
        // Fashion-MNIST's names (Zalando's paper; its IDX files hold the numbers only).
        {"class_names", {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
                         "Ankle boot"}}}},
      {"config", {{"max_epoch", 5}, {"batch_size", 64}}},
      {"optimizer", {{"solver", "Adam"}, {"alpha", 0.001}}},
  };
  return parseProject(json, "", ProjectParseOptions{.checkNetwork = false});
}

void ProjectDocument::newProject() { adopt(newProjectSettings(), {}); }

void ProjectDocument::newProject(const Project& project) {
  Project copy = project;
  copy.path.clear();
  adopt(copy, {});
  m_modifiedWithoutUndo = true;
  emit modifiedChanged(true);
}

void ProjectDocument::load(const QString& path) {
  const Project project = loadProject(ss(QFileInfo(path).absoluteFilePath()), ProjectParseOptions{.checkNetwork = false});
  adopt(project, QFileInfo(path).absoluteFilePath());
}

void ProjectDocument::loadRecovered(const QString& file, const QString& path) {
  Project project = loadProject(ss(file), ProjectParseOptions{.checkNetwork = false});
  project.path = path.isEmpty() ? std::string() : ss(path);
  adopt(project, path);
  m_modifiedWithoutUndo = true;
  emit modifiedChanged(true);
}

void ProjectDocument::adopt(const Project& project, const QString& path) {
  m_undo.clear();
  m_modifiedWithoutUndo = false;
  m_settings = project;
  m_settings.network = {};
  m_path = path;
  m_graph.reset(project.network);
  m_undo.setClean();
  emit pathChanged(m_path);
  emit settingsChanged();
  emit loaded();
  emit modifiedChanged(false);
}

void ProjectDocument::save(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  // A new project's first file names it, unless the user named it already: a project saved as
  // cats.nsproj is "cats", not the new project's "Untitled".
  const bool nameFromFile = m_path.isEmpty() && m_settings.name == kNewProjectName;
  const std::string previousName = m_settings.name;
  if (nameFromFile) m_settings.name = ss(QFileInfo(absolute).completeBaseName());
  Project project = toProject();
  try {
    saveProject(project, ss(absolute));
  } catch (...) {
    m_settings.name = previousName;
    throw;
  }
  if (nameFromFile) emit settingsChanged();
  // What is on disk now is the reference for path spellings of later saves.
  m_settings.path = ss(absolute);
  m_settings.original = projectToJson(project);
  const bool renamed = absolute != m_path;
  m_path = absolute;
  m_modifiedWithoutUndo = false;
  m_undo.setClean();
  if (renamed) emit pathChanged(m_path);
  emit modifiedChanged(false);
}

Project ProjectDocument::toProject() const {
  Project p = m_settings;
  p.network = m_graph.spec();
  p.path = m_path.isEmpty() ? m_settings.path : ss(m_path);
  return p;
}

std::string ProjectDocument::toText(const QString& path) const { return projectToText(toProject(), ss(path)); }

void ProjectDocument::setSettings(const Project& settings) {
  const Json original = m_settings.original;
  const std::string path = m_settings.path;
  m_settings = settings;
  m_settings.network = {};
  m_settings.original = original;
  m_settings.path = path;
  emit settingsChanged();
}

QString ProjectDocument::displayName() const {
  return m_path.isEmpty() ? qs(m_settings.name) : QFileInfo(m_path).fileName();
}

SettingsCommand::SettingsCommand(ProjectDocument* doc, Project before, Project after, const QString& field)
    : m_doc(doc), m_before(std::move(before)), m_after(std::move(after)), m_field(field) {
  setText(QObject::tr("Change %1").arg(field));
}

void SettingsCommand::redo() { m_doc->setSettings(m_after); }
void SettingsCommand::undo() { m_doc->setSettings(m_before); }

bool SettingsCommand::mergeWith(const QUndoCommand* other) {
  const auto* o = static_cast<const SettingsCommand*>(other);
  if (o->m_doc != m_doc || o->m_field != m_field) return false;
  m_after = o->m_after;
  return true;
}

}  // namespace netsmith::gui
