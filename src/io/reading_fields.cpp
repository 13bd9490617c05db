#include "reading_fields.hpp"

#include <fmt/format.h>

#include "parsgd/util/error.hpp"

namespace parsgd::io_internal {

void PutHashing(std::string& out, const std::optional<TextHashing>& hashing) {
  PutField<uint32_t>(out, hashing ? static_cast<uint32_t>(hashing->format) : 0);
  if (hashing && hashing->format == HashedText::kFasttext) {
    for (uint32_t v : {hashing->bits, hashing->ngrams, hashing->char_min, hashing->char_max}) {
      PutField<uint32_t>(out, v);
    }
  } else if (hashing) {
    if (hashing->interactions.size() > kMaxInteractionsBytes) {
      throw Error(fmt::format("interactions of {} bytes: at most {} are recorded",
                              hashing->interactions.size(), kMaxInteractionsBytes));
    }
    PutField<uint32_t>(out, hashing->bits);
    PutField<uint32_t>(out, static_cast<uint32_t>(hashing->interactions.size()));
    out += hashing->interactions;
  }
}

std::optional<TextHashing> ReadHashing(FieldReader& in, const std::string& path) {
  auto bad = [&](const std::string& what) { return DataError(path, 0, 0, what); };
  const auto hashed = in.Get<uint32_t>("hashed text");
  if (hashed > 3) {
    throw bad(fmt::format("unknown hashed-text kind {}: expected 0, 1, 2 or 3", hashed));
  }
  if (hashed == 0) return std::nullopt;
  TextHashing h;
  h.format = static_cast<HashedText>(hashed);
  h.bits = in.Get<uint32_t>("hash bits");
  if (h.format == HashedText::kFasttext) {
    h.ngrams = in.Get<uint32_t>("word n-grams");
    h.char_min = in.Get<uint32_t>("character n-grams");
    h.char_max = in.Get<uint32_t>("character n-grams");
  } else {
    const auto length = in.Get<uint32_t>("interactions length");
    if (length > kMaxInteractionsBytes) {
      throw bad(fmt::format("interactions of {} bytes: at most {} are recorded", length,
                            kMaxInteractionsBytes));
    }
    h.interactions = in.Text(length, "interactions");
  }
  try {
    CheckTextHashing(h);
  } catch (const Error& e) {
    throw bad(std::string("text hashing: ") + e.what());
  }
  return h;
}

void PutNames(std::string& out, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (name.size() > kMaxRecordedName) {
      throw Error(fmt::format("a class name of {} bytes: at most {} are recorded", name.size(),
                              kMaxRecordedName));
    }
    PutField<uint32_t>(out, static_cast<uint32_t>(name.size()));
    out += name;
  }
}

std::vector<std::string> ReadNames(FieldReader& in, uint64_t count, const std::string& path) {
  if (in.left() / sizeof(uint32_t) < count) {
    throw DataError(path, 0, 0,
                    fmt::format("{} class names declared, {} bytes follow", count, in.left()));
  }
  std::vector<std::string> names;
  names.reserve(count);
  for (uint64_t k = 0; k < count; ++k) {
    const auto length = in.Get<uint32_t>("class name length");
    if (length > kMaxRecordedName) {
      throw DataError(path, 0, 0,
                      fmt::format("a class name of {} bytes: at most {} are recorded", length,
                                  kMaxRecordedName));
    }
    names.push_back(in.Text(length, "class names"));
  }
  return names;
}

}  // namespace parsgd::io_internal
