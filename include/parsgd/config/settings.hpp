// The training settings, declared once. Every field of TrainConfig a user sets has one entry in
// TrainSettings(): its key, the type of its value, the range of ordinary values, the words that
// stand for special ones ("auto"), and one line of help. Derived from this table:
//   - the command line's flags `--key`, their parsing, help and defaults
//     (src/cli/train_options.cpp);
//   - the range checks of ValidateConfig (config/train_config.hpp), for a config built in code;
//   - the Python module's keywords (the key with '_' for '-', unless scikit-learn has a name);
//   - the run identity of checkpoints and the settings text of model files (FormatSetting).
// Errors name settings by key through SettingError; each front end spells the keys its own way.
//
//   TrainConfig c;
//   ApplySetting(c, "scheme", "average"); // throws SettingError: "`scheme`: expected one of..."
//   ApplySetting(c, "period", "epoch"); const Setting& s = FindSetting("period");
//   FormatSetting(s.get(c), true); // "0", as the run identity writes it
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "parsgd/config/train_config.hpp"
#include "parsgd/util/error.hpp"

namespace parsgd {

// An error about settings. Its text marks every setting's key in backquotes ("`batch` 4 with
// `scheme` hogwild: ..."); what() reads the keys bare ("batch 4 with scheme hogwild"), and
// Render spells them as a front end names them (the command line: "--batch 4 with --scheme ...").
class SettingError : public Error {
 public:
  explicit SettingError(std::string marked);
  std::string Render(const std::function<std::string(std::string_view key)>& spell) const;

 private:
  std::string marked_;
};

enum class SettingType {
  kInt,     // an int field in [min, max], or one of its words
  kCount,   // a uint64_t field, any value
  kReal,    // a finite double in [min, max] (or (min, max]), or one of its words
  kChoice,  // an enum, by the name its table gives
  kSwitch,  // a bool
  kSizes,   // a list of positive ints ("256,128")
  kText,    // text the setting's own parser checks (Setting::check_text)
};

// A value as the table passes it: integers (kInt as int64_t, kCount as uint64_t), reals, switches,
// and text for choices (the name), sizes ("256,128") and text.
using SettingValue = std::variant<int64_t, uint64_t, double, bool, std::string>;

// A word standing for a value outside the ordinary range: "auto" for 0 (the library chooses),
// "epoch" for a period of one epoch.
struct SettingWord {
  std::string word;
  double value;
};

// Where a setting applies: the runs whose training it changes. A setting given for a run outside
// them would be ignored; ValidateConfig refuses it by name instead.
struct Applies {
  unsigned runs = ~0u;                    // its models, solvers and backends (SchemeRuns bits)
  std::vector<ModelKind> models = {};     // empty: every model `runs` names
  std::vector<SchemeKind> schemes = {};   // empty: every scheme
  std::vector<OptimizerKind> optimizers = {};  // empty: every optimiser (as auto resolves it)
  std::vector<ScheduleKind> schedules = {};    // empty: every schedule
  std::vector<OuterKind> outer_kinds = {};     // empty: every outer optimiser
  bool ranks_only = false;                // only in a run across ranks (mpirun)
  bool across_ranks = false;              // also in every run across ranks, whatever its scheme
  bool held_out = false;  // only where rows are held out (TrainConfig::validation_fraction or
                          // held_out_file): early stopping's own
  bool stopping = false;  // only where a stopping rule counts epochs: rows held out, or --tol
  // Where this holds, the setting's value changes no run (`--asgd off`): given, it is never
  // refused as ignored. Null: every value counts.
  bool (*inert)(const TrainConfig&) = nullptr;
};

// How a setting is recorded in what a run writes: the run identity (a checkpoint's: what a resumed
// run must match), the model file's settings text (for people and `parsgd info`) and every epoch's
// metrics line. The text and the metrics name it by its key with '_' for '-'.
struct SettingRecord {
  const char* identity = nullptr;  // its name in the run identity; null: not part of it
  // Recorded (identity and text) only where this holds: a setting added after the identity's
  // first version writes only what differs from the behaviour before it existed. Null: always.
  bool (*when)(const TrainConfig&) = nullptr;
  bool dash = false;     // the identity writes "-" where the setting does not apply
  bool text = false;     // in the settings text
  bool metrics = false;  // in the metrics line
};

struct Setting {
  std::string key;  // "learning-rate"
  SettingType type = SettingType::kInt;
  std::string help;            // one line, without the default
  double min = 0, max = 0;     // kInt, kReal: the ordinary values
  bool min_exclusive = false;  // kReal: min itself is not allowed
  std::vector<SettingWord> words;
  std::vector<std::pair<std::string, std::string>> choices;  // kChoice: each name and its help
  std::function<SettingValue(const TrainConfig&)> get;
  std::function<void(TrainConfig&, const SettingValue&)> put;  // a value CheckSetting accepts
  Applies applies;
  SettingRecord record;
  // kText: throws parsgd::Error saying what is wrong with a value; and its kind for the help
  // ("balanced|LABEL:W,...").
  std::function<void(std::string_view)> check_text;
  std::string text_name;

  bool is_switch() const { return type == SettingType::kSwitch; }
  // Whether a value may hold a comma (sizes): `compare`'s axes then repeat the flag instead.
  bool holds_commas() const { return type == SettingType::kSizes || type == SettingType::kText; }
};

// Every setting of TrainConfig, in the order the help lists them.
std::span<const Setting> TrainSettings();

// The setting named `key`; throws SettingError for an unknown key (naming the closest one).
const Setting& FindSetting(std::string_view key);

// A value given as text (a flag's value, an experiment file's): checked against the setting's type,
// range, words and choices. Throws SettingError ("`key`: expected ..., got '...'").
SettingValue ParseSetting(const Setting& setting, std::string_view text);

// Throws SettingError unless `value` is one the setting takes (of its type, in range or a word).
void CheckSetting(const Setting& setting, const SettingValue& value);

// Parses `text` and stores it: ParseSetting, then put.
void ApplySetting(TrainConfig& config, std::string_view key, std::string_view text);

// The value as a user writes it: a word where the value stands for one ("auto"), else as
// FormatSetting(value, false).
std::string SettingText(const Setting& setting, const SettingValue& value);

// The value itself: integers in decimal, switches as true/false, text as it is, reals in the
// shortest form that reads back exactly, or with `exact` to 17 significant digits (the run
// identity's form, which checkpoints compare line by line).
std::string FormatSetting(const SettingValue& value, bool exact);

// Why `setting` does not apply to the run of `config` over `ranks` processes ("`momentum` applies
// to `optimizer` momentum and nesterov; this run's is sgd"); empty where it applies. An optimizer
// auto is taken as it resolves for the model; a scheme auto is not judged (the trainer judges the
// scheme it resolves to).
std::string WhyNotApplied(const Setting& setting, const TrainConfig& config, int ranks = 1);

// Whether a setting of `given` was given: set to other than its default (TrainConfig{}).
bool DiffersFromDefault(const Setting& setting, const TrainConfig& given);

// The records of a config, one "name=value" line each, in the table's order (SettingRecord): the
// run identity's (values exact, to 17 digits), the settings text's, and the metrics line's JSON
// fields (`"name":value,` each).
std::string IdentityLines(const TrainConfig& config);
std::string SettingsTextLines(const TrainConfig& config);
std::string MetricsFields(const TrainConfig& config);

// The value's kind and words for the help text: "N|auto", "X", "NAME", "SIZES"; empty for a switch.
std::string ValueName(const Setting& setting);

}  // namespace parsgd
