// report.md: what was compared, the results per configuration (mean +- sample std over repeats),
// which differences exceed the spread over repeats (Welch's t-test), failures, and the plots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis.hpp"
#include "gnuplot.hpp"
#include "plot_writer.hpp"

namespace parsgd::compare {

struct ReportInput {
  std::string command;  // the command line, as a shell would take it
  const std::vector<Configuration>* configs = nullptr;
  const std::vector<RunRecord>* runs = nullptr;
  const Analysis* analysis = nullptr;
  std::vector<std::string> varying;   // flags that vary
  std::vector<Setting> fixed;         // flags with one value in every configuration
  std::vector<std::string> commands;  // per configuration: the equivalent `parsgd train`
  std::vector<std::string> data;      // one line per data set: path, rows x features
  int repeats = 1;
  int planned_runs = 0;      // the grid's runs
  bool interrupted = false;  // a signal ended the grid: `runs` are those that finished
  uint64_t seed = 1;
  double alpha = 0.05;
  int cores = 1;
  int jobs = 1;  // runs at once (--jobs): above 1 the runs carry no times
  // The machine, for report.html: the CPU's model name, the program and its version, the date
  // (empty under --deterministic, where the folder repeats byte for byte).
  std::string cpu, program, date;
  const Plots* plots = nullptr;
  DrawResult drawn;
};

std::string MarkdownReport(const ReportInput& in);

}  // namespace parsgd::compare
