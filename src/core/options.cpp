#include "core/options.hpp"

#include "core/input_file.hpp"
#include "core/json_fields.hpp"
#include "core/output_file.hpp"
#include "core/printable_text.hpp"
#include "core/quantity.hpp"
#include "core/shipped_configs.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <sstream>

namespace evb {

std::uint64_t parse_whole(const std::string& flag, const std::string& text, std::uint64_t max) {
    std::uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || p != end || v > max)
        throw ConfigError(fmt::format("{}: '{}' is not a whole number from 0 to {}", flag, text, max));
    return v;
}

double parse_real(const std::string& flag, const std::string& text) {
    std::size_t used = 0;
    const std::optional<double> v = leading_decimal(text, used);
    if (!v || used != text.size()) throw ConfigError(flag + ": '" + text + "' is not a decimal number");
    return *v;
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> parts;
    std::size_t start = 0;
    for (;;) {
        auto comma = text.find(',', start);
        parts.push_back(text.substr(start, comma - start));
        if (comma == std::string::npos) return parts;
        start = comma + 1;
    }
}

namespace {
// A value with a unit, parsed by `parse` (which throws std::invalid_argument naming the text).
template <typename T>
std::function<void(const std::string&)> with_units(const std::string& name, T& target, T (*parse)(const std::string&)) {
    return [&target, name, parse](const std::string& v) {
        try {
            target = parse(v);
        } catch (const std::invalid_argument& e) {
            throw ConfigError("--" + name + ": " + e.what());
        }
    };
}
} // namespace

Option& Option::above_zero() {
    auto parse = set;
    auto value = echo;
    set = [parse, value, flag = "--" + name](const std::string& text) {
        parse(text);
        const nlohmann::json v = value();
        if (v.is_number() && v.get<double>() == 0) throw ConfigError(fmt::format("{} must be above zero (got '{}')", flag, text));
    };
    return *this;
}

void OptionSet::begin_group(std::string group, std::string title) {
    group_ = std::move(group);
    if (!titles_.count(group_)) group_order_.push_back(group_);
    titles_[group_] = std::move(title);
}

Option OptionSet::declared(const std::string& name, const std::string& value_name, const std::string& help) {
    Option o;
    o.name = name;
    o.value_name = value_name;
    o.help = help;
    return o;
}

Option& OptionSet::add(Option o) {
    if (find(o.name)) throw std::logic_error("option --" + o.name + " declared twice");
    if (!titles_.count(group_)) {
        titles_[group_] = group_;
        group_order_.push_back(group_);
    }
    o.group = group_;
    if (o.json_key.empty()) {
        o.json_key = o.name;
        std::replace(o.json_key.begin(), o.json_key.end(), '-', '_');
    }
    options_.push_back(std::move(o));
    return options_.back();
}

