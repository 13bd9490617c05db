// Internal to the data layer: a CSV table's missing values filled in under an imputing rule
// (CsvMissing kMean, kMedian, kMostFrequent, kIndicator; data/csv_schema.hpp's CsvFill).
#pragma once

#include "parsgd/data/csv_schema.hpp"
#include "parsgd/data/dataset.hpp"

namespace parsgd::csv_internal {

// `data`, CSV text read under the imputing rule `rule` (each missing cell a NaN entry at its
// column's own feature), with its missing values filled in by its schema's fills. A schema
// without fills (a training file read by itself) has them learnt from `data`'s rows first and
// recorded in the result's schema: for a number column the mean, median or most frequent value of
// the cells that are not missing (zeros included), for a one-hot categorical column its most
// frequent category (a hashed one's missing cells add nothing); under kIndicator 0 and an
// indicator feature for each column with a missing cell. A column without a value gets 0. The
// rows' entries stay ascending; the feature count grows by the indicators. Throws parsgd::Error
// where the schema has no fills but `data` was read by it (`learn` false: a file read as a model's
// training data that was read under another rule).
Dataset FillMissing(const Dataset& data, CsvMissing rule, bool learn);

}  // namespace parsgd::csv_internal
