#include "parsgd/data/hashing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "parsgd/util/error.hpp"

namespace parsgd {

void CheckTextHashing(const TextHashing& h) {
  if (h.bits < 1 || h.bits > kMaxHashBits) {
    throw Error(fmt::format("--hash-bits {}: expected 1 to {}", h.bits, kMaxHashBits));
  }
  if (h.ngrams < 1 || h.ngrams > kMaxWordNgrams) {
    throw Error(fmt::format("--ngrams {}: expected 1 to {}", h.ngrams, kMaxWordNgrams));
  }
  if ((h.char_min == 0) != (h.char_max == 0) || h.char_min > h.char_max ||
      h.char_max > kMaxCharNgram) {
    throw Error(fmt::format("--char-ngrams {},{}: expected MIN,MAX with 1 <= MIN <= MAX <= {}",
                            h.char_min, h.char_max, kMaxCharNgram));
  }
  if (h.interactions.size() > kMaxInteractionsBytes) {
    throw Error(fmt::format("--interactions: {} bytes; at most {}", h.interactions.size(),
                            kMaxInteractionsBytes));
  }
  for (const std::string_view term : SplitInteractions(h.interactions)) {
    if (term.size() < 2 || term.size() > 3 ||
        term.find_first_of(" \t|:") != std::string_view::npos) {
      throw Error(fmt::format("--interactions '{}': '{}' is not 2 or 3 namespace letters (as "
                              "VW's -q ab or --cubic abc)",
                              h.interactions, term));
    }
  }
}

std::vector<std::string_view> SplitInteractions(std::string_view interactions) {
  std::vector<std::string_view> terms;
  if (interactions.empty()) return terms;
  for (std::size_t at = 0;;) {
    const std::size_t comma = interactions.find(',', at);
    terms.push_back(interactions.substr(at, comma - at));
    if (comma == std::string_view::npos) return terms;
    at = comma + 1;
  }
}

std::string WithoutDuplicateInteractions(std::string_view interactions,
                                         std::vector<std::string>* removed) {
  std::vector<std::string> kept, seen;
  for (const std::string_view term : SplitInteractions(interactions)) {
    std::string letters(term);
    std::sort(letters.begin(), letters.end());
    if (std::find(seen.begin(), seen.end(), letters) != seen.end()) {
      removed->emplace_back(term);
      continue;
    }
    seen.push_back(std::move(letters));
    kept.emplace_back(term);
  }
  std::string out;
  for (const std::string& term : kept) out += (out.empty() ? "" : ",") + term;
  return out;
}

std::string DuplicateInteractionWarning(std::string_view interactions, std::string_view removed) {
  return fmt::format("'{}': '{}' pairs the namespaces of an earlier term; taken once (as VW does)",
                     interactions, removed);
}

uint32_t Fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

uint32_t Murmur3(std::string_view key, uint32_t seed) {
  constexpr uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const std::size_t n = key.size();
  uint32_t h = seed;
  const std::size_t blocks = n / 4;
  for (std::size_t i = 0; i < blocks; ++i) {
    uint32_t k;
    std::memcpy(&k, p + 4 * i, 4);  // little-endian machines only (as the data files)
    k *= c1;
    k = std::rotl(k, 15);
    k *= c2;
    h ^= k;
    h = std::rotl(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  const unsigned char* tail = p + 4 * blocks;
  uint32_t k = 0;
  switch (n & 3) {
    case 3:
      k ^= uint32_t{tail[2]} << 16;
      [[fallthrough]];
    case 2:
      k ^= uint32_t{tail[1]} << 8;
      [[fallthrough]];
    case 1:
      k ^= tail[0];
      k *= c1;
      k = std::rotl(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= static_cast<uint32_t>(n);
  return Fmix32(h);
}

RowHasher::RowHasher(const TextHashing& hashing)
    : hashing_(hashing),
      mask_(hashing.bits >= 32 ? ~uint32_t{0} : (uint32_t{1} << hashing.bits) - 1) {}

void RowHasher::AddHash(uint32_t h, float value) {
  entries_.emplace_back(uint64_t{h & mask_} << 32 | entries_.size(), (h >> 31) ? -value : value);
}

void RowHasher::AddWords(std::span<const std::string_view> words) {
  word_hashes_.resize(words.size());
  for (std::size_t i = 0; i < words.size(); ++i) word_hashes_[i] = Murmur3(words[i], 0);
  for (std::size_t i = 0; i < words.size(); ++i) {
    uint32_t g = word_hashes_[i];
    AddHash(g);
    for (std::size_t j = i + 1; j < std::min<std::size_t>(words.size(), i + hashing_.ngrams); ++j) {
      g = Fmix32((g * 16777619u) ^ word_hashes_[j]);
      AddHash(g);
    }
    if (hashing_.char_min != 0) AddCharNgrams(words[i]);
  }
}

void RowHasher::AddCharNgrams(std::string_view word) {
  wrapped_.assign(1, '<');
  wrapped_.append(word);
  wrapped_.push_back('>');
  starts_.clear();
  for (std::size_t b = 0; b < wrapped_.size(); ++b) {
    if ((static_cast<unsigned char>(wrapped_[b]) & 0xC0) != 0x80) starts_.push_back(static_cast<uint32_t>(b));
  }
  const std::size_t chars = starts_.size();
  starts_.push_back(static_cast<uint32_t>(wrapped_.size()));
  for (std::size_t i = 0; i < chars; ++i) {
    for (std::size_t n = hashing_.char_min; n <= hashing_.char_max && i + n <= chars; ++n) {
      if (n == 1 && (i == 0 || i + 1 == chars)) continue;  // the marks '<' and '>' alone
      const std::string_view gram(wrapped_.data() + starts_[i], starts_[i + n] - starts_[i]);
      AddHash(Murmur3(gram, 1));
    }
  }
}

bool RowHasher::Finish(std::vector<uint32_t>& indices, std::vector<float>& values,
                       bool unit_norm) {
  std::sort(entries_.begin(), entries_.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t first = indices.size();
  double squares = 0;
  for (std::size_t i = 0; i < entries_.size();) {
    const uint64_t bucket = entries_[i].first >> 32;
    double sum = 0;
    for (; i < entries_.size() && entries_[i].first >> 32 == bucket; ++i) sum += entries_[i].second;
    if (sum == 0) continue;
    if (!std::isfinite(static_cast<float>(sum))) {
      indices.resize(first);
      values.resize(first);
      entries_.clear();
      return false;
    }
    indices.push_back(static_cast<uint32_t>(bucket));
    values.push_back(static_cast<float>(sum));
    squares += sum * sum;
  }
  if (unit_norm && squares > 0) {
    const double scale = 1.0 / std::sqrt(squares);
    for (std::size_t i = first; i < values.size(); ++i) {
      values[i] = static_cast<float>(values[i] * scale);
    }
  }
  entries_.clear();
  return true;
}

}  // namespace parsgd