Option& OptionSet::real(const std::string& name, double& target, const std::string& value_name, const std::string& help) {
    Option o = declared(name, value_name, help);
    o.default_text = fmt::format("{:g}", target);
    o.set = [&target, name](const std::string& v) { target = parse_real("--" + name, v); };
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::text(const std::string& name, std::string& target, const std::string& value_name, const std::string& help) {
    Option o = declared(name, value_name, help);
    o.default_text = target;
    o.set = [&target](const std::string& v) { target = v; };
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::on_off(const std::string& name, bool& target, const std::string& help) {
    Option o = declared(name, "", help);
    o.is_switch = true;
    o.default_text = target ? "on" : "off";
    o.set = [&target, name](const std::string& v) {
        if (v == "true" || v == "1" || v == "on" || v == "yes")
            target = true;
        else if (v == "false" || v == "0" || v == "off" || v == "no")
            target = false;
        else
            throw ConfigError("--" + name + ": '" + v + "' is not true or false");
    };
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::size(const std::string& name, std::uint64_t& target, const std::string& help) {
    Option o = declared(name, "SIZE", help);
    o.default_text = format_size(target);
    o.set = with_units(name, target, parse_size);
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::duration(const std::string& name, Picoseconds& target, const std::string& help) {
    Option o = declared(name, "TIME", help);
    o.default_text = format_duration(target);
    o.set = with_units(name, target, parse_duration);
    o.echo = [&target] { return nlohmann::json(target.seconds()); };
    o.json_key = name + "_s";
    std::replace(o.json_key.begin(), o.json_key.end(), '-', '_');
    return add(std::move(o));
}

Option& OptionSet::real_list(const std::string& name, std::vector<double>& target, const std::string& value_name, const std::string& help) {
    Option o = declared(name, value_name, help);
    o.is_list = true;
    o.set = [&target, name](const std::string& v) {
        target.clear();
        for (const auto& part : split_list(v)) target.push_back(parse_real("--" + name, part));
    };
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::whole_list(const std::string& name, std::vector<std::uint32_t>& target, const std::string& value_name,
                              const std::string& help) {
    Option o = declared(name, value_name, help);
    o.is_list = true;
    o.set = [&target, name](const std::string& v) {
        target.clear();
        for (const auto& part : split_list(v)) target.push_back(static_cast<std::uint32_t>(parse_whole("--" + name, part, UINT32_MAX)));
    };
    o.echo = echo_of(target);
    return add(std::move(o));
}

Option& OptionSet::text_list(const std::string& name, std::vector<std::string>& target, const std::string& value_name,
                             const std::string& help) {
    Option o = declared(name, value_name, help);
    o.is_list = true;
    o.set = [&target](const std::string& v) { target = split_list(v); };
    o.echo = echo_of(target);
    return add(std::move(o));
}

void OptionSet::attach(CLI::App& app) {
    for (auto& o : options_) {
        std::string flag = "--" + o.name;
        CLI::Option* cli = nullptr;
        Option* opt = &o;
        if (o.is_switch) {
            // Stored as text and parsed after CLI11 is done: its own reading of "--quiet=maybe"
            // throws a bare "stoll".
            cli = app.add_flag(flag, o.switch_text, o.help);
        } else if (o.is_list) {
            cli = app.add_option_function<std::vector<std::string>>(
                flag,
                [opt](const std::vector<std::string>& values) {
                    std::string joined;
                    for (const auto& v : values) joined += (joined.empty() ? "" : ",") + v;
                    opt->set(joined);
                    opt->given = true;
                    opt->given_text = joined;
                },
                o.help);
            cli->delimiter(',');
        } else {
            cli = app.add_option_function<std::string>(
                flag,
                [opt](const std::string& v) {
                    opt->set(v);
                    opt->given = true;
                    opt->given_text = v;
                },
                o.help);
        }
        if (!o.value_name.empty()) cli->type_name(o.value_name);
        if (!o.default_text.empty()) cli->default_str(o.default_text);
        // Groups only sort --help; flags and config keys are one namespace.
        if (o.group != group_order_.front()) cli->group(titles_[o.group]);
        o.cli = cli;
    }
}

namespace {
bool appears_on_command_line(const std::string& token, int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == token || a.rfind(token + "=", 0) == 0) return true;
    }
    return false;
}

// What CLI11 reads a --config file with: at most config_file_limit bytes of it (CLI11 alone reads
// /dev/zero until memory runs out) and no [section] or dotted key (CLI11 would take their keys
// for a subcommand's, and evbench would never see them).
class BoundedConfig final : public CLI::ConfigBase {
public:
    std::vector<CLI::ConfigItem> from_config(std::istream& in) const override {
        std::string text;
        char chunk[65536];
        while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
            text.append(chunk, static_cast<std::size_t>(in.gcount()));
            if (text.size() > config_file_limit) throw ConfigError("--config: the file has more than the 16 MiB a config file may have");
        }
        if (const auto first = text.find_first_not_of(" \t\r\n"); first != std::string::npos && text[first] == '{')
            return result_options(text);
        std::istringstream bounded(text);
        std::vector<CLI::ConfigItem> read = CLI::ConfigBase::from_config(bounded);
        for (const auto& item : read)
            if (!item.parents.empty())
                throw ConfigError("config file: '" + printable_text(item.parents.front(), 60) +
                                  "' is a section or a dotted key; evbench's config files have neither (keys are the long flag "
                                  "names, at the top of the file)");
        return read;
    }

private:
    // A result of `evbench --json`: the options its run was given (invocation.options), by flag name.
    static std::vector<CLI::ConfigItem> result_options(const std::string& text) {
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(text);
        } catch (const nlohmann::json::parse_error& e) {
            throw ConfigError(fmt::format("config file: not valid JSON (byte {})", e.byte));
        } catch (const nlohmann::json::exception& e) {
            throw ConfigError("config file: its JSON " + json_error_words(e));
        }
        const nlohmann::json* given = nullptr;
        if (doc.is_object() && doc.contains("invocation") && doc["invocation"].is_object() && doc["invocation"].contains("options"))
            given = &doc["invocation"]["options"];
        if (!given || !given->is_object())
            throw ConfigError("config file: a JSON config file is a result of evbench --json, read for the options its run was given "
                              "(invocation.options); this one has none");
        std::vector<CLI::ConfigItem> items;
        for (const auto& [name, value] : given->items()) {
            if (!value.is_string())
                throw ConfigError("config file: invocation.options." + printable_text(name, 60) +
                                  " is not text (options are given as on the command line)");
            CLI::ConfigItem item;
            item.name = name;
            item.inputs = {value.get<std::string>()};
            items.push_back(std::move(item));
        }
        return items;
    }
};

// The command line with the --config value replaced by the file it names (a shipped config's
// name finds it from any directory: shipped_configs.hpp); `path` is that file, or empty.
std::vector<std::string> with_config_resolved(int argc, const char* const* argv, std::string& path) {
    std::vector<std::string> args(argv, argv + argc);
    for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--config" && i + 1 < args.size()) {
            args[i + 1] = path = resolve_config_path(args[i + 1]);
            break;
        }
        if (args[i].rfind("--config=", 0) == 0) {
            path = resolve_config_path(args[i].substr(9));
            args[i] = "--config=" + path;
            break;
        }
    }
    return args;
}
} // namespace

