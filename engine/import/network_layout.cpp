#include "engine/import/network_layout.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace netsmith {

void layOutTopToBottom(NetworkSpec& network) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < network.nodes.size(); ++i) index[network.nodes[i].id] = i;
  std::vector<std::vector<size_t>> producers(network.nodes.size());
  for (const LinkSpec& l : network.links) {
    const auto from = index.find(l.from), to = index.find(l.to);
    if (from != index.end() && to != index.end()) producers[to->second].push_back(from->second);
  }
  // The row of a node: the longest path to it (producers come first in the list).
  std::vector<int> row(network.nodes.size(), 0);
  int rows = 0;
  for (size_t i = 0; i < network.nodes.size(); ++i) {
    for (size_t p : producers[i]) row[i] = std::max(row[i], row[p] + 1);
    rows = std::max(rows, row[i] + 1);
  }
  // Row by row, nodes ordered by the mean column of their producers (ties: list order), then
  // centred on the trunk.
  std::vector<double> column(network.nodes.size(), 0);
  for (int r = 0; r < rows; ++r) {
    std::vector<size_t> members;
    for (size_t i = 0; i < network.nodes.size(); ++i)
      if (row[i] == r) members.push_back(i);
    std::vector<double> key(network.nodes.size(), 0);
    for (size_t i : members) {
      double sum = 0;
      for (size_t p : producers[i]) sum += column[p];
      key[i] = producers[i].empty() ? 0 : sum / static_cast<double>(producers[i].size());
    }
    std::stable_sort(members.begin(), members.end(), [&](size_t a, size_t b) { return key[a] < key[b]; });
    const double first = -(static_cast<double>(members.size()) - 1) / 2;
    for (size_t k = 0; k < members.size(); ++k) column[members[k]] = first + static_cast<double>(k);
    for (size_t i : members) network.nodes[i].pos = {column[i] * kColumnSpacing, r * kRowSpacing};
  }
}

}  // namespace netsmith
