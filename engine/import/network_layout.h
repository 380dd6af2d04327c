// A readable layout for a network made by a program (an import): top to bottom, each node on the
// row of its longest path from the Input, nodes of one row side by side (branches beside the
// trunk), ordered to follow their producers so that links cross little.
#pragma once

#include "engine/project/project.h"

namespace netsmith {

// Rows are kRowSpacing apart (the samples' 90), columns kColumnSpacing; the trunk stays at x = 0
// where a row has one node. Sets every node's pos; the nodes must be in topological order.
inline constexpr double kRowSpacing = 90;
inline constexpr double kColumnSpacing = 220;
void layOutTopToBottom(NetworkSpec& network);

}  // namespace netsmith
