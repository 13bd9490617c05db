#include "options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>

#include <sys/ioctl.h>
#include <unistd.h>

#include "parsgd/util/edit_distance.hpp"

namespace parsgd::cli {
namespace {

template <class T>
T ParseNumber(const std::string& flag, std::string_view text, const char* what) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) {
    throw UsageError(fmt::format("{}: expected {}, got '{}'", flag, what, text));
  }
  return value;
}

std::string FormatDefault(double v) { return fmt::format("{}", v); }

}  // namespace

std::string ErrorText(const std::exception& error) {
  if (const auto* e = dynamic_cast<const SettingError*>(&error)) {
    return e->Render([](std::string_view key) { return "--" + std::string(key); });
  }
  return error.what();
}

int ReportError(const std::exception& error, std::string_view command) {
  if (dynamic_cast<const UsageError*>(&error) != nullptr) {
    std::fprintf(stderr, "parsgd: error: %s\n(see parsgd %.*s --help)\n", error.what(),
                 static_cast<int>(command.size()), command.data());
    return 2;
  }
  if (dynamic_cast<const std::bad_alloc*>(&error) != nullptr) {
    std::fprintf(stderr, "parsgd: error: out of memory\n");
    return 1;
  }
  std::fprintf(stderr, "parsgd: error: %s\n", ErrorText(error).c_str());
  return 1;
}

OptionParser::OptionParser(std::string command, std::string summary)
    : command_(std::move(command)), summary_(std::move(summary)) {}

std::string OptionParser::Pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s + " ";
}

void OptionParser::Add(Option option) {
  option.listable = lists_;
  options_.push_back(std::move(option));
}

void OptionParser::String(std::string name, std::string* field, std::string value_name,
                          std::string help, bool required) {
  if (!required && !field->empty()) help += " [default: " + *field + "]";
  if (required) help += " (required)";
  Add({std::move(name), std::move(value_name), std::move(help), required,
       [field](const std::string&, std::string_view v) { *field = std::string(v); }});
  options_.back().splits = false;  // a path or "256,128" may hold commas: repeat the flag instead
}

void OptionParser::Joins() {
  if (options_.back().listable) return;  // list mode: each value is an item of an axis
  options_.back().joins = true;
  options_.back().help += "; given again, the values join as a comma-separated list";
}

void OptionParser::Delimiter(std::string name, char* field, std::string help) {
  help += " [default: auto]";
  Add({std::move(name), "auto|comma|tab|semicolon|CHAR", std::move(help), false,
       [field](const std::string& flag, std::string_view v) {
         if (v == "auto") {
           *field = 0;
         } else if (v == "comma") {
           *field = ',';
         } else if (v == "tab" || v == "\\t") {
           *field = '\t';
         } else if (v == "semicolon") {
           *field = ';';
         } else if (v.size() == 1 && std::string_view("\" \n\r0123456789.+-eE").find(v[0]) ==
                                         std::string_view::npos) {
           *field = v[0];
         } else {
           throw UsageError(fmt::format(
               "{}: expected auto, comma, tab, semicolon or one character (not a quote, a space, "
               "a line break or a character of numbers), got '{}'",
               flag, v));
         }
       }});
  options_.back().splits = false;  // "," is the delimiter itself, not a list
}

void OptionParser::Int(std::string name, int* field, std::string help, int min, int max,
                       std::optional<int> automatic, std::string word) {
  const bool is_auto = automatic && *field == *automatic;
  help += is_auto ? fmt::format(" [default: {}]", word) : fmt::format(" [default: {}]", *field);
  const std::string expected = automatic ? fmt::format("an integer or '{}'", word) : "an integer";
  Add({std::move(name), automatic ? "N|" + word : "N", std::move(help), false,
       [field, min, max, automatic, word, expected](const std::string& flag, std::string_view v) {
         if (automatic && v == word) {
           *field = *automatic;
           return;
         }
         const long long value = ParseNumber<long long>(flag, v, expected.c_str());
         if (value < min || value > max) {
           throw UsageError(fmt::format("{}: must be between {} and {}{}, got {}", flag, min, max,
                                        automatic ? fmt::format(" (or '{}')", word) : "", v));
         }
         *field = static_cast<int>(value);
       }});
}

