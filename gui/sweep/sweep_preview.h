// The sentence beside the Sweep dialog's Start button: what will run. "Random search: 10 trials,
// 2 at a time, weak trials stopped by ASHA — lr: 0.0001 … 1 (log); n_outmaps: 16 … 512 (log),
// whole numbers", or for a grid "4 trainings, 2 at a time — lr: 0.0001, 0.001, 0.01, 0.1".
#pragma once

#include <QString>

#include "gui/sweep/sweep_request.h"

namespace netsmith::gui {

QString previewText(const SweepRequest& request);

}  // namespace netsmith::gui
