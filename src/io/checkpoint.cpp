#include "parsgd/io/checkpoint.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include "binary_fields.hpp"
#include "parsgd/util/atomic_file.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/mapped_file.hpp"
#include "util/xxhash64.hpp"

namespace parsgd {
namespace {

constexpr unsigned char kMagic[8] = {0x89, 'P', 'S', 'G', 'C', '\r', '\n', 0x1A};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxEntries = 1 << 16;

using io_internal::FieldReader;
using io_internal::PutField;

void PutName(std::string& out, const std::string& name) {
  if (name.size() > UINT16_MAX)
    throw Error("checkpoint: entry name too long: " + name.substr(0, 64));
  PutField<uint16_t>(out, static_cast<uint16_t>(name.size()));
  out += name;
}

std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

}  // namespace

void SaveCheckpoint(const Checkpoint& c, const std::string& path) {
  std::string head(reinterpret_cast<const char*>(kMagic), sizeof(kMagic));
  PutField<uint32_t>(head, kVersion);
  PutField<uint32_t>(head, static_cast<uint32_t>(c.run.size()));
  head += c.run;
  PutField<uint32_t>(head, static_cast<uint32_t>(c.data.size()));
  head += c.data;
  PutField<uint32_t>(head, static_cast<uint32_t>(c.state.counters().size()));
  for (const auto& [name, value] : c.state.counters()) {
    PutName(head, name);
    PutField<uint64_t>(head, value);
  }
  PutField<uint32_t>(head, static_cast<uint32_t>(c.state.arrays().size()));
  AtomicFileWriter out(path);  // first: an unwritable path fails before the copy below
  std::string bytes = std::move(head);
  for (const auto& [name, values] : c.state.arrays()) {
    PutName(bytes, name);
    PutField<uint64_t>(bytes, values.size());
    bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
  }
  PutField<uint64_t>(bytes, Xxh64(bytes.data(), bytes.size(), 0));
  out.Write(bytes);
  out.Commit();
}

Checkpoint LoadCheckpoint(const std::string& path) {
  const auto mapped = MappedFile::Open(path);
  const MappedFile& file = *mapped;
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  if (file.size() < sizeof(kMagic) || std::memcmp(file.chars(), kMagic, sizeof(kMagic)) != 0) {
    throw bad("not a parsgd checkpoint (bad magic)");
  }
  if (file.size() < sizeof(kMagic) + 4 + 8) throw bad("truncated checkpoint");
  uint32_t version;
  std::memcpy(&version, file.chars() + sizeof(kMagic), sizeof(version));
  if (version != kVersion) {
    throw bad(
        fmt::format("checkpoint version {}; this parsgd reads version {}", version, kVersion));
  }
  const std::size_t body = file.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, file.chars() + body, sizeof(stored));
  if (Xxh64(file.chars(), body, 0) != stored) {
    throw bad("corrupted or truncated checkpoint (checksum mismatch)");
  }
  FieldReader in(file.chars() + sizeof(kMagic) + 4, body - sizeof(kMagic) - 4, path, "checkpoint");
  Checkpoint c;
  c.run = in.Text(in.Get<uint32_t>("run identity length"), "run identity");
  c.data = in.Text(in.Get<uint32_t>("data identity length"), "data identity");
  const uint32_t counters = in.Get<uint32_t>("counter count");
  if (counters > kMaxEntries) throw bad(fmt::format("checkpoint declares {} counters", counters));
  for (uint32_t i = 0; i < counters; ++i) {
    const std::string name = in.Text(in.Get<uint16_t>("counter name length"), "counter name");
    c.state.Put(name, in.Get<uint64_t>("counter value"));
  }
  const uint32_t arrays = in.Get<uint32_t>("array count");
  if (arrays > kMaxEntries) throw bad(fmt::format("checkpoint declares {} arrays", arrays));
  for (uint32_t i = 0; i < arrays; ++i) {
    const std::string name = in.Text(in.Get<uint16_t>("array name length"), "array name");
    const uint64_t count = in.Get<uint64_t>("array length");
    if (count > in.left() / sizeof(float)) {
      throw bad(fmt::format("checkpoint array '{}' declares {} values, more than the file holds",
                            name, count));
    }
    std::vector<float> values(count);
    const char* bytes = in.Skip(count * sizeof(float), "array values");
    if (count > 0) std::memcpy(values.data(), bytes, count * sizeof(float));  // data() may be null
    for (float v : values) {
      if (!std::isfinite(v))
        throw bad(fmt::format("checkpoint array '{}' holds a non-finite value", name));
    }
    c.state.Put(name, values);
  }
  if (in.left() != 0) throw bad("checkpoint has bytes after its last array");
  return c;
}

std::string IdentityDifferences(const std::string& found, const std::string& expected,
                                std::span<const std::string_view> ignored) {
  auto a = KeyValues(found), b = KeyValues(expected);
  for (std::string_view key : ignored) {
    a.erase(std::string(key));
    b.erase(std::string(key));
  }
  std::string out;
  for (const auto& [key, value] : b) {
    const auto at = a.find(key);
    const std::string theirs = at == a.end() ? "(absent)" : at->second;
    if (theirs != value)
      out += fmt::format("  {}: checkpoint {}, this run {}\n", key, theirs, value);
  }
  for (const auto& [key, value] : a) {
    if (!b.contains(key))
      out += fmt::format("  {}: checkpoint {}, this run (absent)\n", key, value);
  }
  return out;
}

std::string IdentityValue(const std::string& identity, std::string_view key) {
  const auto values = KeyValues(identity);
  const auto at = values.find(std::string(key));
  return at == values.end() ? std::string() : at->second;
}

}  // namespace parsgd
