// NNC's per-parameter learning-rate multipliers (the optimizer's parameter_variable entries) as
// the imported layers' "lr_mult" (Note [NNabla learning-rate multipliers]).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/import/nnabla/nnabla_file.h"
#include "engine/project/graph.h"
#include "engine/project/project.h"

namespace netsmith::nnabla_import {

// Note [NNabla learning-rate multipliers]
// An NNC optimizer lists the parameters it trains, each with a learning_rate_multiplier
// (parameter_variable { variable_name: "conv1/conv/W" learning_rate_multiplier: 0 }); nnabla
// multiplies the solver's rate by it, and leaves a parameter whose multiplier is 0 out of the
// solver altogether (not updated, no weight decay, no solver state). A variable_name with
// "{R}" (a repeat's) stands for every copy ("conv{R}/W" → "conv_0/W", "conv_1/W": Note
// [Repeat expansion]). A Netsmith layer has one multiplier for all its blobs, "lr_mult" (Note
// [Frozen layers]), so:
//   - when every trainable blob of a layer has the same multiplier m (a blob not listed counts
//     as 1), m != 1 becomes "lr_mult": m — 0 included, which is NNC's own meaning: no gradient,
//     no update, no state, while a BatchNormalization still normalises with the batch's
//     statistics and updates its running ones, as NNC's training does. "frozen": true is not
//     used: a frozen BatchNormalization normalises with its running statistics instead;
//   - BatchNormalization's mean and var are not trainable blobs: their 0 (in every NNC file)
//     says nothing;
//   - blobs of one layer with different multipliers (W 1, b 2), or a negative one, are listed
//     as not mapped and the layer keeps lr_mult 1.
// Sets lrMult of `network`'s nodes (those of `graph`, built from it); `sources` gives each
// layer's blob → nnabla parameter variable. Returns the not-mapped lines.
std::vector<std::string> mapLearningRateMultipliers(
    const NnOptimizer& optimizer, const Graph& graph,
    const std::map<std::string, std::vector<std::pair<std::string, std::string>>>& sources, NetworkSpec& network);

}  // namespace netsmith::nnabla_import
