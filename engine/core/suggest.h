// Suggestions for misspelt names in error messages ("did you mean max_epoch?").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace netsmith {

// Case-insensitive Levenshtein distance.
size_t editDistance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a typo of it (or `word` starts
// it, "scale" for "scale_lr"); else empty.
std::string closestName(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace netsmith
