// Neural Network Console's repeat blocks (RepeatStart ... RepeatEnd, repeat_info { id times }):
// expanded into separate copies of the functions between them, as nnabla's own NnpExpander does.
#pragma once

#include <set>
#include <string>

#include "engine/import/nnabla/nnabla_file.h"

namespace netsmith::nnabla_import {

// Note [Repeat expansion]
// A network's repeat_info entries are expanded one at a time, the first first. For repeat R of
// N times, every variable and function carrying R in its repeat_id list is copied N times:
//   - functions and buffers are renamed NAME_R_i (nnabla's suffix rule), so a block of repeats
//     R2 (outer) and R (inner) makes Convolution_2_R2_0_R_1;
//   - parameters are renamed by replacing "{R}" in their name with "_i"
//     ("conv{R2}{R}/W" → "conv_0_1/W"), the names NNC gives the trained values in its .nnp; files
//     of older NNC versions that name them "...R[i]" (the parameter list says so) get NAME_R_i;
//   - RepeatStart R reads its first input in copy 0 and, in copy i, the output of copy i-1 of the
//     block's last function (its second input); RepeatEnd R passes on the output of the last copy.
// The RepeatStart and RepeatEnd functions themselves disappear. A function inside the block that
// reads something outside it that is neither a parameter nor the RepeatStart is an error when its
// input is looked up (nnabla gives such a reference a suffix that names nothing).
// `parameterNames`: the names of the parameters the file holds (to recognise the older naming).
// Error names the function and the repeat when the block does not close or its counts differ.
NnNetwork expandRepeats(const NnNetwork& network, const std::set<std::string>& parameterNames);

}  // namespace netsmith::nnabla_import
