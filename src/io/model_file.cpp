#include "parsgd/io/model_file.hpp"

#include <cmath>
#include <cstring>
#include <fmt/format.h>

#include "../util/xxhash64.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"

namespace parsgd {
namespace {

constexpr unsigned char kMagic[8] = {0x89, 'P', 'S', 'G', 'M', '\r', '\n', 0x1A};
constexpr uint32_t kVersion = 1;
constexpr std::size_t kFixedHeader = 40;

template <class T>
void Put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads little-endian fields in order, refusing to read past the end.
class Reader {
 public:
  Reader(const char* data, std::size_t size, const std::string& path)
      : data_(data), size_(size), path_(path) {}

  template <class T>
  T Get(const char* field) {
    Need(sizeof(T), field);
    T value;
    std::memcpy(&value, data_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string Text(std::size_t n, const char* field) {
    Need(n, field);
    std::string s(data_ + pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t pos() const { return pos_; }
  std::size_t left() const { return size_ - pos_; }

 private:
  void Need(std::size_t n, const char* field) {
    if (n > size_ - pos_) throw DataError(path_, 0, 0, fmt::format("truncated model file (in the {})", field));
  }
  const char* data_;
  std::size_t size_;
  std::string path_;
  std::size_t pos_ = 0;
};

// XXH64 of the weights, seeded with XXH64 of the bytes before them: covers every byte, no copy.
uint64_t Checksum(const void* head, std::size_t head_size, const void* weights, std::size_t size) {
  return Xxh64(weights, size, Xxh64(head, head_size, 0));
}

}  // namespace

void SaveModel(const LinearModel& model, const std::string& path, const std::string& settings) {
  AtomicFileWriter out(path);
  WriteModel(model, settings, out);
}

void WriteModel(const LinearModel& model, const std::string& settings, AtomicFileWriter& out) {
  std::string head(reinterpret_cast<const char*>(kMagic), sizeof(kMagic));
  Put<uint32_t>(head, kVersion);
  Put<uint32_t>(head, static_cast<uint32_t>(model.kind()));
  Put<uint64_t>(head, model.features());
  Put<uint32_t>(head, static_cast<uint32_t>(model.outputs()));
  Put<float>(head, model.binary_labels().negative);
  Put<float>(head, model.binary_labels().positive);
  Put<uint32_t>(head, static_cast<uint32_t>(settings.size()));
  head += settings;
  Put<uint64_t>(head, model.weights().size());
  const auto weights = model.weights();
  std::string tail;
  Put<uint64_t>(tail, Checksum(head.data(), head.size(), weights.data(), weights.size_bytes()));
  out.Write(head);
  out.Write(weights.data(), weights.size_bytes());
  out.Write(tail);
  out.Commit();
}

LoadedModel LoadModel(const std::string& path) {
  const auto file = MappedFile::Open(path);
  Reader in(file->chars(), file->size(), path);
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  if (file->size() < sizeof(kMagic) ||
      std::memcmp(file->chars(), kMagic, sizeof(kMagic)) != 0) {
    throw bad("not a parsgd model file");
  }
  in.Text(sizeof(kMagic), "magic");
  const auto version = in.Get<uint32_t>("version");
  if (version != kVersion) {
    throw bad(fmt::format("unsupported model file version {} (this build reads {})", version, kVersion));
  }
  const auto kind = in.Get<uint32_t>("model kind");
  if (kind > static_cast<uint32_t>(ModelKind::kSoftmax)) throw bad(fmt::format("unknown model kind {}", kind));
  const auto features = in.Get<uint64_t>("feature count");
  const auto outputs = in.Get<uint32_t>("output count");
  BinaryLabels labels;
  labels.negative = in.Get<float>("negative label");
  labels.positive = in.Get<float>("positive label");
  const auto settings_size = in.Get<uint32_t>("settings length");
  std::string settings = in.Text(settings_size, "settings");
  const auto count = in.Get<uint64_t>("weight count");
  const ModelKind model_kind = static_cast<ModelKind>(kind);
  const bool shape_ok = features <= (uint64_t{1} << 32) && outputs >= 1 && outputs <= (1u << 16) &&
                        (IsBinary(model_kind) ? outputs == 1 : outputs >= 2) &&
                        count == (features + 1) * outputs;
  if (!shape_ok) {
    throw bad(fmt::format("inconsistent shape: {} features, {} outputs, {} weights", features,
                          outputs, count));
  }
  if (in.left() != count * sizeof(float) + sizeof(uint64_t)) {
    throw bad(in.left() < count * sizeof(float) + sizeof(uint64_t)
                  ? "truncated model file"
                  : "model file has trailing bytes after the checksum");
  }
  const std::size_t weights_at = in.pos();
  const std::size_t checksum_at = weights_at + count * sizeof(float);
  uint64_t stored;
  std::memcpy(&stored, file->chars() + checksum_at, sizeof(stored));
  if (Checksum(file->chars(), weights_at, file->chars() + weights_at, checksum_at - weights_at) !=
      stored) {
    throw bad("corrupted model file (checksum mismatch)");
  }

  LoadedModel loaded{LinearModel(model_kind, features, static_cast<int>(outputs), labels),
                     std::move(settings)};
  std::memcpy(loaded.model.weights().data(), file->chars() + weights_at, count * sizeof(float));
  for (float w : loaded.model.weights()) {
    if (!std::isfinite(w)) throw bad("model file holds a non-finite weight");
  }
  return loaded;
}

}  // namespace parsgd
