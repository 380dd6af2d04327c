// The layer parameters a study may vary: network.BLOCK.FIELD for each block of the network
// and each numeric or choice parameter of its layer type, as the op registry declares it
// (engine/op_interface/op_schema.h): "fc1: n_outmaps (Affine)", an integer >= 1. A list of
// integers (Affine's n_outmaps, a Convolution's kernel) is offered as one integer, which the study
// sets in every element (engine/study/trial_project.h). Input blocks (their shape is the
// dataset's) and flags are not offered.
#pragma once

#include <vector>

#include "gui/sweep/sweep_values.h"

namespace netsmith::gui {

std::vector<SweepSetting> layerSettings(const NetworkSpec& network);

}  // namespace netsmith::gui
