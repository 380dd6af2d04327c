// What a folder dataset's folder holds besides what `dataset create` wrote into it: the files
// `dataset create --overwrite` would delete although it did not make them (Note [Folder dataset]).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace netsmith {

// The entries of `dir` (a folder with a dataset.json of the builder) that the builder did not
// write, as paths relative to `dir` ("my_runs/", "project.nsproj", "images/cat/notes.txt"); a
// folder the builder never makes is named once, with a trailing '/', not file by file. The
// builder writes dataset.json, classes.txt, report.txt, training.csv and validation.csv, their
// sample stores, and below images/ exactly the files the two CSVs name; a training run may
// rewrite a store, which keeps its name. At most `limit` entries; `more` gets the count beyond.
std::vector<std::string> entriesNotWrittenByBuilder(const std::filesystem::path& dir, size_t limit, size_t* more);

}  // namespace netsmith
