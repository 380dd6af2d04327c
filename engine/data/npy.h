// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0): what `netsmith-cli infer` reads as input
// batches (--input X.npy of shape (N, C, H, W) or (N, D)) and writes as outputs (--output Y.npy).
//
// Note [NumPy arrays]: a file is the magic "\x93NUMPY", a version, the length of a header that is a
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape': (N, C, H, W), } padded
// with spaces to a multiple of 64 bytes and ended by '\n', then the values in C order. We read
// little-endian float32, float64, int32, int64 and uint8 ('|u1') and convert them to float32 (a
// person's own array is often float64 or a uint8 image batch); big-endian, Fortran order, object
// and structured arrays are refused with a sentence naming the file. The data must be exactly the
// size the shape says: a shorter file was cut, a longer one is not what its header claims. We
// write float32 in version 1.0, atomically.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace netsmith {

struct NpyArray {
  std::vector<int64_t> shape;  // () for a scalar
  std::vector<float> values;   // C order, numel(shape) of them
  std::string descr;           // the file's element type: "<f4", "<f8", "|u1", ...
  bool integers() const { return descr.size() >= 2 && descr[1] != 'f'; }
};

// Throws Error naming `path` and what is wrong (magic, version, header key, type, size).
NpyArray readNpy(const std::string& path);
// Parses a whole .npy file's bytes; `path` is for messages.
NpyArray parseNpy(std::span<const unsigned char> bytes, const std::string& path);
// Writes a float32 array (version 1.0, C order) atomically; throws Error naming the file.
void writeNpy(const std::string& path, std::span<const int64_t> shape, std::span<const float> values);
// The bytes writeNpy writes.
std::string npyBytes(std::span<const int64_t> shape, std::span<const float> values);

}  // namespace netsmith
