#include "data/format/csv_centre.hpp"

#include "data/rows_rebuilt.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

namespace parsgd::csv_internal {

std::vector<double> ColumnMoments(const Dataset& data) {
  const uint64_t columns = data.csv_schema() != nullptr ? data.csv_schema()->columns.size() : 0;
  std::vector<double> moments(2 * columns + 1, 0);
  for (uint64_t e = 0; e < data.nnz(); ++e) {
    const uint32_t j = data.indices()[e];
    if (j >= columns) continue;
    const double v = data.values()[e];
    moments[j] += v;
    moments[columns + j] += v * v;
  }
  moments[2 * columns] = static_cast<double>(data.rows());
  return moments;
}

std::vector<float> CentresOf(const std::vector<double>& moments, const CsvSchema& schema,
                             CsvCenter rule) {
  const uint64_t columns = schema.columns.size();
  const double rows = moments.at(2 * columns);
  if (rule == CsvCenter::kNone || rows == 0) return {};
  std::vector<float> centres(columns, 0.f);
  bool any = false;
  for (uint64_t c = 0; c < columns; ++c) {
    if (schema.columns[c].categorical) continue;
    const double mean = moments[c] / rows;
    const double variance = std::max(0.0, moments[columns + c] / rows - mean * mean);
    if (std::isfinite(mean) && mean * mean > variance) {
      centres[c] = static_cast<float>(mean);
      any = any || centres[c] != 0;
    }
  }
  if (!any) return {};
  return centres;
}

Dataset CentreColumns(const Dataset& data, const std::vector<float>& centres) {
  const std::shared_ptr<const CsvSchema>& schema = data.csv_schema();
  if (schema == nullptr || (centres.empty() && schema->centres.empty())) return data;
  auto centred_schema = std::make_shared<CsvSchema>(*schema);
  centred_schema->centres = centres;
  std::vector<uint32_t> centred;  // the columns with a centre, ascending
  for (std::size_t c = 0; c < centres.size(); ++c) {
    if (centres[c] != 0) centred.push_back(static_cast<uint32_t>(c));
  }
  Dataset::Parts parts = data.parts();
  parts.csv_schema = std::move(centred_schema);
  if (centred.empty()) return Dataset(std::move(parts));
  const uint64_t rows = data.rows();
  AlignedArray<uint64_t> offsets(rows + 1);
  std::vector<uint32_t> indices;
  std::vector<float> values;
  indices.reserve(data.nnz() + rows * centred.size());
  values.reserve(indices.capacity());
  offsets[0] = 0;
  const auto put = [&](uint32_t j, float v) {
    if (v == 0) return;
    indices.push_back(j);
    values.push_back(v);
  };
  for (uint64_t i = 0; i < rows; ++i) {
    const SparseRow x = data.row(i);
    uint32_t e = 0;
    // The row's entries and the centred columns merged, both ascending.
    for (const uint32_t j : centred) {
      for (; e < x.nnz && x.index[e] < j; ++e) put(x.index[e], x.value[e]);
      const bool present = e < x.nnz && x.index[e] == j;
      put(j, (present ? x.value[e] : 0.f) - centres[j]);
      if (present) ++e;
    }
    for (; e < x.nnz; ++e) put(x.index[e], x.value[e]);
    offsets[i + 1] = indices.size();
  }
  data_internal::SetRows(parts, std::move(offsets), indices, values);
  return Dataset(std::move(parts));
}

}  // namespace parsgd::csv_internal