bool OptionSet::parse(CLI::App& app, int argc, const char* const* argv, std::ostream& help_out) {
    // Hidden: README's flag tables are generated from (and tested against) the declarations.
    if (appears_on_command_line("--flags-markdown", argc, argv)) {
        help_out << markdown_blocks();
        return false;
    }
    app.allow_extras(true);
    app.allow_config_extras(CLI::config_extras_mode::capture);
    app.config_formatter(std::make_shared<BoundedConfig>());
    std::string config_path;
    const std::vector<std::string> args = with_config_resolved(argc, argv, config_path);
    std::vector<const char*> resolved_argv;
    for (const auto& a : args) resolved_argv.push_back(a.c_str());
    // A device, a pipe or a file too large is refused before CLI11 opens it (opening a pipe waits).
    if (!config_path.empty()) {
        try {
            (void)read_input_file(config_path, config_file_limit, "the config file");
        } catch (const ConfigError& e) {
            if (config_path.find('/') != std::string::npos) throw;
            throw ConfigError(std::string(e.what()) + "; shipped configs: " + shipped_config_names());
        }
        config_file_ = config_path;
    }
    try {
        app.parse(argc, resolved_argv.data());
    } catch (const CLI::CallForHelp&) {
        help_out << app.help();
        return false;
    } catch (const CLI::CallForAllHelp&) {
        help_out << app.help("", CLI::AppFormatMode::All);
        return false;
    } catch (const CLI::CallForVersion& e) {
        help_out << e.what() << "\n";
        return false;
    } catch (const CLI::FileError& e) {
        throw ConfigError(std::string("--config: cannot read the file: ") + e.what());
    } catch (const CLI::ArgumentMismatch& e) {
        // CLI11 says "--credits: 1 required c missing" or "--nodes: At Most 1 required but received 2".
        const std::string what = e.what();
        const std::string flag = what.substr(0, what.find(':'));
        if (what.find("received") != std::string::npos) throw ConfigError(flag + " is given more than once");
        if (const Option* o = find(flag.substr(flag.find_first_not_of('-'))))
            throw ConfigError(flag + " needs a value (" + (o->value_name.empty() ? "true or false" : o->value_name) + ")");
        throw ConfigError(flag + " needs a value");
    } catch (const CLI::ParseError& e) {
        throw ConfigError(std::string("bad command line: ") + e.what());
    }
    for (const auto& extra : app.remaining()) {
        const std::string token = extra.substr(0, extra.find('='));
        if (!appears_on_command_line(token, argc, argv)) { // captured from --config
            const auto name = token.find_first_not_of('-');
            throw ConfigError("config file: unknown key '" + (name == std::string::npos ? token : token.substr(name)) +
                              "' (keys are the long flag names of evbench --help)");
        }
        if (token.rfind("-", 0) == 0) throw ConfigError("unknown flag " + token + " (" + app.get_name() + " --help lists the flags)");
        throw ConfigError("unexpected argument '" + extra + "' (flags take the form --name VALUE; see --help)");
    }
    for (auto& o : options_) {
        if (o.is_switch && o.cli && o.cli->count() > 0) {
            o.given_text = o.switch_text.empty() ? "true" : o.switch_text;
            o.set(o.given_text);
            o.given = true;
        }
    }
    for (const auto& o : options_)
        for (const auto& other : o.excluded)
            if (o.given && given(other)) throw ConfigError("--" + other + " excludes --" + o.name);
    return true;
}

