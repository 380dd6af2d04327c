// Note [Engine words]: the engine's messages are written for a terminal — "netsmith-cli: error:"
// before them, JSON paths such as network.nodes[15].params.pads, the file the engine was given.
// The console shows them in its own words: without the program's prefix, a block by its name,
// and the project instead of the temporary copy of it that the console handed the engine.
#pragma once

#include <QString>

#include "engine/project/project.h"

namespace netsmith::gui {

// `text` without "netsmith-cli: error: " / "netsmith-cli COMMAND: " at the start of its lines.
QString withoutEngineName(QString text);

// withoutEngineName, and network.nodes[N] (with .params.KEY) as "block 'ID'" ("block 'ID', KEY")
// from `network` (the network the engine read, in its order), `engineFile` as "the project".
QString engineTextForPeople(const QString& text, const NetworkSpec& network, const QString& engineFile = {});

}  // namespace netsmith::gui
