#include "parsgd/io/model_file.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "binary_fields.hpp"
#include "csv_record.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"
#include "reading_fields.hpp"
#include "util/xxhash64.hpp"

namespace parsgd {
namespace {

constexpr unsigned char kMagic[8] = {0x89, 'P', 'S', 'G', 'M', '\r', '\n', 0x1A};
constexpr uint32_t kVersion = 7;
constexpr uint32_t kFirstVersion = 1;      // still read: no index base, binary labels only
constexpr uint32_t kIndexBaseVersion = 2;  // still read: no CSV label column
constexpr uint32_t kLabelColumnVersion = 3;  // still read: no class names
constexpr uint32_t kClassNameVersion = 4;    // still read: no hashed-text record
constexpr uint32_t kHashingVersion = 5;      // still read: no CSV record
constexpr uint32_t kCsvRecordVersion = 6;    // still read: no regression record
constexpr uint32_t kMaxLabelColumn = kMaxRecordedLabelColumn;

using io_internal::FieldReader;
using io_internal::PutField;

// XXH64 of the weights, seeded with XXH64 of the bytes before them: covers every byte, no copy.
uint64_t Checksum(const void* head, std::size_t head_size, const void* weights, std::size_t size) {
  return Xxh64(weights, size, Xxh64(head, head_size, 0));
}

// The header so far, then the parameters and the checksum; commits.
void Finish(const std::string& head, std::span<const float> params, AtomicFileWriter& out) {
  std::string tail;
  PutField<uint64_t>(tail, Checksum(head.data(), head.size(), params.data(), params.size_bytes()));
  out.Write(head);
  out.Write(params.data(), params.size_bytes());
  out.Write(tail);
  out.Commit();
}

std::string StartHeader(ModelKind kind, const DataReading& reading) {
  const std::optional<std::string>& column = reading.csv_label_column;
  if (column && column->size() > kMaxLabelColumn) {
    throw Error(fmt::format("a CSV label column of {} bytes: at most {} are recorded",
                            column->size(), kMaxLabelColumn));
  }
  std::string head(reinterpret_cast<const char*>(kMagic), sizeof(kMagic));
  PutField<uint32_t>(head, kVersion);
  PutField<uint32_t>(head, static_cast<uint32_t>(kind));
  PutField<uint32_t>(head, static_cast<uint32_t>(reading.zero_based));
  PutField<uint32_t>(head, column ? static_cast<uint32_t>(column->size()) + 1 : 0);
  if (column) {
    head += *column;
    PutField<uint64_t>(head, reading.csv_feature_columns);
  }
  io_internal::PutHashing(head, reading.hashing);
  io_internal::PutCsvRecord(head, reading);
  return head;
}

void PutLabels(std::string& head, const ClassLabels& labels) {
  for (float v : labels.values) PutField<float>(head, v);
  PutField<uint32_t>(head, static_cast<uint32_t>(labels.names.size()));
  io_internal::PutNames(head, labels.names);
}

// `count` class labels; checked finite and ascending. The size is checked against the bytes left
// before anything is allocated.
ClassLabels ReadLabels(FieldReader& in, uint64_t count, uint32_t version, const std::string& path) {
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  if (in.left() / sizeof(float) < count) {
    throw bad(fmt::format("truncated model file: {} class labels declared, {} bytes follow", count,
                          in.left()));
  }
  ClassLabels labels;
  labels.values.resize(count);
  for (float& v : labels.values) {
    v = in.Get<float>("class labels");
    if (!std::isfinite(v)) throw bad("model file holds a non-finite class label");
  }
  if (version > kLabelColumnVersion) {
    const auto names = in.Get<uint32_t>("class name count");
    if (names != 0 && names != count) {
      throw bad(fmt::format("model file has {} class names for {} classes", names, count));
    }
    labels.names = io_internal::ReadNames(in, names, path);
  }
  if (!labels.Ascending()) throw bad("model file's class labels are not in ascending order");
  return labels;
}

void PutSettings(std::string& head, const std::string& settings) {
  PutField<uint32_t>(head, static_cast<uint32_t>(settings.size()));
  head += settings;
}

// Checks that exactly `count` parameters and the checksum remain, and the checksum; returns where
// the parameters start. Before any allocation: a header that declares more parameters than the
// file holds stops here, whatever the count.
std::size_t CheckTail(const MappedFile& file, const FieldReader& in, uint64_t count,
                      const std::string& path) {
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  const uint64_t left = in.left();
  if (left < sizeof(uint64_t) || count > (left - sizeof(uint64_t)) / sizeof(float)) {
    throw bad(
        fmt::format("truncated model file: the header declares {} parameters, {} bytes "
                    "follow (4 per parameter and an 8-byte checksum expected)",
                    count, left));
  }
  if (left != count * sizeof(float) + sizeof(uint64_t)) {
    throw bad(
        fmt::format("model file has trailing bytes after the checksum: {} parameters "
                    "declared, {} bytes follow",
                    count, left));
  }
  const std::size_t params_at = in.pos();
  const std::size_t checksum_at = params_at + count * sizeof(float);
  uint64_t stored;
  std::memcpy(&stored, file.chars() + checksum_at, sizeof(stored));
  if (Checksum(file.chars(), params_at, file.chars() + params_at, checksum_at - params_at) !=
      stored) {
    throw bad("corrupted model file (checksum mismatch)");
  }
  return params_at;
}

void CopyFinite(const MappedFile& file, std::size_t at, std::span<float> to,
                const std::string& path) {
  std::memcpy(to.data(), file.chars() + at, to.size_bytes());
  for (float v : to) {
    if (!std::isfinite(v)) throw DataError(path, 0, 0, "model file holds a non-finite parameter");
  }
}

LinearModel ReadLinear(const MappedFile& file, FieldReader& in, ModelKind kind, uint32_t version,
                       std::string& settings, const std::string& path) {
  const auto features = in.Get<uint64_t>("feature count");
  const auto outputs = in.Get<uint32_t>("output count");
  auto bad = [&](const std::string& what) {
    return DataError(path, 0, 0, "inconsistent shape: " + what);
  };
  if (features > (uint64_t{1} << 32)) {
    throw bad(fmt::format("{} features, more than 2^32", features));
  }
  // A binary loss's model has one output, or (version 7 on, one-vs-rest) one a class, 3 or more.
  const bool one_vs_rest_ok = IsBinary(kind) && !IsRegressor(kind) && version > kCsvRecordVersion;
  const bool shape_ok =
      IsBinary(kind) ? outputs == 1 || (one_vs_rest_ok && outputs > 2 && outputs <= (1u << 16))
                     : outputs >= 2 && outputs <= (1u << 16);
  if (!shape_ok) {
    throw bad(fmt::format("{} outputs for a {} model: expected {}", outputs,
                          NameOf<ModelKind>(kModelKinds, kind),
                          !IsBinary(kind)  ? "2 to 65536"
                          : one_vs_rest_ok ? "1, or 3 to 65536 (one-vs-rest)"
                                           : "1"));
  }
  const uint32_t label_count = outputs == 1 || version == kFirstVersion ? 2 : outputs;
  ClassLabels labels = ReadLabels(in, label_count, version, path);
  if (version == kFirstVersion && !IsBinary(kind)) labels = ClassLabels::Default(false, outputs);
  bool regression = false;
  float loss_epsilon = 0.1f;
  if (version > kCsvRecordVersion) {
    const auto targets = in.Get<uint32_t>("targets");
    if (targets > 1 || (targets == 1 && outputs != 1) || (targets == 0 && IsRegressor(kind))) {
      throw bad(fmt::format("targets {} for a {} model", targets == 1 ? "real values" : "classes",
                            NameOf<ModelKind>(kModelKinds, kind)));
    }
    regression = targets == 1;
    loss_epsilon = in.Get<float>("loss epsilon");
    if (!(loss_epsilon > 0) || !std::isfinite(loss_epsilon)) {
      throw bad(fmt::format("loss epsilon {}: expected a finite value above 0", loss_epsilon));
    }
  }
  settings = in.Text(in.Get<uint32_t>("settings length"), "settings");
  const auto count = in.Get<uint64_t>("parameter count");
  if (count != (features + 1) * outputs) {
    throw bad(fmt::format("{} weights for {} features and {} outputs, expected {}", count, features,
                          outputs, (features + 1) * outputs));
  }
  const std::size_t at = CheckTail(file, in, count, path);
  LinearModel model(kind, features, static_cast<int>(outputs), std::move(labels));
  model.set_regression(regression);
  model.set_loss_epsilon(loss_epsilon);
  CopyFinite(file, at, model.weights(), path);
  return model;
}

MlpModel ReadMlp(const MappedFile& file, FieldReader& in, uint32_t version, std::string& settings,
                 const std::string& path) {
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  const auto count = in.Get<uint32_t>("layer count");
  if (count < 2 || count > 64) throw bad(fmt::format("an MLP of {} layer sizes", count));
  std::vector<int> sizes;
  for (uint32_t i = 0; i < count; ++i) {
    const auto size = in.Get<uint32_t>("layer sizes");
    if (size < 1 || size > (1u << 24))
      throw bad(fmt::format("MLP layer size {} out of range", size));
    sizes.push_back(static_cast<int>(size));
  }
  ClassLabels labels = version == kFirstVersion ? ClassLabels::Default(false, sizes.back())
                                                : ReadLabels(in, sizes.back(), version, path);
  settings = in.Text(in.Get<uint32_t>("settings length"), "settings");
  if (in.left() < static_cast<uint64_t>(sizes.front()) * sizeof(float)) {
    throw bad(fmt::format("truncated model file: {} input scales declared, {} bytes follow",
                          sizes.front(), in.left()));
  }
  std::vector<float> scale(sizes.front());
  for (float& s : scale) {
    s = in.Get<float>("input scales");
    if (!std::isfinite(s)) throw bad("model file holds a non-finite input scale");
  }
  const auto params = in.Get<uint64_t>("parameter count");
  uint64_t expected = 0;
  try {
    expected = ParamCount(LayoutMlp(sizes));
  } catch (const Error& e) {
    throw bad(e.what());
  }
  if (params != expected) {
    throw bad(fmt::format("inconsistent shape: {} parameters, the layer sizes {} need {}", params,
                          fmt::join(sizes, "-"), expected));
  }
  const std::size_t at = CheckTail(file, in, params, path);
  MlpModel model(sizes, 0);
  CopyFinite(file, at, model.params(), path);
  std::copy(scale.begin(), scale.end(), model.input_scale().begin());
  model.set_labels(std::move(labels));
  return model;
}

}  // namespace

void SaveModel(const LinearModel& model, const std::string& path, const std::string& settings,
               const DataReading& reading) {
  AtomicFileWriter out(path);
  WriteModel(model, settings, out, reading);
}

void SaveModel(const MlpModel& model, const std::string& path, const std::string& settings,
               const DataReading& reading) {
  AtomicFileWriter out(path);
  WriteModel(model, settings, out, reading);
}

void WriteModel(const LinearModel& model, const std::string& settings, AtomicFileWriter& out,
                const DataReading& reading) {
  std::string head = StartHeader(model.kind(), reading);
  PutField<uint64_t>(head, model.features());
  PutField<uint32_t>(head, static_cast<uint32_t>(model.outputs()));
  PutLabels(head, model.labels());
  PutField<uint32_t>(head, model.regression() ? 1 : 0);
  PutField<float>(head, model.loss_epsilon());
  PutSettings(head, settings);
  PutField<uint64_t>(head, model.weights().size());
  Finish(head, model.weights(), out);
}

void WriteModel(const MlpModel& model, const std::string& settings, AtomicFileWriter& out,
                const DataReading& reading) {
  std::string head = StartHeader(ModelKind::kMlp, reading);
  PutField<uint32_t>(head, static_cast<uint32_t>(model.sizes().size()));
  for (int s : model.sizes()) PutField<uint32_t>(head, static_cast<uint32_t>(s));
  PutLabels(head, model.labels());
  PutSettings(head, settings);
  for (float s : model.input_scale()) PutField<float>(head, s);
  PutField<uint64_t>(head, model.params().size());
  Finish(head, model.params(), out);
}

LoadedModel LoadModel(const std::string& path) {
  const auto file = MappedFile::Open(path);
  FieldReader in(file->chars(), file->size(), path, "model file");
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  if (file->size() < sizeof(kMagic) || std::memcmp(file->chars(), kMagic, sizeof(kMagic)) != 0) {
    throw bad("not a parsgd model file");
  }
  in.Text(sizeof(kMagic), "magic");
  const auto version = in.Get<uint32_t>("version");
  if (version < kFirstVersion || version > kVersion) {
    throw bad(fmt::format("unsupported model file version {} (this build reads {} to {})", version,
                          kFirstVersion, kVersion));
  }
  const auto kind = in.Get<uint32_t>("model kind");
  if (kind > static_cast<uint32_t>(kLastModelKind))
    throw bad(fmt::format("unknown model kind {}", kind));
  // Version 1 read only one-based LIBSVM text.
  const auto zero_based = version == kFirstVersion ? static_cast<uint32_t>(ZeroBased::kNo)
                                                   : in.Get<uint32_t>("index base");
  if (zero_based > static_cast<uint32_t>(ZeroBased::kNo)) {
    throw bad(fmt::format("unknown index base {}: expected 0, 1 or 2", zero_based));
  }
  LoadedModel loaded;
  loaded.reading.zero_based = static_cast<ZeroBased>(zero_based);
  if (version > kIndexBaseVersion) {
    const auto length = in.Get<uint32_t>("CSV label column length");
    if (length > kMaxLabelColumn + 1) {
      throw bad(fmt::format("a CSV label column of {} bytes: at most {} are recorded", length - 1,
                            kMaxLabelColumn));
    }
    if (length > 0) {
      loaded.reading.csv_label_column = in.Text(length - 1, "CSV label column");
      loaded.reading.csv_feature_columns = in.Get<uint64_t>("CSV feature columns");
    }
  }
  if (version > kClassNameVersion) {
    loaded.reading.hashing = io_internal::ReadHashing(in, path);
  }
  if (version > kHashingVersion) io_internal::ReadCsvRecord(in, loaded.reading, path);
  if (kind == static_cast<uint32_t>(ModelKind::kMlp)) {
    loaded.model = ReadMlp(*file, in, version, loaded.settings, path);
  } else {
    loaded.model =
        ReadLinear(*file, in, static_cast<ModelKind>(kind), version, loaded.settings, path);
  }
  return loaded;
}

}  // namespace parsgd