void OptionSet::check_files() const {
    std::vector<std::string> inputs;
    if (!config_file_.empty()) inputs.push_back(config_file_);
    auto files_of = [](const Option& o) {
        std::vector<std::string> files;
        const nlohmann::json v = o.echo();
        if (v.is_string())
            files.push_back(v.get<std::string>());
        else if (v.is_array())
            for (const auto& f : v) files.push_back(f.get<std::string>());
        return files;
    };
    for (const auto& o : options_)
        if (o.given && o.is_input_file)
            for (auto& f : files_of(o)) inputs.push_back(std::move(f));
    std::string on_stdout;
    for (const auto& o : options_)
        if (o.given && o.is_output_file)
            for (const auto& f : files_of(o)) {
                check_output_file(f, "--" + o.name, inputs);
                if (f != stdout_file) continue;
                if (!on_stdout.empty())
                    throw ConfigError("--" + on_stdout + " and --" + o.name + " both write to standard output ('-'): give one a file");
                on_stdout = o.name;
            }
}

void OptionSet::take_stdout_if_asked() const {
    for (const auto& o : options_)
        if (o.given && o.is_output_file && o.echo() == stdout_file) take_stdout_for_output();
}

void OptionSet::refuse_inapplicable() const {
    for (const auto& o : options_)
        if (o.given && o.applies && !o.applies()) throw ConfigError("--" + o.name + " needs " + o.needs + " (this run would ignore it)");
}

std::vector<std::string> OptionSet::given_in(const std::string& group) const {
    std::vector<std::string> names;
    for (const auto& o : options_)
        if (o.given && o.group == group && !o.any_transport) names.push_back(o.name);
    return names;
}

std::vector<std::string> OptionSet::given_names() const {
    std::vector<std::string> names;
    for (const auto& o : options_)
        if (o.given) names.push_back(o.name);
    return names;
}

const Option* OptionSet::find(const std::string& name) const {
    for (const auto& o : options_)
        if (o.name == name) return &o;
    return nullptr;
}

nlohmann::json OptionSet::given_texts() const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : options_)
        if (o.given && !o.is_output_file) j[o.name] = o.given_text;
    return j;
}

bool OptionSet::given(const std::string& name) const {
    const Option* o = find(name);
    return o && o->given;
}

nlohmann::json OptionSet::echo(const std::vector<std::string>& groups, bool shared_only) const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& o : options_) {
        if (o.json_key.empty() || (shared_only && !o.same_on_every_rank)) continue;
        if (!groups.empty() && std::find(groups.begin(), groups.end(), o.group) == groups.end()) continue;
        j[o.json_key] = o.echo();
    }
    return j;
}

std::vector<std::string> OptionSet::groups() const { return group_order_; }

std::string OptionSet::markdown_blocks() const {
    std::string text;
    for (const auto& group : group_order_) {
        bool empty = std::none_of(options_.begin(), options_.end(), [&](const Option& o) { return o.group == group; });
        if (!empty) text += "<!-- flags: " + group + " -->\n" + markdown(group) + "<!-- /flags -->\n";
    }
    return text;
}

std::string OptionSet::markdown(const std::string& group) const {
    std::string table = "| flag | default | meaning |\n| --- | --- | --- |\n";
    for (const auto& o : options_) {
        if (o.group != group) continue;
        std::string flag = "--" + o.name + (o.value_name.empty() ? "" : " " + o.value_name);
        std::string escaped_flag, escaped_help;
        for (char ch : flag) escaped_flag += ch == '|' ? std::string("\\|") : std::string(1, ch);
        for (char ch : o.help) escaped_help += ch == '|' ? std::string("\\|") : std::string(1, ch);
        // A value is code; a default described in words ("m N c f", "all") is not.
        const bool words = o.default_text.find(' ') != std::string::npos;
        const std::string shown = o.default_text.empty() ? "" : words ? o.default_text : "`" + o.default_text + "`";
        table += fmt::format("| `{}` | {} | {} |\n", escaped_flag, shown, escaped_help);
    }
    return table;
}

} // namespace evb
