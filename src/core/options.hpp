// Each parameter declared once: its flag (also its config-file key), default, unit, help and the
// value it echoes into results. One declaration feeds the command line and config files
// (attach), the JSON echo of the effective configuration (echo) and README's flag tables
// (markdown). Values are parsed here, so a bad one is one line in evbench's words naming the flag
// and what is allowed (ConfigError), never a parser's raw text.
#pragma once
#include "core/config_error.hpp"
#include "core/time.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
} // namespace CLI

namespace evb {

struct Option {
    std::string name; // long flag without dashes; also the config-file key
    std::string group; // who declared it: "run", a driver's name, "fabric", ...
    std::string value_name; // "N", "SIZE", "TIME", ...; empty for a switch
    std::string default_text; // as --help and README show it
    std::string help;
    std::string json_key; // key in the configuration echo; empty: not echoed
    bool is_switch = false;
    bool is_list = false; // comma-separated values (or a config-file array)
    bool same_on_every_rank = true; // part of the configuration every rank must share
    bool given = false; // set on the command line or in a config file
    std::string given_text; // as given (a list's values joined by ','; a switch's "true" or its value)
    bool is_input_file = false; // names a file (or files) the run reads
    bool is_output_file = false; // names a file the run writes: checked before the run (check_files)
    std::function<void(const std::string&)> set; // parses and stores; throws ConfigError
    std::function<nlohmann::json()> echo; // the effective value
    std::string switch_text; // a switch's value as given ("true", or --name=VALUE)
    CLI::Option* cli = nullptr; // once attached

    // Chainable adjustments of a declaration.
    Option& shown_default(std::string text) {
        default_text = std::move(text);
        return *this;
    }
    Option& echo_as(std::string key) {
        json_key = std::move(key);
        return *this;
    }
    Option& not_echoed() {
        json_key.clear();
        return *this;
    }
    Option& per_rank() {
        same_on_every_rank = false;
        return *this;
    }
    Option& reads_file() {
        is_input_file = true;
        return *this;
    }
    // A driver's option that applies whatever the run's transport (mpi's --baseline replaces the
    // run): not refused as another transport's.
    Option& whatever_the_transport() {
        any_transport = true;
        return *this;
    }
    bool any_transport = false;
    Option& writes_file() { // "-" is standard output (output_file.hpp)
        is_output_file = true;
        help += " ('-': standard output)";
        return *this;
    }
    // Refused together with any of these flags ("--k excludes --topology").
    Option& excludes(std::vector<std::string> names) {
        excluded = std::move(names);
        return *this;
    }
    // Given as zero, refused when parsed, by every command that declares it: a zero that would
    // quietly mean "the default" or divide by nothing is a wrong answer.
    Option& above_zero();
    std::vector<std::string> excluded;
    // Given while `applies` is false, refused (OptionSet::refuse_inapplicable): "--shift needs
    // --benchmark one-to-one". `applies` reads the parsed configuration.
    Option& applies_when(std::string needs_text, std::function<bool()> applies_now) {
        needs = std::move(needs_text);
        applies = std::move(applies_now);
        return *this;
    }
    std::string needs;
    std::function<bool()> applies;
};

class OptionSet {
public:
    // Declarations that follow belong to `group` (a section of --help and of README).
    void begin_group(std::string group, std::string title);

    template <typename Unsigned>
    Option& whole(const std::string& name, Unsigned& target, const std::string& value_name, const std::string& help);
    Option& real(const std::string& name, double& target, const std::string& value_name, const std::string& help);
    Option& text(const std::string& name, std::string& target, const std::string& value_name, const std::string& help);
    Option& on_off(const std::string& name, bool& target, const std::string& help);
    Option& size(const std::string& name, std::uint64_t& target, const std::string& help);
    Option& duration(const std::string& name, Picoseconds& target, const std::string& help);
    Option& real_list(const std::string& name, std::vector<double>& target, const std::string& value_name, const std::string& help);
    Option& whole_list(const std::string& name, std::vector<std::uint32_t>& target, const std::string& value_name, const std::string& help);
    Option& text_list(const std::string& name, std::vector<std::string>& target, const std::string& value_name, const std::string& help);
    template <typename Enum>
    Option& choice(const std::string& name, Enum& target, const std::vector<std::pair<std::string, Enum>>& names, const std::string& help);