void OptionParser::UInt64(std::string name, uint64_t* field, std::string help) {
  help += fmt::format(" [default: {}]", *field);
  Add({std::move(name), "N", std::move(help), false,
       [field](const std::string& flag, std::string_view v) {
         if (!v.empty() && v[0] == '-') {
           throw UsageError(fmt::format("{}: expected a non-negative integer, got '{}'", flag, v));
         }
         *field = ParseNumber<uint64_t>(flag, v, "a non-negative integer");
       }});
}

void OptionParser::Double(std::string name, double* field, std::string help, double min, double max,
                          std::optional<double> automatic, bool min_exclusive) {
  const bool is_auto = automatic && *field == *automatic;
  help += " [default: " + (is_auto ? std::string("auto") : FormatDefault(*field)) + "]";
  Add({std::move(name), automatic ? "X|auto" : "X", std::move(help), false,
       [=](const std::string& flag, std::string_view v) {
         if (automatic && v == "auto") {
           *field = *automatic;
           return;
         }
         const double value =
             ParseNumber<double>(flag, v, automatic ? "a number or 'auto'" : "a number");
         const bool below = min_exclusive ? !(value > min) : !(value >= min);
         if (!std::isfinite(value) || below || value > max) {
           throw UsageError(fmt::format("{}: must be a number in {}{}, {}], got {}", flag,
                                        min_exclusive ? "(" : "[", min, max, v));
         }
         *field = value;
       }});
}

void OptionParser::Switch(std::string name, bool* field, std::string help) {
  Add({std::move(name), "", std::move(help), false,
       [field](const std::string& flag, std::string_view v) {
         if (v != "" && v != "true" && v != "false") {
           throw UsageError(fmt::format("{}: expected true or false, got '{}'", flag, v));
         }
         *field = v != "false";
       }});
}

void OptionParser::TableSetting(const Setting& setting, TrainConfig* config) {
  std::string help = setting.help;
  if (!setting.is_switch()) {
    help.append(" [default: ").append(SettingText(setting, setting.get(*config))).append("]");
  }
  for (const auto& [name, choice_help] : setting.choices) {
    help.append("\n").append(Pad("", 28)).append(Pad(name, 11)).append(choice_help);
  }
  Add({setting.key, ValueName(setting), std::move(help), false,
       [&setting, config](const std::string&, std::string_view v) {
         try {
           setting.put(*config, ParseSetting(setting, v));
         } catch (const SettingError& e) {
           throw UsageError(ErrorText(e));
         }
       }});
  options_.back().splits = !setting.holds_commas();
}

void OptionParser::Positional(std::string name, std::string* field, std::string help) {
  positionals_.push_back({std::move(name), field, std::move(help)});
}

