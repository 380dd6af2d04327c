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

// The labels alone (labels, labelWidth, numClasses, classNames of a class-name column, size): the
// rows are checked as readCsvDataset checks them, but no image is opened (an image CSV's paths
// are not read), so a sample's values, sampleShape and diskBytes are left empty. For counting a
// dataset's classes (peekClassCount) without decoding it.
Dataset readCsvLabels(const std::string& csvPath, bool skipBadRows);

}  // namespace netsmith
