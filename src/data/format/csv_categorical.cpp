#include "data/format/csv_categorical.hpp"

#include <fmt/format.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <utility>

#include "parsgd/data/hashing.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::csv_internal {
namespace {

using data_internal::Chunk;

// A categorical value's feature and value; kLeftOut: none (a one-hot value training never met).
struct Encoded {
  uint32_t feature;
  float value;
};
constexpr uint32_t kLeftOut = ~uint32_t{0};

// The encoding of each of a chunk's texts, per column.
std::vector<std::vector<Encoded>> EncodeTexts(const Chunk& chunk, const CsvSchema& schema,
                                              const std::vector<uint64_t>& starts) {
  const auto columns = static_cast<uint64_t>(schema.columns.size());
  const uint32_t mask = schema.hash_bits == 0 ? 0 : (uint32_t{1} << schema.hash_bits) - 1u;
  std::vector<std::vector<Encoded>> codes(chunk.category_texts.size());
  for (std::size_t c = 0; c < chunk.category_texts.size(); ++c) {
    const std::vector<std::string>& values = schema.columns[c].values;
    for (const std::string& text : chunk.category_texts[c]) {
      if (schema.hash_bits != 0) {
        const uint32_t h = Murmur3(text, CategorySeed(c));
        codes[c].push_back({static_cast<uint32_t>(columns + (h & mask)), (h >> 31) ? -1.f : 1.f});
        continue;
      }
      const auto at = std::lower_bound(values.begin(), values.end(), text);
      codes[c].push_back(at != values.end() && *at == text
                             ? Encoded{static_cast<uint32_t>(columns + starts[c] +
                                                             static_cast<uint64_t>(at - values.begin())),
                                       1.f}
                             : Encoded{kLeftOut, 0.f});
    }
  }
  return codes;
}

// EncodeCategories of one chunk; returns the values left out.
uint64_t EncodeChunk(Chunk& chunk, const CsvSchema& schema, const std::vector<uint64_t>& starts,
                     bool sort_rows) {
  const std::vector<std::vector<Encoded>> codes = EncodeTexts(chunk, schema, starts);
  const bool sort = sort_rows || schema.hash_bits != 0;
  uint64_t left_out = 0, write = 0, read = 0;
  std::size_t next = 0;  // the next categorical entry
  std::vector<std::pair<uint32_t, float>> row;
  for (uint64_t& row_end : chunk.row_ends) {
    const uint64_t row_start = write;
    for (; read < row_end; ++read) {
      uint32_t feature = chunk.indices[read];
      float value = chunk.values[read];
      if (next < chunk.categories.size() && chunk.categories[next].entry == read) {
        const Encoded code = codes[chunk.categories[next++].column][feature];
        if (code.feature == kLeftOut) {
          ++left_out;
          continue;
        }
        feature = code.feature;
        value = code.value;
      }
      chunk.indices[write] = feature;
      chunk.values[write++] = value;
    }
    if (sort && write - row_start > 1) {
      row.clear();
      for (uint64_t e = row_start; e < write; ++e) row.emplace_back(chunk.indices[e], chunk.values[e]);
      std::stable_sort(row.begin(), row.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      write = row_start;
      for (std::size_t i = 0; i < row.size();) {
        float sum = 0;
        std::size_t j = i;
        for (; j < row.size() && row[j].first == row[i].first; ++j) sum += row[j].second;
        if (sum != 0) {
          chunk.indices[write] = row[i].first;
          chunk.values[write++] = sum;
        }
        i = j;
      }
    }
    row_end = write;
  }
  chunk.indices.resize(write);
  chunk.values.resize(write);
  chunk.categories.clear();
  chunk.categories.shrink_to_fit();
  return left_out;
}

}  // namespace

void CsvSurvey::AddColumns(const Chunk& chunk, bool text) {
  for (std::size_t c = 0; c < chunk.category_texts.size() && c < text_in_.size(); ++c) {
    if (!text || chunk.category_texts[c].empty()) continue;
    text_in_[c] = true;
    if (c < values_.size()) {
      values_[c].insert(chunk.category_texts[c].begin(), chunk.category_texts[c].end());
    }
  }
  for (std::size_t c = 0; c < chunk.numbers_in.size() && c < numbers_in_.size(); ++c) {
    if (chunk.numbers_in[c] != 0) numbers_in_[c] = true;
  }
}

void CsvSurvey::AddHead(const Chunk& head, bool is_data) {
  AddColumns(head, is_data);
  head_row_ |= !head.labels.empty();
  if (is_data || head.labels.empty()) return;
  if (head.text_labels && head.label_ids.at(0) != data_internal::kNoLabelText) {
    head_text_ = head.label_texts.at(head.label_ids.at(0));
  } else {
    head_number_ = head.labels.at(0);
  }
}

void CsvSurvey::Add(const Chunk& chunk) {
  AddColumns(chunk, true);
  any_row_ |= !chunk.labels.empty();
  if (label_seen_ || (!head_text_ && !head_number_)) return;
  if (head_text_) {
    label_seen_ = std::find(chunk.label_texts.begin(), chunk.label_texts.end(), *head_text_) !=
                  chunk.label_texts.end();
    return;
  }
  for (std::size_t r = 0; r < chunk.labels.size() && !label_seen_; ++r) {
    const bool number = !chunk.text_labels || chunk.label_ids[r] == data_internal::kNoLabelText;
    label_seen_ = number && chunk.labels[r] == *head_number_;
  }
}

std::vector<std::string> CsvSurvey::Values(uint64_t c) const {
  std::vector<std::string> values(values_.at(c).begin(), values_.at(c).end());
  std::sort(values.begin(), values.end());
  return values;
}

CsvSchema MergeSchemas(const std::vector<std::pair<std::string, const CsvSchema*>>& parts) {
  const auto& [first_name, first] = parts.front();
  CsvSchema merged = *first;
  for (const auto& [name, schema] : parts) {
    if (schema->columns.size() != first->columns.size()) {
      throw DataError(name, 0, 0,
                      fmt::format("{} feature columns, but {} has {}: the files of a list "
                                  "are parts of one table",
                                  schema->columns.size(), first_name, first->columns.size()));
    }
    for (std::size_t c = 0; c < first->columns.size(); ++c) {
      const CsvColumn& a = first->columns[c];
      const CsvColumn& b = schema->columns[c];
      if (first->named && schema->named && a.name != b.name) {
        throw DataError(name, 0, 0,
                        fmt::format("feature column {} is '{}', but in {} '{}': the files of a "
                                    "list are parts of one table",
                                    c + 1, b.name, first_name, a.name));
      }
      if (a.categorical != b.categorical) {
        const std::string column = a.name.empty() ? fmt::format("{}", c + 1) : "'" + a.name + "'";
        throw DataError(name, 0, 0,
                        fmt::format("feature column {} is {} here but {} in {}: name it in "
                                    "--categorical to read it as categorical in every file",
                                    column, b.categorical ? "categorical" : "numbers",
                                    a.categorical ? "categorical" : "numbers", first_name));
      }
      if (schema == first) continue;
      std::vector<std::string>& values = merged.columns[c].values;
      values.insert(values.end(), b.values.begin(), b.values.end());
    }
  }
  for (CsvColumn& column : merged.columns) {
    std::sort(column.values.begin(), column.values.end());
    column.values.erase(std::unique(column.values.begin(), column.values.end()),
                        column.values.end());
  }
  return merged;
}

namespace {

// Where each categorical column's one-hot values start after the feature columns.
std::vector<uint64_t> ValueStarts(const CsvSchema& schema) {
  std::vector<uint64_t> starts(schema.columns.size(), 0);
  uint64_t start = 0;
  for (std::size_t c = 0; c < schema.columns.size(); ++c) {
    starts[c] = start;
    if (schema.columns[c].categorical) start += schema.columns[c].values.size();
  }
  return starts;
}

}  // namespace

uint64_t EncodeCategories(Chunk& chunk, const CsvSchema& schema, bool sort_rows) {
  return EncodeChunk(chunk, schema, ValueStarts(schema), sort_rows);
}

uint64_t EncodeCategories(std::vector<Chunk>& chunks, const CsvSchema& schema, bool sort_rows) {
  const std::vector<uint64_t> starts = ValueStarts(schema);
  std::atomic<uint64_t> left_out{0};
  oneapi::tbb::parallel_for(std::size_t{0}, chunks.size(), [&](std::size_t i) {
    left_out += EncodeChunk(chunks[i], schema, starts, sort_rows);
  });
  return left_out.load();
}

}  // namespace parsgd::csv_internal