OptionParser::Option* OptionParser::Find(std::string_view name) {
  for (Option& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const OptionParser::Option* OptionParser::Find(std::string_view name) const {
  for (const Option& o : options_) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

const OptionParser::Option& OptionParser::Declared(std::string_view name) const {
  const Option* o = Find(name);
  if (o == nullptr) throw std::logic_error("option --" + std::string(name) + " not declared");
  return *o;
}

std::string OptionParser::Suggest(std::string_view name) const {
  // An abbreviation first: the initials of a hyphenated name (--lr: --learning-rate), or the start
  // of exactly one name (--valid: --validation).
  const Option* starts = nullptr;
  int starting = 0;
  for (const Option& o : options_) {
    std::string initials;
    bool word = true;
    for (char c : o.name) {
      if (word) initials += c;
      word = c == '-';
    }
    if (initials.size() > 1 && initials == name) return " (did you mean --" + o.name + "?)";
    if (name.size() >= 3 && o.name.starts_with(name)) {
      starts = &o;
      ++starting;
    }
  }
  if (starting == 1) return " (did you mean --" + starts->name + "?)";
  const Option* best = nullptr;
  std::size_t best_distance = 3;  // suggest only close matches
  for (const Option& o : options_) {
    const std::size_t d = EditDistance(name, o.name);
    if (d < best_distance) {
      best = &o;
      best_distance = d;
    }
  }
  return best ? " (did you mean --" + best->name + "?)" : "";
}

// One occurrence of a flag: its value checked (each item of a list, in list mode) and recorded.
void OptionParser::Accept(Option& option, const std::string& flag, std::string_view value) {
  const bool is_switch = option.value_name.empty();
  auto record = [&](std::string_view item) {
    option.set(flag, item);
    const std::string stored = is_switch && item.empty() ? "true" : std::string(item);
    if (std::find(option.values.begin(), option.values.end(), stored) != option.values.end()) {
      throw UsageError(fmt::format("{}: '{}' given twice", flag, stored));
    }
    option.values.push_back(stored);
  };
  if (!option.listable || !option.splits || value.empty()) {
    record(value);
    return;
  }
  std::size_t at = 0;
  while (at <= value.size()) {
    const std::size_t comma = std::min(value.find(',', at), value.size());
    const std::string_view item = value.substr(at, comma - at);
    if (item.empty()) throw UsageError(fmt::format("{}: empty item in the list '{}'", flag, value));
    record(item);
    at = comma + 1;
  }
}

bool OptionParser::Parse(std::span<const std::string> args) {
  std::size_t positional = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--help" || arg == "-h") return false;
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      if (positional == positionals_.size()) {
        throw UsageError(fmt::format("parsgd {}: unexpected argument '{}'", command_, arg));
      }
      *positionals_[positional++].field = arg;
      continue;
    }
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    Option* option = Find(name);
    if (option == nullptr) {
      throw UsageError(
          fmt::format("parsgd {}: unknown option --{}{}", command_, name, Suggest(name)));
    }
    const std::string flag = "--" + name;
    if (option->given && !option->listable && !option->joins) {
      throw UsageError(flag + ": given twice");
    }
    if (option->given && option->joins) {
      // Given again: the values so far and this one, comma-separated.
      std::string value = eq != std::string::npos ? arg.substr(eq + 1)
                          : i + 1 < args.size()   ? args[++i]
                                                  : "";
      if (value.empty()) throw UsageError(fmt::format("{}: missing value ({})", flag, option->value_name));
      option->values.back() += "," + value;
      option->set(flag, option->values.back());
      continue;
    }
    option->given = true;
    if (option->value_name.empty()) {
      if (eq != std::string::npos && !option->listable) throw UsageError(flag + ": takes no value");
      Accept(*option, flag, eq == std::string::npos ? "" : std::string_view(arg).substr(eq + 1));
      continue;
    }
    if (eq != std::string::npos) {
      Accept(*option, flag, std::string_view(arg).substr(eq + 1));
    } else if (i + 1 < args.size()) {
      Accept(*option, flag, args[++i]);
    } else {
      throw UsageError(fmt::format("{}: missing value ({})", flag, option->value_name));
    }
  }
  for (const Option& o : options_) {
    if (o.required && !o.given) {
      throw UsageError(fmt::format("parsgd {}: --{} is required", command_, o.name));
    }
  }
  if (positional < positionals_.size()) {
    throw UsageError(fmt::format("parsgd {}: missing {}", command_, positionals_[positional].name));
  }
  return true;
}

bool OptionParser::Given(std::string_view name) const {
  for (const Option& o : options_) {
    if (o.name == name) return o.given;
  }
  return false;
}

const std::vector<std::string>& OptionParser::Values(std::string_view name) const {
  return Declared(name).values;
}

void OptionParser::Set(std::string_view name, std::string_view value) {
  Option* option = Find(name);
  if (option == nullptr) {
    throw UsageError(fmt::format("unknown option --{}{}", name, Suggest(name)));
  }
  option->set("--" + option->name, value);
}

std::vector<std::string> OptionParser::Names() const {
  std::vector<std::string> names;
  for (const Option& o : options_) names.push_back(o.name);
  return names;
}

bool OptionParser::TakesLists(std::string_view name) const {
  const Option* o = Find(name);
  return o != nullptr && o->listable;
}

bool OptionParser::IsSwitch(std::string_view name) const {
  const Option* o = Find(name);
  return o != nullptr && o->value_name.empty();
}

int TerminalWidth() {
  // COLUMNS where the shell exports it, else the terminal's own, else 100; never below 60.
  int width = 0;
  if (const char* columns = std::getenv("COLUMNS")) width = std::atoi(columns);
  winsize size{};
  if (width <= 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) width = size.ws_col;
  if (width <= 0) width = 100;
  return std::max(width, 60);
}

std::string WrapText(std::string_view text, std::size_t indent, std::size_t first,
                     std::size_t width) {
  std::string out;
  std::size_t column = first;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const bool fresh = column == first && out.empty();
    if (!fresh && column + 1 + word.size() > width && column > indent) {
      out.append("\n").append(indent, ' ');
      column = indent;
    } else if (!fresh && column > indent) {
      out += ' ';
      ++column;
    }
    out += word;
    column += word.size();
  }
  return out;
}