    // Adds every declaration to a CLI11 app (flags and config-file keys); groups other than the
    // first become option groups of --help.
    void attach(CLI::App& app);
    // Parses argv (and --config FILE) into the declared targets. Returns false when help was
    // printed. Throws ConfigError, in evbench's words, on an unknown flag or key or a bad value.
    bool parse(CLI::App& app, int argc, const char* const* argv, std::ostream& help_out);

    // Every output file given can be written and is none of the inputs given (--config and the
    // options that read files), else ConfigError in one line: called before the work starts by
    // the process that will write them.
    void check_files() const;
    // For the process that writes the outputs, before it prints: an output given as "-" takes
    // standard output (output_file.hpp).
    void take_stdout_if_asked() const;
    // Every option given that does not apply to this run, refused in one line (ConfigError),
    // after the derived defaults are set: an option silently ignored is a wrong answer.
    void refuse_inapplicable() const;
    // The options of `group` given on the command line or in the config file (but those declared
    // whatever_the_transport).
    std::vector<std::string> given_in(const std::string& group) const;
    // Every option given, by flag name (output files included).
    std::vector<std::string> given_names() const;

    // Every option given (but the files the run writes), by flag name, as given: what a result
    // records, and what `--config RESULT.json` gives again.
    nlohmann::json given_texts() const;

    const Option* find(const std::string& name) const;
    bool given(const std::string& name) const;
    // The effective value of every echoed option of `groups` (all groups when empty).
    nlohmann::json echo(const std::vector<std::string>& groups = {}, bool shared_only = false) const;
    // README's flag table for one group: | flag | default | meaning |
    std::string markdown(const std::string& group) const;
    // Every non-empty group's table between the markers README keeps it in
    // ("<!-- flags: GROUP -->" ... "<!-- /flags -->"); what `--flags-markdown` prints.
    std::string markdown_blocks() const;
    std::vector<std::string> groups() const;

private:
    Option& add(Option o);
    // The fields every typed declaration starts from; its default is shown as the target holds it.
    static Option declared(const std::string& name, const std::string& value_name, const std::string& help);
    template <typename T>
    static std::function<nlohmann::json()> echo_of(const T& target) {
        return [&target] { return nlohmann::json(target); };
    }
    std::deque<Option> options_; // stable addresses: CLI11 callbacks point into it
    std::string group_ = "run";
    std::map<std::string, std::string> titles_;
    std::vector<std::string> group_order_;
    std::string config_file_; // --config, once parsed
};

// Parsers behind the typed declarations; each throws ConfigError naming the flag.
std::uint64_t parse_whole(const std::string& flag, const std::string& text, std::uint64_t max);
double parse_real(const std::string& flag, const std::string& text);
std::vector<std::string> split_list(const std::string& text);

template <typename Unsigned>
Option& OptionSet::whole(const std::string& name, Unsigned& target, const std::string& value_name, const std::string& help) {
    Option o = declared(name, value_name, help);
    o.default_text = std::to_string(target);
    o.set = [&target, name](const std::string& v) {
        target = static_cast<Unsigned>(parse_whole("--" + name, v, static_cast<std::uint64_t>(static_cast<Unsigned>(-1))));
    };
    o.echo = echo_of(target);
    return add(std::move(o));
}

template <typename Enum>
Option& OptionSet::choice(const std::string& name, Enum& target, const std::vector<std::pair<std::string, Enum>>& names,
                          const std::string& help) {
    std::string choices;
    for (const auto& [n, v] : names) choices += (choices.empty() ? "" : "|") + n;
    Option o = declared(name, choices, help);
    for (const auto& [n, v] : names)
        if (v == target) o.default_text = n;
    o.set = [&target, names, choices, name](const std::string& value) {
        for (const auto& [n, v] : names)
            if (n == value) {
                target = v;
                return;
            }
        throw ConfigError("--" + name + ": unknown value '" + value + "' (choose " + choices + ")");
    };
    o.echo = [&target, names] {
        for (const auto& [n, v] : names)
            if (v == target) return nlohmann::json(n);
        return nlohmann::json(nullptr);
    };
    return add(std::move(o));
}

} // namespace evb
