// IDX files of the MNIST family (LeCun et al., "Gradient-based learning applied to document
// recognition", 1998; http://yann.lecun.com/exdb/mnist/): Fashion-MNIST, MNIST, KMNIST, EMNIST.
//
// Images: magic 0x00000803 (unsigned bytes, 3 dimensions), then count, rows, cols (big-endian
// uint32), then count x rows x cols pixels, row-major. Labels: magic 0x00000801, count, then
// count bytes. Either file may be gzip-compressed (detected by its 1f 8b magic) or raw.
// Both functions may be called from several threads at once (they share no state).
#pragma once

#include <string>

#include "parsgd/data/dataset.hpp"

namespace parsgd {

// Reads an image file and its label file into a Dataset: one row per image, features = rows x cols
// (pixel (r, c) is feature r * cols + c), values = pixel / 255 with zero pixels left out (CSR),
// labels = the class id as a float (every label 0 where `labels_path` is empty: images to
// predict). source() is `images_path`.
// Throws DataError "path: byte N: ..." (N: offset in the decompressed stream) for a wrong magic or
// element type, zero or absurd dimensions (more than 2^32 - 1 pixels per image), a truncated
// file, data after the last image or label, a damaged gzip stream, or image and label counts that
// differ; parsgd::Error if a file cannot be opened.
// Nothing is allocated from the declared sizes: arrays grow with the bytes actually read, so a
// header that lies costs nothing before it is found out (raw files are checked against their size
// first). Cost: sequential, one pass over each file (inflate bound for .gz); memory about 2x the
// final arrays while reading.
Dataset ReadIdx(const std::string& images_path, const std::string& labels_path);

// True if the file starts (after gunzip, if it is gzip) with an IDX magic number: two zero bytes,
// an element type code (0x08-0x0E), then 1 to 4 dimensions. False if it cannot be read.
bool HasIdxMagic(const std::string& path);

}  // namespace parsgd
