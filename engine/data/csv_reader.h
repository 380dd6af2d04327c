// Neural Network Console dataset CSV: a header of variables ("x:image,y:label", "x__0,x__1,y"),
// one row per sample; image cells are PNG paths relative to the CSV file's folder.
#pragma once

#include <string>

#include "engine/data/dataset.h"

namespace netsmith {

// skipBadRows: rows that fail are left out and listed in one warning instead of stopping the load.
// maxRows > 0: only the first maxRows data rows are read (the rest of the file is not parsed), for
// a quick look such as the sample shape.
Dataset readCsvDataset(const std::string& csvPath, double scale, bool skipBadRows, int64_t maxRows = 0);

}  // namespace netsmith
