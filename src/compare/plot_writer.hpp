// The comparison's plots as data files and gnuplot scripts, written beside each other so that a
// user can restyle them: objective vs epoch and vs training seconds (log y, one line per
// configuration, a band of +- one standard deviation over repeats), and speedup vs threads.
// Each script `NAME.gp` draws NAME.png and NAME.svg when run in the folder (gnuplot NAME.gp).
// A comparison over several problems (another --train, --model or --l2: another objective) gets
// one set of objective plots per problem, numbered in order of appearance: objective-K.dat,
// objective_epoch-K.gp, objective_seconds-K.gp; with one problem the names carry no number.
#pragma once

#include <string>
#include <vector>

#include "analysis.hpp"
#include "profile.hpp"

namespace parsgd::compare {

struct PlotFile {
  std::string name;  // relative to the output folder
  std::string contents;
};

struct Plots {
  std::vector<PlotFile> files;       // .dat and .gp files
  std::vector<std::string> scripts;  // the .gp names, in the order to draw them
  std::vector<std::string> notes;    // plots left out, and why
};

// `jobs`: the runs that shared the machine at once (--jobs; more than 1: their times are not a
// run's alone, and none was recorded), for the note on a plot left out.
Plots MakePlots(const std::vector<Configuration>& configs, const Analysis& analysis,
                const std::vector<std::string>& varying, int jobs = 1);

}  // namespace parsgd::compare
