// Building a training dataset from a folder of images (`netsmith-cli dataset create`, the GUI's
// Dataset page): every image decoded, converted and resized, written as PNG with the CSV files
// training reads, classes.txt, a report, and the packed sample stores (Note [Folder dataset]).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/data/folder/folder_scan.h"
#include "engine/data/image/resize.h"

namespace netsmith {

// Note [Folder dataset]
// buildFolderDataset(options) reads options.source (Note [Image folder layout]) and writes the
// folder options.output (DIR):
//   training.csv, validation.csv   `x:image,y:label`, one row per image, paths relative to DIR
//   images/<class>/<path>.png      the images at the dataset's size and channels, 8-bit PNG
//                                  (given split: images/<train|val|test>/<class>/<path>.png)
//   classes.txt                    the class names, one per line in label order
//   training.nsstore, validation.nsstore   the same samples packed (Note [Sample store]), in
//                                  CSV row order, tied to each CSV's SHA-256
//   report.txt                     images per class and split, skipped files with reasons,
//                                  duplicates, warnings
//   dataset.json                   the settings and counts; marks DIR as made by this builder
// No validation files when the validation split is empty (--validation 0).
// Steps: scan; read every candidate (SHA-256 of its bytes, header size and colour); drop exact
// duplicates (same SHA-256: the first in candidate order is kept); choose the size (the most
// common shown size, ties to the larger area, then the wider) and channels (3 if any kept image
// is colour) unless given; decode, convert and resize each image (decodeImage, prepareImage),
// write its PNG; draw the split among the images that decoded (Note [Validation split]); write
// CSVs, stores, classes.txt, report, dataset.json. Reading and decoding run on `threads` threads
// (Note [Ordered pipeline], ordered_pipeline.h), but every output is ordered by the candidates' order alone, so the same source, options and seed give
// the same bytes in every file, whatever the thread timing.
// Atomic: DIR is built as a hidden sibling DIR/../.NAME.partial-XXXXXX (locked with flock while
// its builder lives), synced (syncfs) and renamed to DIR at the end; a cancelled build removes
// it, a killed one leaves it for the next build into the same parent folder to remove. DIR may
// not exist or be empty; a non-empty DIR is refused unless it holds a dataset.json of this
// builder, nothing the builder did not write (entriesNotWrittenByBuilder: a user's run or
// project there is named, never deleted), and `overwrite` is set: then the new folder and DIR are exchanged in one rename
// (renameat2 RENAME_EXCHANGE; where the file system lacks it, DIR is renamed away first) and
// the old dataset is deleted. The source folder is only read.
struct FolderDatasetOptions {
  std::filesystem::path source;
  std::filesystem::path output;
  int width = 0;   // 0 (with height 0): the most common image size in source
  int height = 0;
  int channels = 0;  // 1 or 3; 0: 3 if any image is colour, else 1
  ResizeMode resize = ResizeMode::Squash;
  // Percent of each class drawn for validation, 0 <= p < 100; nullopt: 20 for class folders.
  // With a given split (train/ and val/) it must be nullopt: the split is the folders'.
  std::optional<double> validationPercent;
  uint64_t seed = 0;
  bool overwrite = false;
  int threads = 0;  // decoding threads; 0: one per CPU this process may run on (sched_getaffinity)
};

constexpr double kDefaultValidationPercent = 20;

enum class BuildStage { Scanning, Reading, Converting, Writing, Finishing };
const char* buildStageName(BuildStage stage);  // "scanning", "reading", ...

struct BuildProgress {
  BuildStage stage = BuildStage::Scanning;
  int64_t done = 0;
  int64_t total = 0;  // 0 when not known (scanning)
};

struct FolderDatasetCallbacks {
  // Called on the thread that called buildFolderDataset, at each stage's start and end and
  // every few dozen images; keep it quick.
  std::function<void(const BuildProgress&)> progress;
  // Polled often on the calling thread and between images; true stops the build: the
  // partial folder is removed and the result says cancelled. DIR is left as it was.
  std::function<bool()> cancelled;
};

struct DuplicateFile {
  std::string path;         // below SOURCE, the one left out
  std::string duplicateOf;  // the one kept
};

struct ClassCounts {
  std::string name;
  int64_t training = 0;
  int64_t validation = 0;
};

struct FolderDatasetResult {
  bool cancelled = false;
  std::filesystem::path output;         // absolute
  std::filesystem::path trainingCsv;    // absolute
  std::filesystem::path validationCsv;  // absolute; empty when the validation split is empty
  FolderLayout layout = FolderLayout::ClassFolders;
  std::string validationFolder;         // given split: "val" or "test"
  double validationPercent = 0;         // drawn split: the percent used
  uint64_t seed = 0;                    // drawn split: the seed used
  int width = 0, height = 0, channels = 0;
  ResizeMode resize = ResizeMode::Squash;
  std::string sizeChoice;               // "as chosen", "the most common in the source: 950 of 1000 image headers read"
  std::string channelsChoice;           // "as chosen", "colour images found", "all images gray"
  std::vector<ClassCounts> classes;     // label order
  int64_t trainingCount = 0;
  int64_t validationCount = 0;
  int64_t candidates = 0;               // image files read (before duplicates and failures)
  std::vector<SkippedFile> skipped;     // every file left out and why, sorted by path
  std::vector<DuplicateFile> duplicates;
  std::vector<std::string> warnings;
  uint64_t bytesOnDisk = 0;             // the files in DIR
  double seconds = 0;
  std::vector<std::string> removedStale;  // stale partial folders of killed builds removed

  // The project's "dataset" sources for DIR, as JSON text:
  // {"training": {"format": "csv", "csv": ".../training.csv"}, "validation": {...}}
  std::string projectJson() const;
};

// Builds the dataset (Note [Folder dataset]). Throws Error for what stops it: a bad option, a
// missing or unusable source, no usable image at all, a class with no usable training image, a
// non-empty DIR that is not a dataset of this builder (or is one, without overwrite), a failure
// to write (naming the file and the system's reason). Never prints.
FolderDatasetResult buildFolderDataset(const FolderDatasetOptions& options, const FolderDatasetCallbacks& callbacks = {});

// Whether `dir` holds a dataset.json written by buildFolderDataset.
bool isFolderDataset(const std::filesystem::path& dir);

}  // namespace netsmith