std::string OptionParser::Help(int width) const {
  const std::size_t w = static_cast<std::size_t>(width > 0 ? width : TerminalWidth());
  std::string out = "usage: parsgd " + command_;
  for (const auto& p : positionals_) out += " " + p.name;
  out += " [options]\n\n" + WrapText(summary_, 0, 0, w) + "\n";
  if (!positionals_.empty()) {
    out += "\narguments:\n";
    for (const auto& p : positionals_) {
      out += "  " + Pad(p.name, 25) + WrapText(p.help, 28, 28, w) + "\n";
    }
  }
  out += "\noptions:\n";
  for (const Option& o : options_) {
    std::string flag = "--" + o.name;
    if (o.listable && o.value_name.empty()) {
      flag += "[=true,false]";
    } else if (!o.value_name.empty()) {
      flag.append(" ").append(o.value_name).append(o.listable && o.splits ? ",..." : "");
    }
    std::string help = o.help;
    if (o.listable && !o.splits) help.append(" (repeat the flag for several)");
    // Help text starts at column 28; a longer flag gets its own line. A choice's names and their
    // help follow on lines of their own (the help's "\n"), each wrapped under its own start.
    out += flag.size() <= 25 ? "  " + Pad(flag, 25) : "  " + flag + "\n" + Pad("", 27);
    std::size_t line = 0;
    std::size_t at = 0;
    while (at <= help.size()) {
      const std::size_t end = std::min(help.find('\n', at), help.size());
      const std::string_view part = std::string_view(help).substr(at, end - at);
      if (line == 0) {
        out += WrapText(part, 28, 28, w);
      } else {
        // "<29 spaces><name padded to 11> help": the help wraps under itself.
        const std::size_t name = std::min(part.find_first_not_of(' '), part.size());
        std::size_t help_at = std::min(part.find(' ', name), part.size());
        while (help_at < part.size() && part[help_at] == ' ') ++help_at;
        out += '\n';
        out.append(part.substr(0, help_at));
        out += WrapText(part.substr(help_at), name + 12, help_at, w);
      }
      ++line;
      at = end + 1;
    }
    out += "\n";
  }
  out += "  " + Pad("--help", 25) + "show this help\n";
  return out;
}

}  // namespace parsgd::cli
