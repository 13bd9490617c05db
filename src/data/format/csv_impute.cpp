#include "data/format/csv_impute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "data/rows_rebuilt.hpp"
#include "parsgd/data/load.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd::csv_internal {
namespace {

// The k-th smallest (0-based) of the sorted nonzero `values` and `zeros` zeros.
double KthWithZeros(const std::vector<float>& values, uint64_t zeros, uint64_t k) {
  const auto negatives = static_cast<uint64_t>(
      std::lower_bound(values.begin(), values.end(), 0.f) - values.begin());
  if (k < negatives) return values[k];
  if (k < negatives + zeros) return 0;
  return values[k - zeros];
}

// Each column's fill under `rule`, from the rows of `data`.
std::vector<CsvFill> LearnFills(const Dataset& data, const CsvSchema& schema, CsvMissing rule) {
  const uint64_t columns = schema.columns.size();
  std::vector<std::vector<float>> values(columns);  // the nonzero values of the number columns
  std::vector<uint64_t> missing(columns, 0);
  // One-hot categorical columns: the rows of each value's feature (features past the columns).
  std::vector<uint64_t> value_rows(schema.BaseFeatures(), 0);
  for (uint64_t e = 0; e < data.nnz(); ++e) {
    const uint32_t j = data.indices()[e];
    const float v = data.values()[e];
    if (j < columns) {
      if (std::isnan(v)) {
        ++missing[j];
      } else if (!schema.columns[j].categorical) {
        values[j].push_back(v);
      }
    } else if (j < value_rows.size()) {
      ++value_rows[j];
    }
  }
  std::vector<CsvFill> fills(columns);
  uint64_t first_value = columns;  // a one-hot column's first value's feature
  for (uint64_t c = 0; c < columns; ++c) {
    const CsvColumn& column = schema.columns[c];
    CsvFill& fill = fills[c];
    if (rule == CsvMissing::kIndicator) {
      fill.indicator = missing[c] > 0;
    } else if (column.categorical) {
      if (schema.hash_bits == 0 && !column.values.empty()) {
        const auto begin = value_rows.begin() + static_cast<std::ptrdiff_t>(first_value);
        const auto most = std::max_element(begin, begin + static_cast<std::ptrdiff_t>(column.values.size()));
        fill = {.feature = static_cast<uint32_t>(most - value_rows.begin()), .value = 1.f};
      }
    } else {
      std::vector<float>& v = values[c];
      const uint64_t present = data.rows() - missing[c];
      const uint64_t zeros = present - v.size();
      double value = 0;
      if (present > 0) {
        std::sort(v.begin(), v.end());
        if (rule == CsvMissing::kMean) {
          double sum = 0;
          for (float x : v) sum += x;
          value = sum / static_cast<double>(present);
        } else if (rule == CsvMissing::kMedian) {
          value = (KthWithZeros(v, zeros, (present - 1) / 2) +
                   KthWithZeros(v, zeros, present / 2)) /
                  2;
        } else {  // the most frequent, the smallest of a tie (scikit-learn's most_frequent)
          std::vector<std::pair<float, uint64_t>> counts;  // each value and its cells
          if (zeros > 0) counts.emplace_back(0.f, zeros);
          for (std::size_t i = 0; i < v.size();) {
            std::size_t end = i;
            while (end < v.size() && v[end] == v[i]) ++end;
            counts.emplace_back(v[i], end - i);
            i = end;
          }
          const auto most = std::min_element(counts.begin(), counts.end(), [](auto a, auto b) {
            return a.second != b.second ? a.second > b.second : a.first < b.first;
          });
          value = most->first;
        }
      }
      fill = {.feature = static_cast<uint32_t>(c), .value = static_cast<float>(value)};
    }
    if (column.categorical && schema.hash_bits == 0) first_value += column.values.size();
  }
  return fills;
}

}  // namespace

Dataset FillMissing(const Dataset& data, CsvMissing rule, bool learn) {
  if (!Imputes(rule) || data.csv_schema() == nullptr) return data;
  std::shared_ptr<const CsvSchema> schema = data.csv_schema();
  if (schema->fills.empty()) {
    if (!learn) {
      throw Error(fmt::format(
          "{}: --missing {} fills missing values in with what the training rows give, and the "
          "training data was read under another rule (no values to fill in were learnt): "
          "give the rule the training data was read under, or train under this one",
          data.source(), NameOf<CsvMissing>(kCsvMissings, rule)));
    }
    auto learnt = std::make_shared<CsvSchema>(*schema);
    learnt->fills = LearnFills(data, *schema, rule);
    schema = std::move(learnt);
  }
  const std::vector<CsvFill>& fills = schema->fills;
  std::vector<uint32_t> indicator(fills.size(), kNoFill);  // each column's indicator feature
  uint64_t next = schema->BaseFeatures();
  for (std::size_t c = 0; c < fills.size(); ++c) {
    if (fills[c].indicator) indicator[c] = static_cast<uint32_t>(next++);
  }
  const uint64_t rows = data.rows();
  AlignedArray<uint64_t> offsets(rows + 1);
  std::vector<uint32_t> indices;
  std::vector<float> values;
  indices.reserve(data.nnz());
  values.reserve(data.nnz());
  std::vector<std::pair<uint32_t, float>> row;
  offsets[0] = 0;
  for (uint64_t i = 0; i < rows; ++i) {
    const SparseRow x = data.row(i);
    row.clear();
    bool filled = false;
    for (uint32_t e = 0; e < x.nnz; ++e) {
      const uint32_t j = x.index[e];
      if (!std::isnan(x.value[e])) {
        row.emplace_back(j, x.value[e]);
        continue;
      }
      filled = true;
      const CsvFill fill = j < fills.size() ? fills[j] : CsvFill{};
      if (fill.feature != kNoFill && fill.value != 0) row.emplace_back(fill.feature, fill.value);
      if (j < indicator.size() && indicator[j] != kNoFill) row.emplace_back(indicator[j], 1.f);
    }
    if (filled) std::sort(row.begin(), row.end());
    for (const auto& [j, v] : row) {
      indices.push_back(j);
      values.push_back(v);
    }
    offsets[i + 1] = indices.size();
  }
  Dataset::Parts parts = data.parts();
  data_internal::SetRows(parts, std::move(offsets), indices, values);
  parts.features = std::max(data.features(), schema->Features());
  parts.csv_schema = std::move(schema);
  return Dataset(std::move(parts));
}

}  // namespace parsgd::csv_internal
