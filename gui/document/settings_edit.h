// Editing one field of the project settings by its JSON path, checked by the engine's own project
// loader (parseProject), so the GUI accepts exactly what the engine accepts and shows the
// loader's sentence ("config.batch_size: expected an integer >= 1, got 0") when it does not.
#pragma once

#include <QString>
#include <utility>
#include <vector>

#include "gui/document/project_document.h"

namespace netsmith::gui {

// The value at `path` ("config.batch_size", "optimizer.alpha") in the document's JSON; null when
// absent.
Json settingValue(const ProjectDocument& doc, const QString& path);

// Sets `path` to `value` (null: removes the key, so the default applies). Returns the loader's
// message when refused (nothing changes then), else pushes one undo step (typing into one field
// merges) and returns an empty string.
QString applySetting(ProjectDocument* doc, const QString& path, const Json& value);

// Several fields at once, checked together and one undo step (merged by `path`, the field the
// user edited): e.g. a new solver together with the removal of the old solver's parameters.
QString applySettings(ProjectDocument* doc, const QString& path, const std::vector<std::pair<QString, Json>>& changes);

// The JSON value a text field means: an integer, a number, true/false or, failing those, the text.
Json valueFromText(const QString& text);

}  // namespace netsmith::gui
