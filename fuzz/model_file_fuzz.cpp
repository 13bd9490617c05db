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
std::optional<uint64_t> ParamsAt(const std::string& file) {
  const auto kind = At<uint32_t>(file, 12);
  if (!kind) return std::nullopt;
  if (*kind != 4) {  // linear: fixed fields, settings, count
    const auto settings = At<uint32_t>(file, 36);
    return settings ? std::optional<uint64_t>(40 + uint64_t{*settings} + 8) : std::nullopt;
  }
  const auto count = At<uint32_t>(file, 16);
  if (!count || *count > 64) return std::nullopt;
  const auto inputs = At<uint32_t>(file, 20);
  const uint64_t settings_at = 20 + uint64_t{*count} * 4;
  const auto settings = At<uint32_t>(file, settings_at);
  if (!inputs || !settings) return std::nullopt;
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
    finite(std::span<const float>(&linear->binary_labels().negative, 1));
    finite(std::span<const float>(&linear->binary_labels().positive, 1));
  } else {
    const auto& mlp = std::get<parsgd::MlpModel>(loaded.model);
    if (mlp.params().size() != parsgd::ParamCount(mlp.layers())) std::abort();
    finite(mlp.params());
    finite(mlp.input_scale());
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
