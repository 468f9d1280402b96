// --format csv and --format kv: standard output carries only the run, as tools/aggregate.py's
// columns (the same values aggregate.py reads from the run's --json), and everything else goes
// to standard error; on every kind of run a script reads them from: in one process, over tcp,
// simulated.
#include "run_command.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <sstream>
#include <vector>

using namespace evb::test;

namespace {

// Header and row as a map; fails unless there are exactly two lines.
std::map<std::string, std::string> csv_row(const std::string& text) {
    std::istringstream in(text);
    std::string header, row, more;
    std::getline(in, header);
    std::getline(in, row);
    EXPECT_FALSE(std::getline(in, more)) << "more than a header and a row:\n" << text;
    const auto names = csv_cells(header), values = csv_cells(row);
    EXPECT_EQ(names.size(), values.size()) << text;
    std::map<std::string, std::string> m;
    for (std::size_t i = 0; i < std::min(names.size(), values.size()); ++i) m[names[i]] = values[i];
    return m;
}

// A cell of evbench's row against aggregate.py's: numbers as numbers ("101000" is "101000.0").
void expect_same_cell(const std::string& name, const std::string& ours, const std::string& theirs) {
    char* end = nullptr;
    const double a = std::strtod(ours.c_str(), &end);
    const bool number = !ours.empty() && *end == '\0';
    const double b = std::strtod(theirs.c_str(), &end);
    if (number && !theirs.empty() && *end == '\0')
        EXPECT_DOUBLE_EQ(a, b) << name;
    else
        EXPECT_EQ(ours, theirs) << name;
}

class ResultFormats : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(ResultFormats, StandardOutputCarriesTheRunAsAggregatesRowAndAsKeyValues) {
    const std::string json = temp_path(std::string("format_") + GetParam().first + ".json");
    auto csv = run_command(evbench_binary() + " " + GetParam().second + " --format csv --json " + json, 120);
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.err.find("# system: "), std::string::npos) << "the report goes to standard error:\n" << csv.err;
    const auto ours = csv_row(csv.out);
    auto aggregate = run_command("python3 " + std::string(EVBENCH_SOURCE_DIR) + "/tools/aggregate.py " + json, 60);
    ASSERT_EQ(aggregate.exit_code, 0) << aggregate.err;
    const auto theirs = csv_row(aggregate.out);
    ASSERT_EQ(ours.size(), theirs.size()) << csv.out << aggregate.out;
    for (const auto& [name, value] : theirs) expect_same_cell(name, ours.count(name) ? ours.at(name) : "(none)", value);
    EXPECT_EQ(ours.at("transport"), GetParam().first);

    auto kv = run_command(evbench_binary() + " " + GetParam().second + " --format kv --quiet", 120);
    ASSERT_EQ(kv.exit_code, 0) << kv.err;
    ASSERT_EQ(kv.out.rfind("evbench: transport=", 0), 0u) << kv.out;
    ASSERT_EQ(std::count(kv.out.begin(), kv.out.end(), '\n'), 1) << kv.out;
    std::istringstream words(kv.out.substr(9));
    for (std::string word; words >> word;) {
        const auto eq = word.find('=');
        ASSERT_NE(eq, std::string::npos) << word;
        EXPECT_TRUE(ours.count(word.substr(0, eq))) << word << " is not one of the CSV's columns";
    }
}

INSTANTIATE_TEST_SUITE_P(Runs, ResultFormats,
                         ::testing::Values(std::make_pair("local", "--duration 0.3s --fragment-size 64KiB"),
                                           std::make_pair("tcp", "--transport tcp --launch-local 2 --duration 0.3s --fragment-size 64KiB"),
                                           std::make_pair("sim", "--transport sim --nodes 8 --duration 300us")),
                         [](const auto& p) { return std::string(p.param.first); });

} // namespace
