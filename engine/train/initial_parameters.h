// config.initial_parameters: a parameters file (an imported model's NAME.nsparams, or a run's
// parameters.nsparams) the trainer starts from instead of the initialisers (Note [Initial
// parameters]).
#pragma once

#include <string>

#include "engine/project/graph.h"
#include "engine/train/checkpoint.h"
#include "engine/train/network.h"

namespace netsmith {

// Note [Initial parameters]
// Every blob of the network ("layer/blob", BatchNormalization's running statistics included) must
// be in the file with the same shape, and the file may hold nothing else: for now a difference is
// an error naming the file, the layer and both shapes, found before any worker starts (partial
// loading and frozen layers are issue 18's item 5). A new run reads the file once and every
// replica copies it over the parameters the initialisers gave; a resumed run starts from its
// checkpoint instead and does not read it.

// Reads `path` (Error names it when missing or damaged) and checks it against `graph`.
CheckpointData readInitialParameters(const std::string& path, const Graph& graph);

// Copies checked parameters into a replica of the graph (its host view; Note [Device memory]).
void applyInitialParameters(const CheckpointData& parameters, Network& network);

}  // namespace netsmith
