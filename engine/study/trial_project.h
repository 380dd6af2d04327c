// A trial's project: the study's base project with the trial's values set at their keys.
#pragma once

#include <string>

#include "engine/study/search_space.h"

namespace netsmith::study {

// Sets `value` at `path` in a portable project JSON (projectToPortableJson). A path is a JSON
// path of sections and keys ("optimizer.alpha", "config.batch_size"), or network.BLOCK.FIELD for
// a layer's parameter ("network.conv1.outmaps"); a number given for a parameter that holds a
// list of numbers sets each of them ("network.conv1.kernel=3" makes [3, 3]). Another
// optimizer.solver drops the old solver's own hyper-parameters (the new one's defaults apply). Throws Error naming
// the path when a section or block does not exist. Whether the value suits the key is the
// project loader's to say (the study loads each trial's project before it trains).
void setProjectValue(Json& project, const std::string& path, const Json& value);

}  // namespace netsmith::study
