// config.initial_parameters: a parameters file (an imported model's NAME.nsparams, or a run's
// parameters.nsparams), or a run folder, the trainer starts from instead of the initialisers
// (Note [Initial parameters]).
#pragma once

#include <string>

#include "engine/project/graph.h"
#include "engine/protocol/initial_parameters_report.h"
#include "engine/model/checkpoint.h"
#include "engine/model/network.h"

namespace netsmith {

// Note [Initial parameters]
// Blobs are matched by "layer/blob" name (BatchNormalization's running statistics included), so a
// network may reuse part of another (transfer learning, issue 18):
//   - a blob in the file with the network's shape is loaded;
//   - a layer of the network with no entry in the file is "new": its initialisers give it values;
//   - a blob whose file entry has another shape (a classifier head set to another number of
//     classes) is re-initialised, and the report names both shapes;
//   - a file entry that no layer has is "unused", not an error.
// The report (protocol::InitialParametersReport) goes to the events stream as
// `initial_parameters` (after `started`), to run.json's "initial_parameters" and so to the
// terminal and the GUI's Training page. What is not loaded keeps the values the initialisers drew
// from (seed, "layer/blob") (Network::initializeParameters), so every replica, on any number of
// devices, starts bit for bit the same. The source may be a run folder: its parameters.nsparams
// (the final parameters), else its best.nsparams. A new run reads the file once, before any worker
// starts, and every replica copies the loaded blobs over its initialised ones; a resumed run starts
// from its checkpoint instead and does not read it.

// The parameters file of `source`: the file itself, or a run folder's parameters.nsparams (else
// best.nsparams). Error names the source when neither exists.
std::string initialParametersFile(const std::string& source);

struct InitialParameters {
  CheckpointData data;                       // the blobs to load (name and shape match the network)
  protocol::InitialParametersReport report;  // what was loaded, new, re-initialised and unused
};

// Reads `source` (Error names it when missing or damaged) and matches it against `graph`.
InitialParameters readInitialParameters(const std::string& source, const Graph& graph);

// Copies the loaded blobs into a replica of the graph (its host view; Note [Device memory]);
// the others keep what the initialisers gave them.
void applyInitialParameters(const InitialParameters& parameters, Network& network);

}  // namespace netsmith
