// Internal to the data layer: a CSV table's number columns centred (CsvCenter, CsvSchema::centres).
#pragma once

#include "parsgd/data/csv_schema.hpp"
#include "parsgd/data/dataset.hpp"

namespace parsgd::csv_internal {

// What centring learns from rows of a CSV table (its missing values filled in): for each feature
// column its cells' sum and their squares' sum, then the row count (2C + 1 numbers; sums of two
// shares of the rows are the moments of the whole).
std::vector<double> ColumnMoments(const Dataset& data);

// The centres of the rows with `moments`, of a table of `schema`: under kAuto, for each number
// column whose mean (zeros included) is farther from 0 than its standard deviation, that mean; 0
// for every other column. Empty where no column is centred (kNone, no rows, or no such column).
std::vector<float> CentresOf(const std::vector<double>& moments, const CsvSchema& schema,
                             CsvCenter rule);

// `data` (a CSV table's rows, uncentred, whatever its schema's centres say) with `centres` (one per feature column, or empty: `data`
// as it is) subtracted from its number columns' cells: an absent cell is a 0, a cell that becomes
// 0 is dropped. The result's schema is `data`'s with these centres.
Dataset CentreColumns(const Dataset& data, const std::vector<float>& centres);

}  // namespace parsgd::csv_internal
