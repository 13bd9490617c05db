// A small declarative command-line parser: each option is declared once (name, value name, help,
// and the field it writes, whose current value is the default shown in the help), and the parser,
// the help text and the error messages all come from that declaration.
//
// List mode (for `parsgd compare`): options declared after AllowLists(true) are axes of a grid.
// Each may be repeated, and each value of a non-string option may be a comma-separated list
// (`--order random,global`); every item is checked by the option's own rule as it is read, and
// Values() returns them. A switch in list mode also takes `=true,false`. Set() then applies one
// item at a time, so each grid point is built through the same declarations as one `train` run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parsgd/config/settings.hpp"
#include "parsgd/util/error.hpp"
#include "parsgd/util/named.hpp"

namespace parsgd::cli {

// A bad command line: the message says which flag and what was expected.
class UsageError : public Error {
 public:
  using Error::Error;
};

// An error's message as the command line says it: the settings a SettingError names spelled as
// their flags (--batch), any other error's what().
std::string ErrorText(const std::exception& error);

// Prints `error` of `command` to stderr as the program reports a failure ("parsgd: error: ...",
// with a pointer to the command's help for a UsageError) and returns the exit status it gives: 2
// for a bad command line, 1 for any other failure.
int ReportError(const std::exception& error, std::string_view command);

// The width help is wrapped to: $COLUMNS, else the terminal's, else 100; at least 60.
int TerminalWidth();

// `text` wrapped at word boundaries to `width` columns, the first line starting at column `first`
// (already written), the others indented to `indent`.
std::string WrapText(std::string_view text, std::size_t indent, std::size_t first,
                     std::size_t width);

class OptionParser {
 public:
  OptionParser(std::string command, std::string summary);

  // Value options. `help` is one line; the default (the field's value now) is appended to it
  // unless `show_default` is false.
  void String(std::string name, std::string* field, std::string value_name, std::string help,
              bool required = false);
  // The option declared last may be given more than once (outside list mode, where each value
  // is an item already): its values join as one comma-separated value ("--train a --train b" is
  // "--train a,b").
  void Joins();
  // An integer in [min, max]. With `automatic` set, the word `word` ("auto") is also accepted and
  // stores *automatic (a value outside [min, max] that tells the library to choose).
  void Int(std::string name, int* field, std::string help, int min, int max,
           std::optional<int> automatic = std::nullopt, std::string word = "auto");
  void UInt64(std::string name, uint64_t* field, std::string help);
  // A finite real in [min, max] (or above min only, when min_exclusive); "auto" as for Int.
  void Double(std::string name, double* field, std::string help, double min, double max,
              std::optional<double> automatic = std::nullopt, bool min_exclusive = false);
  void Switch(std::string name, bool* field, std::string help);
  // A field delimiter: auto (stored as 0), comma, tab, semicolon, or one byte that is not a quote,
  // a space, a line break or a character of numbers (digits, '.', '+', '-', 'e').
  void Delimiter(std::string name, char* field, std::string help);
  template <class Enum>
  void Choice(std::string name, Enum* field, std::span<const Named<Enum>> table, std::string help) {
    // (append, not operator+: g++ 12 -O3 warns falsely (-Wrestrict) on literal + temporary string)
    help.append(" [default: ").append(NameOf(table, *field)).append("]");
    for (const auto& e : table)
      help.append("\n").append(Pad("", 28)).append(Pad(e.name, 11)).append(e.help);
    Add({std::move(name), "NAME", std::move(help), false,
         [field, table](const std::string& flag, std::string_view v) {
           auto found = FindByName(table, v);
           if (!found) {
             throw UsageError(flag + ": expected one of " + JoinNames(table, ", ") + ", got '" +
                              std::string(v) + "'");
           }
           *field = *found;
         }});
  }
  // A setting of the library's table (config/settings.hpp) as the flag --key, writing *config: its
  // parsing, range, words, choices and help all come from the table.
  void TableSetting(const Setting& setting, TrainConfig* config);
  // A positional argument (in declaration order).
  void Positional(std::string name, std::string* field, std::string help);

  // Options declared while this is on take lists (see the top of this file). Off by default.
  void AllowLists(bool on) { lists_ = on; }

  // Parses args (without the program and command names). Throws UsageError on an unknown flag
  // (with a suggestion), a missing or malformed value, a missing required option or positional.
  // Returns false if --help was given (print Help() and stop).
  bool Parse(std::span<const std::string> args);

  // The help, wrapped to `width` columns (0: the terminal's, TerminalWidth).
  std::string Help(int width = 0) const;

  // Whether `name` was given on the command line (after Parse).
  bool Given(std::string_view name) const;

  // The values given for `name`, in command-line order (a switch given without a value: "true");
  // empty if it was not given. Throws std::logic_error for a name that was not declared.
  const std::vector<std::string>& Values(std::string_view name) const;

  // Applies one value to `name` as the command line would (a switch takes "true" or "false"),
  // without marking it given. Throws UsageError naming the flag for an unknown name (with a
  // suggestion) or a bad value.
  void Set(std::string_view name, std::string_view value);

  // The declared options' names (without dashes), in declaration order.
  std::vector<std::string> Names() const;
  // Whether `name` is a declared option that takes lists / that is a switch.
  bool TakesLists(std::string_view name) const;
  bool IsSwitch(std::string_view name) const;

 private:
  struct Option {
    std::string name;        // without the leading dashes
    std::string value_name;  // empty for a switch
    std::string help;
    bool required;
    std::function<void(const std::string& flag, std::string_view value)> set;
    bool given = false;
    bool listable = false;  // declared in list mode
    bool splits = true;     // in list mode, a value is a comma-separated list (not for strings)
    bool joins = false;     // given again, the values join with commas (Joins)
    std::vector<std::string> values = {};
  };
  struct PositionalArg {
    std::string name;
    std::string* field;
    std::string help;
  };

  static std::string Pad(std::string s, std::size_t width);
  void Add(Option option);
  Option* Find(std::string_view name);
  const Option* Find(std::string_view name) const;
  const Option& Declared(std::string_view name) const;
  std::string Suggest(std::string_view name) const;
  void Accept(Option& option, const std::string& flag, std::string_view value);

  std::string command_;
  std::string summary_;
  std::vector<Option> options_;
  std::vector<PositionalArg> positionals_;
  bool lists_ = false;
};

}  // namespace parsgd::cli
