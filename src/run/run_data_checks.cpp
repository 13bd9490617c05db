#include "run_data_checks.hpp"

#include <fmt/format.h>

#include <string>

#include "parsgd/util/error.hpp"

namespace parsgd {

void CheckTrainingRows(const Dataset& train, Communicator& ranks) {
  ranks.AgreeOn([&] {
    if (train.features() == 0) {
      throw Error(train.source() +
                  ": no features, every row a label alone (a CSV file read with the wrong "
                  "--delimiter is one column)");
    }
    if (train.rows() > 0) return;
    if (ranks.size() == 1) throw Error(train.source() + ": no training rows");
    throw Error(
        fmt::format("{}: rank {}'s share of the rows is empty: fewer rows than the {} ranks",
                    train.source(), ranks.rank(), ranks.size()));
  });
}

void CheckFilesUnchanged(std::initializer_list<const Dataset*> sets, uint64_t epoch,
                         Communicator& ranks) {
  ranks.AgreeOn([&] {
    for (const Dataset* data : sets) {
      if (data == nullptr || !data->mapped()) continue;
      if (const std::string changed = data->mapping()->Changed(); !changed.empty()) {
        throw DataError(data->source(), 0, 0,
                        fmt::format("changed while the run read it ({}): the rows of epoch {} "
                                    "cannot be trusted; it must stay as it is for the whole run",
                                    changed, epoch));
      }
    }
  });
}

}  // namespace parsgd
