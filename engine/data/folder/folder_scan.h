// Reading a folder of images as a labelled dataset, before any decoding: which files are images
// of which class in which split, which are left out and why (Note [Image folder layout]), the
// validation split (Note [Validation split]) and the size and colour of an image from its
// header. `netsmith-cli dataset create` (engine/data/folder/dataset_builder.h) builds on it; the
// GUI's Dataset page may call scanImageFolder alone to preview the classes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace netsmith {

// Note [Image folder layout]
// SOURCE is read in one of two layouts (as torchvision's ImageFolder and DIGITS read folders):
//  - Class folders: SOURCE/<class>/...: every subfolder of SOURCE is a class, named by the
//    folder's name. Classes sorted by name (byte order, as `LC_ALL=C ls`) get labels 0..K-1.
//    The validation images are drawn from each class (Note [Validation split]).
//  - Given split: SOURCE/train/<class>/... and SOURCE/val/<class>/... (or test/ instead of val/;
//    with both, val/ is used and test/ is listed as not read). The split is used as given; the
//    classes are the union of both sides' folders, sorted. A lone train/ (no val/ or test/) is
//    read as the class folders below it, with a drawn validation split.
// Below a class folder every subfolder is walked, to any depth (symbolic links followed, a
// folder reached twice read once). A file is an image candidate when its name ends in .png,
// .jpg, .jpeg, .jpe or .jfif, in any case; what it really is comes from its bytes later.
// Skipped, and listed with the reason, never fatal: names starting with '.' (hidden files and
// folders; a hidden folder is listed once, not read), files of other extensions, files
// directly in SOURCE (or in train/ and val/) outside any class folder, folders that cannot be
// read, sockets and the like. A class name that cannot be one line of classes.txt or a CSV cell
// (a line break in the folder's name) is refused: that folder is skipped with the reason.
// Candidates are ordered by (split, label, path below the class folder, byte order), so every
// later step, and every output file, is in an order fixed by the names alone.
enum class FolderLayout { ClassFolders, GivenSplit };
enum class DataSplit : uint8_t { Training = 0, Validation = 1 };

const char* dataSplitName(DataSplit split);  // "training", "validation"

struct ImageCandidate {
  std::filesystem::path path;  // SOURCE / relative
  std::string relative;        // below SOURCE, '/'-separated: "cat/a.jpg", "train/cat/sub/b.png"
  std::string inClass;         // below the class folder: "a.jpg", "sub/b.png"
  int label = 0;
  DataSplit split = DataSplit::Training;  // given split: from the folder; else Training
};

// A file or folder left out: its path below SOURCE ('/'-separated; a folder ends with '/') and
// why ("hidden", "not a PNG or JPEG file name (.txt)", or decodeImage's one-line reason).
struct SkippedFile {
  std::string path;
  std::string reason;
};

struct FolderScan {
  std::filesystem::path source;  // absolute
  FolderLayout layout = FolderLayout::ClassFolders;
  // Given split: the folders read ("train", and "val" or "test"); empty for class folders. A lone
  // train/ has trainingFolder "train" and layout ClassFolders.
  std::string trainingFolder;
  std::string validationFolder;
  std::vector<std::string> classNames;  // label order
  std::vector<ImageCandidate> images;   // Note [Image folder layout] order
  std::vector<SkippedFile> skipped;     // sorted by path
  std::vector<std::string> warnings;    // e.g. "test/ is not read: the validation images are val/'s"

  // Candidates of `label` in `split`.
  int64_t count(int label, DataSplit split) const;
};

// Walks `source` (Note [Image folder layout]). Throws Error naming the folder when it does not
// exist or is not a folder, holds no class folder, or holds no image candidate at all. A class
// folder without any candidate is not an error here (dataset_builder.h decides). `cancelled`, if
// given, is polled between folders; when it returns true the scan throws ScanCancelled. Only reads.
struct ScanCancelled {};
FolderScan scanImageFolder(const std::filesystem::path& source, const std::function<bool()>& cancelled = {});

// Note [Validation split]
// For a drawn split (class folders), each class keeps its share: of a class's n usable images,
// v = min(floor(n * percent / 100 + 0.5), n - 1) go to validation (so a class of one image
// trains, and one image always stays to train on). Which ones: the v with the smallest
// mix64(seed ^ mix64(FNV-1a(key))), key = the image's path below SOURCE, ties by key. An
// image's place thus depends only on (seed, its own path, its class's count): not on thread
// timing, file system order, or the other images' names; another seed draws another split.
// Returns the split of each item; labels[i] in 0..numClasses-1, keys[i] the path.
std::vector<DataSplit> chooseValidationSplit(const std::vector<int>& labels, const std::vector<std::string>& keys,
                                             int numClasses, double percent, uint64_t seed);

// What a file's first bytes say about the image, without decoding it.
struct ImageHeader {
  int width = 0;   // as shown: after the JPEG's EXIF orientation (5..8 swap width and height)
  int height = 0;
  bool colour = false;  // decodeImage gives 3 channels (PNG RGB/RGBA/palette; JPEG of 3-4 components)
};

// Reads the PNG IHDR chunk or the JPEG SOF segment (and an APP1 Exif orientation before it) in
// `bytes`. False for anything else or a header it cannot read whole. Every read is bounds-checked
// against `size`; no input makes it read outside [bytes, bytes + size).
bool readImageHeader(const unsigned char* bytes, size_t size, ImageHeader& header);

}  // namespace netsmith
