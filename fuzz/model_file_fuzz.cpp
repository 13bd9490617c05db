// libFuzzer target: the model file reader (LoadModel).
// Input layout: byte 0 flags, then the file. Bit 0 of the flags recomputes the trailing checksum
// where the header can be walked to the parameters (the same walk LoadModel makes, without its
// checks), so that mutations reach the checks and the model construction behind it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <variant>

#include "fuzz_support.hpp"
#include "parsgd/io/model_file.hpp"
#include "parsgd/util/error.hpp"
#include "util/xxhash64.hpp"  // internal: the checksum

namespace {

template <class T>
std::optional<T> At(const std::string& file, uint64_t at) {
  if (at > file.size() || file.size() - at < sizeof(T)) return std::nullopt;
  T value;
  std::memcpy(&value, file.data() + at, sizeof(T));
  return value;
}

// Where the parameters start (after the parameter count), if the header can be walked that far.
// Version 1 has no index base field and two binary labels in every linear file; version 2 no CSV
// label column.
std::optional<uint64_t> ParamsAt(const std::string& file) {
  const auto version = At<uint32_t>(file, 8);
  const auto kind = At<uint32_t>(file, 12);
  if (!version || !kind) return std::nullopt;
  uint64_t after_base = *version == 1 ? 16 : 20;
  if (*version >= 3) {
    const auto column = At<uint32_t>(file, 20);
    if (!column) return std::nullopt;
    after_base = 24 + (*column > 0 ? uint64_t{*column} - 1 + 8 : 0);  // name, feature columns
  }
  if (*kind != 4) {  // linear: features, outputs, class labels, settings, count
    const auto outputs = At<uint32_t>(file, after_base + 8);
    if (!outputs) return std::nullopt;
    const uint64_t labels = *version == 1 || *kind < 3 ? 2 : *outputs;
    const uint64_t settings_at = after_base + 12 + labels * 4;
    const auto settings = At<uint32_t>(file, settings_at);
    return settings ? std::optional<uint64_t>(settings_at + 4 + *settings + 8) : std::nullopt;
  }
  const auto count = At<uint32_t>(file, after_base);
  if (!count || *count < 1 || *count > 64) return std::nullopt;
  const auto inputs = At<uint32_t>(file, after_base + 4);
  const auto classes = At<uint32_t>(file, after_base + uint64_t{*count} * 4);
  if (!inputs || !classes) return std::nullopt;
  const uint64_t settings_at =
      after_base + 4 + uint64_t{*count} * 4 + (*version == 1 ? 0 : uint64_t{*classes} * 4);
  const auto settings = At<uint32_t>(file, settings_at);
  if (!settings) return std::nullopt;
  return settings_at + 4 + *settings + uint64_t{*inputs} * 4 + 8;
}

void FixChecksum(std::string& file) {
  const std::optional<uint64_t> params_at = ParamsAt(file);
  if (!params_at || file.size() < *params_at + 8) return;
  const uint64_t checksum_at = file.size() - 8;
  const uint64_t checksum = parsgd::Xxh64(file.data() + *params_at, checksum_at - *params_at,
                                          parsgd::Xxh64(file.data(), *params_at, 0));
  std::memcpy(file.data() + checksum_at, &checksum, sizeof(checksum));
}

// What a loaded model must be: its parameters finite and sized by its shape.
void CheckModel(const parsgd::LoadedModel& loaded) {
  auto finite = [](auto span) {
    for (float v : span) {
      if (!std::isfinite(v)) std::abort();
    }
  };
  if (const auto* linear = std::get_if<parsgd::LinearModel>(&loaded.model)) {
    if (linear->weights().size() != (linear->features() + 1) * linear->outputs()) std::abort();
    finite(linear->weights());
    const int classes = parsgd::IsBinary(linear->kind()) ? 2 : linear->outputs();
    if (linear->labels().classes() != classes || !linear->labels().Ascending()) std::abort();
    finite(std::span<const float>(linear->labels().values));
  } else {
    const auto& mlp = std::get<parsgd::MlpModel>(loaded.model);
    if (mlp.params().size() != parsgd::ParamCount(mlp.layers())) std::abort();
    finite(mlp.params());
    finite(mlp.input_scale());
    if (mlp.labels().classes() != mlp.classes() || !mlp.labels().Ascending()) std::abort();
    finite(std::span<const float>(mlp.labels().values));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static parsgd::fuzz::InputFile input;
  if (size < 1) return 0;
  std::string file(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) FixChecksum(file);
  input.Set(file.data(), file.size());
  try {
    CheckModel(parsgd::LoadModel(input.path()));
  } catch (const parsgd::Error&) {
  }
  return 0;
}
